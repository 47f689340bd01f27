"""Issue 20: a change to a `match` statement's case is imported in its narrowest form. A case whose
pattern compares with another value, or whose guard changes, is a `replace` of that one expression
(as a compound statement's header is said), the statements of the cases entered as blocks; the
match is replaced whole only where no one expression says the change (a case added or removed, a
name a pattern binds, the pattern's shape), and the import's note says so.

Generated variants of one module (each case's value, guard and statements changed alone and
together, and cases added and removed): each is diffed with GNU diff, imported, and the entries of
all of them applied to one pip-installed wheel by the real engine; every module must then be GNU
patch's bytes (or, where the import says it did not carry a comment, its code), `status --check`
must pass, and `revert` must give the installed bytes back."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
import yaml

from tests.lib.generated import sample
from tests.lib.importing import gnu_diff, gnu_patch, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

BEFORE = """\
def route(command, size):
    total = 0
    match command:
        case "start":
            total += size
            log("started", total)
        case "stop" if size > 0:
            total -= size
        case Point(x=0, y=5):
            total = 5
        case [first, *rest]:
            total = len(rest)
        case _:
            log("unknown", command)
    return total


def log(*args):
    return args
"""

# (what changes, the text before, the text after): each a case's head or statements
EDITS = {
    "value": ('case "start":', 'case "begin":'),
    "guard": ('case "stop" if size > 0:', 'case "stop" if size > 10:'),
    "class-value": ("case Point(x=0, y=5):", "case Point(x=0, y=7):"),
    "body": ("            total = len(rest)\n", "            total = len(rest) + len(first)\n"),
}
# changes no one expression says: the whole match is replaced, and the import's note says why
WHOLE = {
    "added": ("        case _:\n", '        case "pause":\n            total = -1\n        case _:\n'),
    "removed": ('        case "stop" if size > 0:\n            total -= size\n', ""),
    "bound-name": ("case [first, *rest]:", "case [head, *rest]:"),
}
CASES = sample([(a, b) for a, b in itertools.combinations(list(EDITS) + [None], 2) if a] + [(w, None) for w in WHOLE])


def _variant(edits: tuple[str, ...]) -> str:
    text = BEFORE
    for name in edits:
        old, new = EDITS.get(name) or WHOLE[name]
        assert old in text, name
        text = text.replace(old, new, 1)
    return text


def _ops(entry: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    items = entry["rewrites"]
    assert isinstance(items, list)
    return [next((k, v) for k, v in item.items() if k not in ("id", "file")) for item in items]


def test_match_case_changes_import_narrowly_and_apply_as_gnu_patch_does(tmp_path: Path) -> None:
    variants = [tuple(e for e in case if e) for case in CASES]
    rels = [f"rpmatch/m{i}.py" for i in range(len(variants))]
    venv = pip_install(
        tmp_path / "venv",
        build_wheel(tmp_path / "wheel", "rpmatch", "1.0.0", {"rpmatch/__init__.py": "", **dict.fromkeys(rels, BEFORE)}),
    )
    reg = tmp_path / "reg"
    gnu: dict[int, bytes] = {}
    said: dict[int, str] = {}
    for i, (rel, edits) in enumerate(zip(rels, variants)):
        patch = tmp_path / f"c{i}.patch"
        patch.write_bytes(gnu_diff(tmp_path / f"d{i}", rel, BEFORE, _variant(edits)).stdout)
        (tmp_path / f"gnu{i}" / rel).parent.mkdir(parents=True)
        (tmp_path / f"gnu{i}" / rel).write_text(BEFORE)
        assert gnu_patch(tmp_path / f"gnu{i}", patch, 1).returncode == 0
        gnu[i] = (tmp_path / f"gnu{i}" / rel).read_bytes()
        out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
        assert out.returncode == 0, f"{edits}: {out.stderr}"
        said[i] = out.stdout
        entry = yaml.safe_load((reg / f"c{i}.yaml").read_text())
        whole = [v for op, v in _ops(entry) if op == "replace" and "match command" in str(v.get("find"))]
        if any(e in WHOLE for e in edits):
            assert whole, f"{edits}: {entry}"
            assert "replaced the whole match" in out.stdout, out.stdout
        else:
            assert not whole, f"{edits}: the entry replaces the whole match: {entry}"
            assert not [v for op, v in _ops(entry) if "def route" in str(v.get("find", ""))], entry
            assert "replaced the whole" not in out.stdout, out.stdout
    names = [f"c{i}" for i in range(len(variants))]
    applied = venv.radpatch("--registry", str(reg), "apply", *names)
    assert applied.returncode == 0, applied.stderr
    for i, rel in enumerate(rels):
        mine = (venv.site / rel).read_bytes()
        assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(gnu[i])), variants[i]
        assert mine == gnu[i] or "not written" in said[i], f"{variants[i]}: not GNU patch's bytes"
    assert venv.radpatch("--registry", str(reg), "status", "--check", *names).returncode == 0
    assert venv.radpatch("--registry", str(reg), "revert", *names).returncode == 0
    assert all((venv.site / rel).read_text() == BEFORE for rel in rels)
