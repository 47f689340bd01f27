"""Issue 20 (att20c F1): a patch deleting the last method of a class (or the last def of a module)
imports as a `delete` of it, as for a middle one, and the entry applies on the pristine file: the
entry's `delete` says `marker: comment`, so the engine leaves its mark as the block's last comment
line, not a `pass` GNU's result does not have. Generated from real modules: the last method of
classes of the stdlib and vLLM corpus, each checked against GNU patch
(tests/lib/importing.imported_as_gnu_patch_gives). A deletion that would empty a block is refused in one line."""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.importing import PACKAGE, corpus_files, gnu_diff, imported_as_gnu_patch_gives, pip_install
from tests.lib.wheels import build_wheel

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _last_methods(source: str) -> list[tuple[int, int]]:
    """(first line, last line), 1-based, of each class's last statement when it is a method that
    follows another method."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and len(node.body) >= 2:
            last, prev = node.body[-1], node.body[-2]
            if isinstance(last, DEFS) and isinstance(prev, DEFS):
                first = min([last.lineno, *(d.lineno for d in last.decorator_list)])
                assert last.end_lineno is not None
                found.append((first, last.end_lineno))
    return found


CASES = [
    (m, seed)
    for seed, m in enumerate(("vllm_0_33_0_core", "std_configparser", "std_argparse", "vllm_0_33_0_coordinator"))
]


@pytest.mark.wheel
@pytest.mark.parametrize(("module", "seed"), CASES)
def test_deleting_a_class_s_last_method_imports_as_an_entry_that_applies(
    tmp_path: Path, module: str, seed: int
) -> None:
    before = corpus_files()[f"{PACKAGE}/{module}.py"].decode()
    spans = _last_methods(before)
    assert spans, module
    first, last = random.Random(seed).choice(spans)
    lines = before.splitlines(keepends=True)
    start = first - 1
    while start > 0 and not lines[start - 1].strip():  # the blank lines before it go with it
        start -= 1
    after = "".join(lines[:start] + lines[last:])
    ast.parse(after)
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)
    _is_one_delete_of(entry, "".join(lines[first - 1 : last]))


def _is_one_delete_of(entry: dict[str, object], method: str) -> None:
    items = entry["rewrites"]
    assert isinstance(items, list) and len(items) == 1, entry
    delete = items[0]["delete"]
    assert ast.dump(ast.parse(textwrap.dedent(delete["find"]))) == ast.dump(ast.parse(textwrap.dedent(method))), entry
    assert delete["marker"] == "comment", entry


MODULE = """import os


class Config:
    def load(self):
        return os.environ


def first():
    return 1


def last():
    return 2
"""


@pytest.mark.wheel
def test_deleting_a_module_s_last_def_imports_as_a_delete_that_applies(tmp_path: Path) -> None:
    after = MODULE[: MODULE.index("\n\n\ndef last")] + "\n"
    entry = imported_as_gnu_patch_gives(tmp_path, MODULE, after)
    _is_one_delete_of(entry, "def last():\n    return 2\n")
    assert entry["rewrites"][0]["delete"]["scope"] == "<module>"  # type: ignore[index]


def test_deleting_a_class_s_last_method_keeps_the_method_before_it_out_of_the_entry() -> None:
    save = "        return os.environ\n\n    def save(self):\n        pass\n"
    before = MODULE.replace("        return os.environ\n", save)
    found = rewrites(before, MODULE)
    assert [(s.op, dict(s.keys)) for s in found.steps] == [
        ("delete", {"scope": "Config", "find": "def save(self):\n    pass\n", "marker": "comment"})
    ]


@pytest.mark.wheel
def test_a_deletion_that_empties_a_block_is_refused_in_one_line(tmp_path: Path) -> None:
    # the class's only method: GNU's result does not compile, so no entry can give it
    before = "class Config:\n    def load(self):\n        return 1\n\n\nX = 1\n"
    rel = "rpnarrow/m.py"
    wheel = build_wheel(tmp_path / "wheel", "rpnarrow", "1.0.0", {"rpnarrow/__init__.py": "", rel: before})
    venv = pip_install(tmp_path / "venv", wheel)
    patch = tmp_path / "empty.patch"
    patch.write_bytes(gnu_diff(tmp_path / "d", rel, before, "class Config:\n\n\nX = 1\n").stdout)
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg"))
    assert out.returncode == 1, out.stdout + out.stderr
    error = [line for line in out.stderr.splitlines() if line.startswith("radpatch: error:")]
    assert len(error) == 1 and "empty.patch" in error[0] and rel in error[0], out.stderr
    assert "leaves a block empty" in error[0] and "class definition on line 1" in error[0], out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "reg" / "empty.yaml").exists()
