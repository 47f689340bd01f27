"""An image whose Dockerfile still ran `patch -p1` moves to radpatch: the installed files already
carry the diff, in GNU patch's layout, and `radpatch import` made the entry from that same diff.
`status` must read the entry as carried (never not-applied, which would make `apply` patch the file
a second time), `apply` must adopt it without writing a byte, `status --check` must pass, and
`revert` must give RECORD's bytes back.

Generated: seeded edits of real modules (tests/lib/importing.edit) and, on top, the shapes whose
result keeps the original statement inside the new code (a statement wrapped in an if/else that
keeps it in the else, a block inserted with the blank lines GNU patch keeps and radpatch's own
layout would not write)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from tests.lib.importing import PACKAGE, Venv, edit, gnu_diff, gnu_patch

pytestmark = pytest.mark.wheel

MODULES = ("std_textwrap", "std_shlex", "std_calendar", "std_configparser", "vllm_0_33_0_core")


def _wrap(source: str, rng: random.Random) -> str:
    """A single-line statement of a function body wrapped in `if not __debug__: <new> else: <it>`, and a
    block with a blank line after it inserted before a later statement of the same block."""
    tree = ast.parse(source)
    lines = source.split("\n")
    picks = [
        (s, body)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef)
        for body in [f.body]
        for s in body[1:-1]
        if isinstance(s, (ast.Assign, ast.Expr))
        and s.lineno == s.end_lineno
        and not isinstance(getattr(s, "value", None), ast.Constant)
        and ";" not in lines[s.lineno - 1]
    ]
    if not picks:
        return source
    s, body = rng.choice(picks)
    line = lines[s.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    nxt = body[body.index(s) + 1]
    new = [f"{indent}if not __debug__:", f"{indent}    pass", f"{indent}else:", f"    {line}"]
    block = [f"{indent}if not __debug__:", f"{indent}    _RP_COUNT = 1", ""]
    at_next = nxt.lineno - 1
    out = lines[: s.lineno - 1] + new + lines[s.lineno : at_next] + block + lines[at_next:]
    return "\n".join(out)


@pytest.mark.parametrize("seed", range(10))
def test_a_file_gnu_patch_already_patched_is_adopted_not_patched_again(
    venv: Venv, corpus_wheel: Path, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    rel = f"{PACKAGE}/{rng.choice(MODULES)}.py"
    pristine = (venv.site / rel).read_bytes()
    after = pristine.decode()
    if seed % 2:
        after = edit(after, rng, seed)
    after = _wrap(after, rng)
    assert after != pristine.decode()
    patch = tmp_path / f"fix{seed}.patch"
    patch.write_bytes(gnu_diff(tmp_path / "d", rel, pristine, after).stdout)
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    name = f"fix{seed}"

    gnu = gnu_patch(venv.site, patch, 1)  # the old image's build step
    assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    carried = (venv.site / rel).read_bytes()

    status = venv.radpatch("--registry", str(reg), "status", name)
    assert status.returncode == 0 and "not-applied" not in status.stdout, status.stdout
    applied = venv.radpatch("--registry", str(reg), "apply", "--wheel", str(corpus_wheel), name)
    assert applied.returncode == 0, applied.stderr + (reg / f"{name}.yaml").read_text()
    assert "adopted" in applied.stdout, applied.stdout
    assert (venv.site / rel).read_bytes() == carried  # not a byte written
    assert venv.radpatch("--registry", str(reg), "status", "--check", name).returncode == 0
    reverted = venv.radpatch("--registry", str(reg), "revert", name)
    assert reverted.returncode == 0, reverted.stderr
    assert (venv.site / rel).read_bytes() == pristine
