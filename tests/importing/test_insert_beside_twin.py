"""A statement inserted next to an identical one (att20 F1: `block.ref_cnt += 1` made two lines).

The importer's entry must read as not applied on the file it was made from, and as applied on the
file the diff gives: an insert anchored on the far side of the twin (`insert_before` the statement
below `x += 1` when `x += 1` stays right above) reads the same on both, because undoing it removes
the twin, and apply then refused the pristine release as "already contains what the patch adds".
Each generated variant (twin above or below, module or function level, one or two statements) is
imported, run by the engine's own rewrites (plan, then the inverse), and read by apply's check."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.prove import plan
from radpatch.prove.round_trips import round_trip
from radpatch.registry.model import Operation
from radpatch.rewrite import runner
from radpatch.rewrite.ops.insert_statements import InsertStatements
from tests.lib.rewrites import patch_of

MODULE = textwrap.dedent("""\
    import os

    A = 1
    {twin}
    B = os.sep


    def touch(blocks, m):
        for b in blocks:
            if b.z:
                b.q()
            {ftwin}
            if m:
                m.hit()
        return blocks
    """)
TWINS = ("A += 1", "A += 1\nA = A * 2")
FTWINS = ("b.ref += 1", "b.ref += 1\nb.seen = True")


def _ops(before: str, after: str) -> tuple[Operation, ...]:
    ops: list[Operation] = []
    for step in rewrites(before, after).steps:
        assert step.op in ("insert_before", "insert_after"), step
        keys = dict(step.keys)
        ops.append(
            InsertStatements(
                str(keys["scope"]),
                str(keys["find"]),
                str(keys["code"]),
                "after" if step.op == "insert_after" else "before",
                occurrence=keys.get("occurrence"),  # type: ignore[arg-type]
            )
        )
    return tuple(ops)


def _variant(level: str, twin: int) -> tuple[str, str]:
    """(before, after): the twin (one statement or two) doubled, at module level or in a loop."""
    mod, fn = TWINS[twin], FTWINS[twin]
    fn_lines = textwrap.indent(fn, " " * 8).lstrip()
    before = MODULE.format(twin=mod, ftwin=fn_lines)
    if level == "module":
        after = before.replace(f"{mod}\n", f"{mod}\n{mod}\n", 1)
    else:
        body = textwrap.indent(fn, " " * 8) + "\n"
        after = before.replace(body, body + body, 1)
    assert after != before
    return before, after


@pytest.mark.parametrize("twin", range(len(TWINS)))
@pytest.mark.parametrize("level", ["module", "function"])
def test_an_insert_beside_its_twin_applies_on_the_release_reverts_and_reads_applied_once_applied(
    level: str, twin: int
) -> None:
    before, after = _variant(level, twin)
    ops = _ops(before, after)
    patch = patch_of(*ops)
    pristine, patched = before.encode(), after.encode()
    # apply's check (prove.form.refuse_if_present): the release does not read as carrying the patch
    assert not round_trip(patch, patch.rewrites, pristine, "mod.py").patched, ops
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), pristine)
    assert ast.dump(ast.parse(change.after)) == ast.dump(ast.parse(patched))
    assert runner.backward(patch, patch.rewrites, change.after, "mod.py") == pristine  # revert: byte for byte
    # the file the diff gives (GNU patch's bytes) reads as carrying it: status and adopt recognise it
    assert round_trip(patch, patch.rewrites, patched, "mod.py").patched, ops
    assert runner.backward(patch, patch.rewrites, patched, "mod.py") == pristine


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_hand_written_insert_beside_a_twin_that_is_not_ambiguous_still_reads_present(where: str) -> None:
    """A release that really carries an inserted statement (no twin involved) is still read as
    carrying it: apply's refusal of an upstream change stays."""
    before = "def f(n):\n    cap = 10\n    return min(n, cap)\n"
    carried = "def f(n):\n    cap = 10\n    cap = cap + 5\n    return min(n, cap)\n"
    find = "cap = 10" if where == "after" else "return min(n, cap)"
    patch = patch_of(InsertStatements("f", find, "cap = cap + 5", where))  # type: ignore[arg-type]
    assert round_trip(patch, patch.rewrites, carried.encode(), "mod.py").patched
    assert not round_trip(patch, patch.rewrites, before.encode(), "mod.py").patched
