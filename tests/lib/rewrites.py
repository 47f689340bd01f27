"""Rewrites on literal sources, run through plan.plan as the engine runs them.

patch_of wraps operations in a patch whose rewrites are r0, r1, ... from reg.yaml:1, :2, ...;
check compares the whole patched module and proves the structural inverse; refuse returns the
refusal, for the test to read its message and hint."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from radpatch.errors import RefusedError
from radpatch.importing.import_steps import ImportStep
from radpatch.prove import plan
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.rewrite import runner
from radpatch.rewrite.ops.set_keyword import SetKeyword


def patch_of(
    *ops: Operation, distribution: str = "toypkg", module: str = "mod", location: str = "reg.yaml:{n}"
) -> Patch:
    """A patch of one rewrite per operation, on module `mod`: rewrite `r<i>` at `location` (formatted
    with n = i + 1: reg.yaml:1, reg.yaml:2, ... unless the test names another)."""
    rws = tuple(Rewrite(f"r{i}", module, None, op, location.format(n=i + 1)) for i, op in enumerate(ops))
    return Patch(
        name="t",
        summary="t",
        description="t",
        distribution=distribution,
        supported=SpecifierSet(""),
        obsolete=None,
        knobs=(),
        modules=(),
        rewrites=rws,
        source=Path("t.yaml"),
        digest="0",
    )


def check(before: str, ops: Operation | tuple[Operation, ...], after: str, exact: bool = True) -> None:
    """The patched module equals `after` (dedented), whole. Its inverse is AST-equal to `before`
    and, with exact (a `find` typed in the file's own layout), byte-identical; re-applying to
    the inverse gives the same patched bytes."""
    ops = ops if isinstance(ops, tuple) else (ops,)
    patch = patch_of(*ops)
    original = textwrap.dedent(before).encode()
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original)
    assert change.after.decode() == textwrap.dedent(after)
    undone = runner.backward(patch, patch.rewrites, change.after, "mod.py")
    assert ast.dump(ast.parse(undone)) == ast.dump(ast.parse(original))
    if exact:
        assert undone == original
    assert runner.forward(patch, patch.rewrites, undone, "mod.py") == change.after


def refuse(before: str, *ops: Operation) -> RefusedError:
    """The refusal plan.plan raises for `ops` on `before` (dedented)."""
    patch = patch_of(*ops)
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), textwrap.dedent(before).encode())
    return info.value


def refusal(before: str, *ops: Operation) -> str:
    """The message of the refusal plan.plan raises for `ops` on `before` (dedented)."""
    return refuse(before, *ops).message


def set_keyword_ops(steps: tuple[ImportStep, ...]) -> tuple[SetKeyword, ...]:
    """The import's set_keyword steps as the operations their keys describe, for `check`: every key
    the import writes (`from`, `to`, `after`, `before`, `within`, `header`, the counts as numbers)."""
    ops = []
    for step in steps:
        k = {f: str(v) for f, v in step.keys}
        ops.append(
            SetKeyword(
                k["scope"],
                k["call"],
                k["keyword"],
                from_=k.get("from"),
                to=k.get("to"),
                after=k.get("after"),
                before=k.get("before"),
                within=k.get("within"),
                header=k.get("header"),
                occurrence=int(k["occurrence"]) if "occurrence" in k else None,
                call_occurrence=int(k["call_occurrence"]) if "call_occurrence" in k else None,
            )
        )
    return tuple(ops)
