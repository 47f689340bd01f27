"""A module in the target's newer grammar (a PEP 695 `type` line, a generic def, a PEP 701
f-string on a Python 3.12 target) read by radpatch on an older Python (att40 #4, #5): after a
comment was added to the patched file, `status`, `status --check`, `status --json` and `revert`
exited 70 (radpatch's Python parsed the file to compare its code); adopting a file that held
exactly the bytes `apply` writes was refused with an empty reason. The code is now compared by the
target interpreter where radpatch's cannot read it.

Generated: the newer-grammar line x the edit made after apply (a comment line, a blank line, a code
edit). The oracle is the target interpreter itself: its syntax tree of the file against that of
the patched file (the same code after a comment or blank line, another after a code edit)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head, write_entry
from tests.lib.wheels import build_wheel

pytestmark = [pytest.mark.wheel, pytest.mark.interpreters]

TARGET = Path("/root/.pyenv/versions/3.12.1/bin/python")
DIST, VERSION, REL = "rpng", "1.0", "rpng/core.py"
NEWER = {  # a line only Python 3.12's grammar reads
    "type-alias": "type Pair = tuple[int, int]\n",
    "generic-def": "def first[T](items: list[T]) -> T:\n    return items[0]\n",
    "fstring": 'WHO = \'x\'\nSAID = f"{f"{WHO}"}"\n',
}
CORE = "\n\ndef limit(n):\n    size = n\n    return size\n"
EDITS = {
    "comment": ("def limit(n):", "# a note\ndef limit(n):"),
    "blank": ("def limit(n):", "\n\ndef limit(n):"),
    "code": ("    return size", "    return size + 1"),
}
ENTRY = entry_head("rpng", DIST, {"core": "rpng.core"}) + textwrap.dedent("""\
    - id: twice
      file: core
      replace: {scope: limit, find: size = n, with: size = n * 2}
    """)
CASES = sample(list(itertools.product(NEWER, EDITS)))


def _run(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600)


def _tree(data: str) -> str:
    """The target interpreter's syntax tree of `data` (the oracle: it reads the newer grammar)."""
    code = "import ast, sys; print(ast.dump(ast.parse(sys.stdin.read())))"
    return subprocess.run(
        [str(TARGET), "-I", "-c", code], input=data, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if not TARGET.is_file():
        pytest.skip(f"needs the Python 3.12 interpreter at {TARGET}")
    if sys.version_info >= (3, 12):
        pytest.skip("radpatch's own Python reads the 3.12 grammar: nothing is delegated")
    base = tmp_path_factory.mktemp("rpng")
    out = {}
    for name, line in NEWER.items():
        wheel = build_wheel(base / name, DIST, VERSION, {"rpng/__init__.py": "", REL: line + CORE})
        venv = base / name / "venv"
        assert _run(TARGET, "-m", "venv", "--without-pip", venv).returncode == 0
        pip = (sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "--disable-pip-version-check")
        done = _run(*pip, "install", "--no-deps", "--no-index", "--quiet", wheel)
        assert done.returncode == 0, done.stderr
        out[name] = venv
    return out


def _core(venv: Path) -> Path:
    return venv / "lib" / "python3.12" / "site-packages" / REL


def _target(template: Path, tmp_path: Path) -> tuple[Path, tuple[str | Path, ...]]:
    """A private copy of the template venv, and the radpatch command on it with the entry's registry."""
    venv = tmp_path / "venv"
    shutil.copytree(template, venv, symlinks=True)
    reg = tmp_path / "registry"
    write_entry(reg, "rpng", ENTRY)
    return venv, (sys.executable, "-m", "radpatch", "--registry", reg, "--python", venv)


@pytest.mark.parametrize(("newer", "edit"), CASES)
def test_status_and_revert_read_a_newer_grammar_by_the_target(
    template: dict[str, Path], tmp_path: Path, newer: str, edit: str
) -> None:
    venv, rp = _target(template[newer], tmp_path)
    original = _core(venv).read_text()
    applied = _run(*rp, "apply", "rpng")
    assert applied.returncode == 0, applied
    patched = _core(venv).read_text()
    old, new = EDITS[edit]
    _core(venv).write_text(patched.replace(old, new, 1))
    same = _tree(_core(venv).read_text()) == _tree(patched)  # the oracle: the target's own reading
    assert same == (edit != "code")

    status, check, as_json = (
        _run(*rp, "status", "rpng"),
        _run(*rp, "status", "--check", "rpng"),
        _run(*rp, "status", "--json", "rpng"),
    )
    for r in (status, check, as_json):
        assert r.returncode != 70 and "Traceback" not in r.stderr, r
    state = json.loads(as_json.stdout)
    state = state[0] if isinstance(state, list) else state
    assert state["state"] == ("applied" if same else "drifted"), state
    assert (check.returncode == 0) == same, check

    reverted = _run(*rp, "revert", "rpng")
    assert reverted.returncode != 70 and "Traceback" not in reverted.stderr, reverted
    if same:
        assert reverted.returncode == 0, reverted
        assert _tree(_core(venv).read_text()) == _tree(original)  # the code is the installed code again
    else:
        assert reverted.returncode != 0 and "radpatch restore" in reverted.stderr + reverted.stdout, reverted


@pytest.mark.parametrize("newer", list(NEWER))
def test_a_hand_edit_that_is_the_patch_is_adopted_in_a_newer_grammar(
    template: dict[str, Path], tmp_path: Path, newer: str
) -> None:
    venv, rp = _target(template[newer], tmp_path)
    wheel = next((template[newer].parent).glob("*.whl"))
    _core(venv).write_text(_core(venv).read_text().replace("size = n\n", "# by hand\n    size = n * 2\n"))

    adopted = _run(*rp, "apply", "rpng", "--wheel", wheel)

    assert adopted.returncode == 0, adopted
    check = _run(*rp, "status", "--check", "rpng")
    assert check.returncode == 0, check
