"""An image ran `patch -p1` with a stacked series whose LATER patch on the same module deletes a
whole definition (a method, a property, the def the earlier patch added, a top-level def). `radpatch
import` writes entries a and b (b requires a); `apply a b` on that image must adopt both and keep
the file's bytes, `status --check a b` exits 0 with both applied, and `revert a b` gives RECORD's
bytes back, as for the same stacks whose later patch changes a statement (issue 20)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.lib.importing import PACKAGE, Venv, gnu_diff, gnu_patch, gnu_patched_pair

pytestmark = pytest.mark.wheel

TEXTWRAP = f"{PACKAGE}/std_textwrap.py"
ASYNC_LLM = f"{PACKAGE}/vllm_0_33_0_async_llm.py"
FIX = "        self.width = width\n"

# module; what the first patch changes, into what; the def the second deletes from that (qualified name)
SHAPES = {
    "method": (
        TEXTWRAP,
        ((FIX, "        self.width = width + 0\n"),),
        "TextWrapper._split_chunks",
    ),
    "def-the-first-added": (
        TEXTWRAP,
        (
            (FIX, "        self.width = width + 0\n"),
            ("    def wrap(self, text):\n", "    def rp_extra(self):\n        return 1\n\n    def wrap(self, text):\n"),
        ),
        "TextWrapper.rp_extra",
    ),
    "top-level-def": (
        TEXTWRAP,
        ((FIX, "        self.width = width + 0\n"),),
        "shorten",
    ),
    "property": (
        ASYNC_LLM,
        (("        return self.errored\n", "        return bool(self.errored)\n"),),
        "AsyncLLM.should_keep_api_server_alive",
    ),
}


def _deleted(text: str, qualname: str) -> str:
    """`text` without the def `qualname` (its decorators and the blank lines after it), as a person
    deleting it in an editor leaves the file."""
    body: list[ast.stmt] = ast.parse(text).body
    for part in qualname.split("."):
        (node,) = (n for n in body if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n.name == part)
        body = node.body
    lines = text.splitlines(keepends=True)
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
    end = node.end_lineno or node.lineno
    while end < len(lines) and not lines[end].strip():
        end += 1
    return "".join(lines[:start] + lines[end:])


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_stacked_series_whose_later_patch_deletes_a_def_is_adopted_whole(
    venv: Venv, corpus_wheel: Path, tmp_path: Path, shape: str
) -> None:
    rel, edits, gone = SHAPES[shape]
    pristine = (venv.site / rel).read_bytes()
    first = pristine.decode()
    for old, new in edits:
        first = first.replace(old, new, 1)
    second = _deleted(first, gone)
    assert pristine.decode() != first != second != pristine.decode()
    reg = gnu_patched_pair(venv, tmp_path, rel, pristine, first, second)
    carried = (venv.site / rel).read_bytes()
    assert carried == second.encode()

    applied = venv.radpatch("--registry", str(reg), "apply", "--wheel", str(corpus_wheel), "a", "b")

    assert applied.returncode == 0, applied.stderr
    assert (venv.site / rel).read_bytes() == carried
    status = venv.radpatch("--registry", str(reg), "status", "--check", "a", "b")
    assert status.returncode == 0, status.stdout + status.stderr
    states = {ln.split()[0]: ln.split()[1] for ln in status.stdout.splitlines()[1:] if ln.strip()}
    assert states == {"a": "applied", "b": "applied"}, status.stdout
    reverted = venv.radpatch("--registry", str(reg), "revert", "a", "b")
    assert reverted.returncode == 0, reverted.stderr
    assert (venv.site / rel).read_bytes() == pristine


def test_an_image_that_ran_only_the_lower_patch_adopts_it_and_applies_the_upper(
    venv: Venv, corpus_wheel: Path, tmp_path: Path
) -> None:
    """Tried on top and not carried (the image ran only a): a is adopted alone and b is applied,
    giving what GNU patch gives of both."""
    rel, edits, gone = SHAPES["method"]
    pristine = (venv.site / rel).read_bytes()
    first = pristine.decode()
    for old, new in edits:
        first = first.replace(old, new, 1)
    second = _deleted(first, gone)
    a, b = tmp_path / "a.patch", tmp_path / "b.patch"
    a.write_bytes(gnu_diff(tmp_path / "da", rel, pristine, first).stdout)
    b.write_bytes(gnu_diff(tmp_path / "db", rel, first, second).stdout)
    reg = tmp_path / "reg"
    assert venv.radpatch("import", str(a), str(b), "-p1", "--out", str(reg)).returncode == 0
    assert gnu_patch(venv.site, a, 1).returncode == 0

    applied = venv.radpatch("--registry", str(reg), "apply", "--wheel", str(corpus_wheel), "a", "b")

    assert applied.returncode == 0, applied.stderr
    assert "a: adopted" in applied.stdout and "b: applied" in applied.stdout, applied.stdout
    assert ast.dump(ast.parse((venv.site / rel).read_bytes())) == ast.dump(ast.parse(second))
    assert venv.radpatch("--registry", str(reg), "status", "--check", "a", "b").returncode == 0


def test_the_lower_patch_also_creates_a_module_and_the_upper_deletes_the_def_it_added(
    venv: Venv, corpus_wheel: Path, tmp_path: Path
) -> None:
    """a creates a module and adds a method; b deletes that method and changes a statement. a reads
    applied by its new module only: its run on the shared file still goes under b's (att20d s9).
    GNU patch wrote the module, so revert leaves it (docs/state.md, who owns a created module)."""
    pristine = (venv.site / TEXTWRAP).read_bytes()
    added = "    def rp_peek(self):\n        return self.width\n\n"
    first = pristine.decode().replace("    def wrap(self, text):\n", added + "    def wrap(self, text):\n", 1)
    second = first.replace(added, "").replace(FIX, "        self.width = width + 0\n", 1)
    new = f"{PACKAGE}/rp_new.py"
    a, b = tmp_path / "a.patch", tmp_path / "b.patch"
    created = gnu_diff(tmp_path / "dn", new, "", "Z = 3\n").stdout
    a.write_bytes(created + gnu_diff(tmp_path / "da", TEXTWRAP, pristine, first).stdout)
    b.write_bytes(gnu_diff(tmp_path / "db", TEXTWRAP, first, second).stdout)
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(a), str(b), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    for p in (a, b):
        gnu = gnu_patch(venv.site, p, 1)
        assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    carried = (venv.site / TEXTWRAP).read_bytes()

    applied = venv.radpatch("--registry", str(reg), "apply", "--wheel", str(corpus_wheel), "a", "b")

    assert applied.returncode == 0, applied.stderr
    assert (venv.site / TEXTWRAP).read_bytes() == carried
    assert venv.radpatch("--registry", str(reg), "status", "--check", "a", "b").returncode == 0
    reverted = venv.radpatch("--registry", str(reg), "revert", "a", "b")
    assert reverted.returncode == 0, reverted.stderr
    # GNU patch made the module, not radpatch: revert leaves it (state.owner)
    assert f"{PACKAGE}.rp_new left in place" in reverted.stdout, reverted.stdout
    assert (venv.site / TEXTWRAP).read_bytes() == pristine and (venv.site / new).read_text() == "Z = 3\n"


SHLEX = f"{PACKAGE}/std_shlex.py"
# per module of a two-file series: the line a changes, into what b changes it again, and a def b may delete
TWO_FILES = {
    TEXTWRAP: (
        FIX,
        ("        self.width = width + 0\n", "        self.width = width + 1\n"),
        "TextWrapper._split_chunks",
    ),
    SHLEX: (
        "        self.commenters = '#'\n",
        ("        self.commenters = '#;'\n", "        self.commenters = '#!'\n"),
        "shlex.push_source",
    ),
}


@pytest.mark.parametrize("lower", ["gnu", "radpatch"])
@pytest.mark.parametrize("rechanged", ["other-file", "both-files"])
@pytest.mark.parametrize("deleter", [TEXTWRAP, SHLEX])
def test_a_two_file_series_whose_later_patch_deletes_in_one_and_rechanges_the_other_is_adopted(
    venv: Venv, corpus_wheel: Path, tmp_path: Path, deleter: str, rechanged: str, lower: str
) -> None:
    """a changes a line in each of two modules; b deletes a def in one of them (`deleter`) and
    changes a's line again in the other (and in the deleting one too: `both-files`). After GNU
    `patch -p1` of a (or `radpatch apply a`) then b, `apply a b` adopts both, per file of the run
    (att20e F1)."""
    pristine = {rel: (venv.site / rel).read_bytes() for rel in TWO_FILES}
    first: dict[str, str] = {}
    second: dict[str, str] = {}
    for rel, (line, (once, again), gone) in TWO_FILES.items():
        first[rel] = pristine[rel].decode().replace(line, once, 1)
        text = first[rel]
        if rel != deleter or rechanged == "both-files":
            text = text.replace(once, again, 1)
        second[rel] = _deleted(text, gone) if rel == deleter else text
        assert pristine[rel].decode() != first[rel] != second[rel]
    a, b = tmp_path / "a.patch", tmp_path / "b.patch"
    a.write_bytes(b"".join(gnu_diff(tmp_path / f"da{i}", r, pristine[r], first[r]).stdout for i, r in enumerate(first)))
    b.write_bytes(b"".join(gnu_diff(tmp_path / f"db{i}", r, first[r], second[r]).stdout for i, r in enumerate(first)))
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(a), str(b), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    if lower == "radpatch":
        done = venv.radpatch("--registry", str(reg), "apply", "a")
        assert done.returncode == 0, done.stderr
    for p in (a, b) if lower == "gnu" else (b,):
        gnu = gnu_patch(venv.site, p, 1)
        assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    assert all(ast.dump(ast.parse((venv.site / r).read_bytes())) == ast.dump(ast.parse(second[r])) for r in second)
    second = {r: (venv.site / r).read_text() for r in second}  # radpatch's a may mark its lines (comments)

    applied = venv.radpatch("--registry", str(reg), "apply", "--wheel", str(corpus_wheel), "a", "b")

    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert all((venv.site / r).read_bytes() == second[r].encode() for r in second)
    status = venv.radpatch("--registry", str(reg), "status", "--check", "a", "b")
    assert status.returncode == 0, status.stdout + status.stderr
    reverted = venv.radpatch("--registry", str(reg), "revert", "a", "b")
    assert reverted.returncode == 0, reverted.stderr
    assert all((venv.site / r).read_bytes() == pristine[r] for r in pristine)
