"""Issue 20 (att20f F1, F3): a branch added to an if/elif chain just before its final `else:`, and the
else-position wraps next to it (the else of an if, of a try, of a for, of a while). Import must
never write a rewrite that is not idempotent on GNU patch's result: an `elif` added before `else:`
said as `find: <the else's statement>` / `with: if new: ... else: <it>` leaves the `find` in the
patched file, so status read GNU's image as not applied and apply nested a second copy. Such a
change replaces the whole chain, in the diff's own text (its comments and quotes stay).

Each shape, decided against GNU `patch -p1` on the same file: import then apply on the pristine
install gives GNU's module (AST), status --check passes and revert gives RECORD's bytes; on the
image GNU patched, status does not read not-applied, apply adopts without writing a byte and
status --check passes; and the same change made by hand is captured, and reads applied."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import yaml

from radpatch.importing.rewrites import rewrites
from tests.lib.importing import diff_imported, gnu_patch, pip_install
from tests.lib.wheels import build_wheel

REL = "rpchain/m.py"

ELIF = """\
def pick(p):
    if p.a():
        m = 1
    elif p.b():
        m = 2
    else:
        m = 3
    return m
"""
NEW_ELIF = '    elif p.d == "npu":  # npu\n        # the default name\n        m = 4\n    else:\n'

METHOD = """\
class K:
    def __init__(self, p):
        if p.is_cpu():
            self.f = self.cpu
        elif p.is_rocm():
            self.f = self.hip
        else:
            self.f = self.cuda
"""

NESTED = """\
def walk(items, flag):
    out = []
    for it in items:
        if flag:
            if it.a:
                out.append(1)
            elif it.b:
                out.append(2)
            else:
                out.append(3)
    return out
"""

TWO = """\
def two(x):
    if x > 0:
        y = 1
    else:
        y = 2
    return y
"""

TRY = """\
def load(path):
    try:
        f = open(path)
    except OSError:
        f = None
    else:
        f.read()
    return f
"""

FOR = """\
def find(xs, t):
    for x in xs:
        if x == t:
            break
    else:
        x = None
    return x
"""

WHILE = """\
def count(n):
    while n > 0:
        n -= 1
    else:
        n = -1
    return n
"""


def _wrap(source: str, line: str, indent: str) -> str:
    """`line` (a whole line of `source`) wrapped in `if not __debug__: ... else: <line>`."""
    new = f'{indent}if not __debug__:  # "why"\n{indent}    _rp = "x"\n{indent}else:\n    {line}'
    assert source.count(line) == 1
    return source.replace(line, new)


SHAPES = {
    "elif-before-else": (ELIF, ELIF.replace("    else:\n", NEW_ELIF)),
    "elif-before-else-in-method": (
        METHOD,
        METHOD.replace(
            "        else:\n", '        elif p.device_name == "npu":\n            self.f = self.native\n        else:\n'
        ),
    ),
    "elif-before-else-nested": (
        NESTED,
        NESTED.replace(
            "            else:\n", "            elif it.c:  # c\n                out.append(4)\n            else:\n"
        ),
    ),
    "elif-added-to-if-else": (TWO, TWO.replace("    else:\n", "    elif x < 0:\n        y = 3\n    else:\n")),
    "elif-taken-out-before-else": (ELIF, ELIF.replace("    elif p.b():\n        m = 2\n", "")),
    "else-branch-wrap": (TWO, _wrap(TWO, "        y = 2\n", "        ")),
    "try-else-wrap": (TRY, _wrap(TRY, "        f.read()\n", "        ")),
    "for-else-wrap": (FOR, _wrap(FOR, "        x = None\n", "        ")),
    "while-else-wrap": (WHILE, _wrap(WHILE, "        n = -1\n", "        ")),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_elif_before_else_replaces_the_chain_in_the_diffs_own_text(shape: str) -> None:
    before, after = SHAPES[shape]
    steps = rewrites(before, after).steps
    assert steps
    for step in steps:
        with_ = step.get("with")
        if step.op == "replace" and isinstance(with_, str) and "elif" in after and "elif" not in before:
            assert "elif" in with_, with_  # the chain, not its else's statement wrapped in a new if
    if shape == "elif-before-else":
        with_ = steps[0].get("with")
        assert isinstance(with_, str)
        assert '"npu":  # npu' in with_ and "# the default name" in with_, with_  # F3: the diff's text


@pytest.mark.wheel
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_chain_branch_imports_adopts_and_captures_as_gnu_patch_gives(tmp_path: Path, shape: str) -> None:
    before, after = SHAPES[shape]
    got = diff_imported(tmp_path, "rpchain", REL, before, after)
    venv, wheel, patch, gnu, reg, text = got.venv, got.wheel, got.patch, got.gnu, got.reg, got.text
    target = venv.site / REL

    rp = ("--registry", str(reg))

    # on the pristine install: GNU's module
    applied = venv.radpatch(*rp, "apply", "--wheel", str(wheel), "change")
    assert applied.returncode == 0, applied.stderr + text
    assert ast.dump(ast.parse(target.read_text())) == ast.dump(ast.parse(gnu)), text + target.read_text()
    assert venv.radpatch(*rp, "status", "--check", "change").returncode == 0, text
    assert venv.radpatch(*rp, "revert", "change").returncode == 0
    assert target.read_text() == before

    # on the image GNU patched: adopted, not patched a second time
    assert gnu_patch(venv.site, patch, 1).returncode == 0
    assert target.read_text() == gnu
    status = venv.radpatch(*rp, "status", "change")
    assert "not-applied" not in status.stdout, status.stdout + text
    adopted = venv.radpatch(*rp, "apply", "--wheel", str(wheel), "change")
    assert adopted.returncode == 0 and "adopted" in adopted.stdout, adopted.stdout + adopted.stderr + text
    assert target.read_text() == gnu  # no second copy, not a byte written
    assert venv.radpatch(*rp, "status", "--check", "change").returncode == 0, text
    assert venv.radpatch(*rp, "revert", "change").returncode == 0
    assert target.read_text() == before

    # the same change made by hand: captured, and it reads applied
    target.write_text(gnu)
    cap = tmp_path / "cap"
    captured = venv.radpatch("capture", "mine", "--distribution", "rpchain", "--wheel", str(wheel), "--out", str(cap))
    assert captured.returncode == 0, captured.stdout + captured.stderr
    entry = yaml.safe_load((cap / "mine.yaml").read_text())
    assert entry["rewrites"], entry
    assert venv.radpatch("--registry", str(cap), "status", "--check", "mine").returncode == 0
    assert target.read_text() == gnu


ENTRY = """\
summary: a new branch before the else, written as a wrap of the else's statement
description: the else's statement wrapped in the new branch's if
distribution: rpchain
supported: ==1.0.0
modules:
  m: rpchain.m
rewrites:
- id: npu
  replace:
    scope: {scope}
    find: {find}
    with: {with_}
"""

WRITTEN = {  # shape: (scope, find, with) as a person (or an earlier import) wrote the entry
    "elif-before-else": ("pick", "m = 3", 'if p.d == "npu":\n    m = 4\nelse:\n    m = 3\n'),
    "elif-before-else-in-method": (
        "K.__init__",
        "self.f = self.cuda",
        'if p.device_name == "npu":\n    self.f = self.native\nelse:\n    self.f = self.cuda\n',
    ),
    "elif-before-else-nested": ("walk", "out.append(3)", "if it.c:\n    out.append(4)\nelse:\n    out.append(3)\n"),
    "elif-added-to-if-else": ("two", "y = 2", "if x < 0:\n    y = 3\nelse:\n    y = 2\n"),
}


@pytest.mark.wheel
@pytest.mark.parametrize("shape", sorted(WRITTEN))
def test_a_written_else_wrap_reads_applied_where_the_branch_is_an_elif(tmp_path: Path, shape: str) -> None:
    """A replace whose `find` (an else's statement) stays inside its `with` (`if new: ... else: <find>`):
    on a file where the branch is an `elif` of the chain (GNU patch's result), the result is there, so
    status does not read not-applied and apply adopts it, with no second copy of the branch."""
    before, after = SHAPES[shape]
    scope, find, with_ = WRITTEN[shape]
    wheel = build_wheel(tmp_path / "wheel", "rpchain", "1.0.0", {"rpchain/__init__.py": "", REL: before})
    venv = pip_install(tmp_path / "venv", wheel)
    reg = tmp_path / "reg"
    reg.mkdir()
    (reg / "npu.yaml").write_text(ENTRY.format(scope=scope, find=json.dumps(find), with_=json.dumps(with_)))
    rp = ("--registry", str(reg))
    target = venv.site / REL

    applied = venv.radpatch(*rp, "apply", "--wheel", str(wheel), "npu")  # pristine: the wrap is written
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert ast.dump(ast.parse(target.read_text())) == ast.dump(ast.parse(after))
    assert venv.radpatch(*rp, "revert", "npu").returncode == 0
    assert target.read_text() == before

    target.write_text(after)  # GNU patch's result: the branch is an elif of the chain
    status = venv.radpatch(*rp, "status", "npu")
    assert "not-applied" not in status.stdout, status.stdout
    adopted = venv.radpatch(*rp, "apply", "--wheel", str(wheel), "npu")
    assert adopted.returncode == 0 and "adopted" in adopted.stdout, adopted.stdout + adopted.stderr
    assert target.read_text() == after  # no second copy
    assert venv.radpatch(*rp, "status", "--check", "npu").returncode == 0
    assert venv.radpatch(*rp, "revert", "npu").returncode == 0
    assert target.read_text() == before
