"""Undo goes by the revision that was applied (prove.undo): once someone added a comment line to a
patched file and the entry was revised since, `revert` and a re-`apply` still take the applied
revision off (from the record's kept original and result), keeping the comment. Generated
sequences (apply, add a comment line, revise an entry, revert or re-apply) on the demo wheel
pip-installed into a venv, radpatch run as its own process, each compared with a reference that
builds the expected file from the pristine lines."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.lib.installed import Env, alpha_entry
from tests.lib.registry import write_entry

ALPHA = "rphard_demo/alpha.py"
# entry -> (rewrite kind, scope, anchor line, indent)
ENTRIES = {
    "low": ("insert_after", "compute", "y = x + 1", "    "),
    "high": ("insert_before", "caller", "return compute(2)", "    "),
}
CODE = {"low": "y = y + {n}", "high": "_high = {n}"}
COMMENT_BEFORE = ('"""First module', "def caller", None)  # None: at the end


def entry(name: str, n: int) -> str:
    kind, scope, find, _ = ENTRIES[name]
    code = CODE[name].format(n=n)
    return alpha_entry(kind, scope, find, code)


def with_comment(text: str, before: str | None) -> str:
    lines = text.splitlines(keepends=True)
    at = len(lines) if before is None else next(i for i, s in enumerate(lines) if s.startswith(before))
    return "".join([*lines[:at], "# a local note\n", *lines[at:]])


def reference(pristine: str, before: str | None, applied: dict[str, int]) -> str:
    """The pristine file with the comment line, and each applied entry's line where it goes."""
    out = []
    for line in with_comment(pristine, before).splitlines(keepends=True):
        for name, n in applied.items():
            kind, _, find, indent = ENTRIES[name]
            if line.strip() == find and kind == "insert_before":
                out.append(indent + CODE[name].format(n=n) + "\n")
        out.append(line)
        for name, n in applied.items():
            kind, _, find, indent = ENTRIES[name]
            if line.strip() == find and kind == "insert_after":
                out.append(indent + CODE[name].format(n=n) + "\n")
    return "".join(out)


CASES = [
    (stack, revised, before, op)
    for stack in (("low",), ("high",), ("low", "high"))
    for revised, before, op in itertools.product(stack, COMMENT_BEFORE, ("revert", "apply"))
]
# a spread of the generated cases (each is a few radpatch runs on a fresh venv)
PICKED = CASES[::5] + [c for c in CASES if c[:2] == (("low", "high"), "low")][:2]


@pytest.mark.parametrize(("stack", "revised", "before", "op"), PICKED)
def test_a_revised_entry_comes_off_as_applied_after_a_comment_edit(
    demo_env: Env, tmp_path: Path, stack: tuple[str, ...], revised: str, before: str | None, op: str
) -> None:
    reg = tmp_path / "reg"
    for name in stack:
        write_entry(reg, name, entry(name, 100))
    demo_env.registries = (*demo_env.registries, reg)
    pristine = demo_env.path(ALPHA).read_text()
    out = demo_env.run("apply", *stack)
    assert out.returncode == 0, out.stdout + out.stderr
    path = demo_env.path(ALPHA)
    path.write_text(with_comment(path.read_text(), before))
    write_entry(reg, revised, entry(revised, 400))
    out = demo_env.run(op, *stack)
    assert out.returncode == 0, out.stdout + out.stderr
    applied = {n: 400 if n == revised else 100 for n in stack} if op == "apply" else {}
    assert path.read_text() == reference(pristine, before, applied)
    status = demo_env.run("status", *stack)
    assert status.returncode == 0, status.stdout + status.stderr
