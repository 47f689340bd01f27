"""att60 F05: a form feed (^L) page-break line, or U+2028, "\\x1c", NEL ("\\x85") and the other
characters str.splitlines ends a line at, inside a string or a docstring, shifted import's and
capture's line mapping by one line each: a body change in `def b` became a `<module>` replace of all
of b, with the false note "its body is on its header's line (a one-line suite)". Python's tokenizer
and GNU patch end a line at "\\n", "\\r\\n" and "\\r" only (radpatch.source_lines). With each of those
characters, import and capture write the entry they write without it, and apply's result is
byte-equal to GNU patch's."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
import yaml

from radpatch import source_lines
from radpatch.importing import emit
from tests.lib.importing import gnu_diff, pip_install, plain_gnu_patch
from tests.lib.wheels import build_wheel

TEMPLATE = '''"""rpbreak's module: {c} in its docstring."""
import os

{page}
def a(x):
    s = "one{c}two"
    y = x + 1
    return y

{page}
def b(x):
    if x:
        x = x - 1
    w = x * 3
    return w


class C:
    def m(self):
        return "p{c}q"

    def n(self):
        v = 5
        return v
'''
# each character str.splitlines ends a line at and Python does not; "" is the plain module
CHARS = {"plain": "", "ff": "\x0c", "vt": "\x0b", "fs": "\x1c", "gs": "\x1d", "rs": "\x1e", "nel": "\x85"}
CHARS |= {"ls": "\u2028", "ps": "\u2029"}


def _source(c: str) -> str:
    return TEMPLATE.format(c=c, page="\x0c" if c == "\x0c" else "")


def _edited(text: str) -> str:
    return text.replace("w = x * 3", "w = x * 4").replace("v = 5", "v = 6")


def _rewrites(entry: Path) -> object:
    return yaml.safe_load(entry.read_text(encoding="utf-8"))["rewrites"]


@pytest.mark.parametrize("k", CHARS)
def test_a_line_number_names_the_line_python_counts(k: str) -> None:
    text = _source(CHARS[k]).replace("\n", "\r\n", 3).replace("    v = 5\n", "    v = 5\r")
    lines = source_lines.split(text)
    assert lines == io.StringIO(text, newline=None).read().removesuffix("\n").split("\n")
    assert "".join(source_lines.split(text, keepends=True)) == text
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Assign)):
            segment = ast.get_source_segment(text, node) or ""
            assert lines[node.lineno - 1].lstrip().startswith(segment.split("\n")[0].split("\r")[0]), node.lineno


@pytest.mark.parametrize("k", CHARS)
def test_an_entrys_code_holding_the_character_reads_back_from_its_yaml(k: str) -> None:
    for code in (f'return "a{CHARS[k]}b"\n', f's = "{CHARS[k]}"\nt = 1\n', f"x = 1  {CHARS[k]}\ny = 2\n", CHARS[k]):
        doc = yaml.dump({"with": code}, Dumper=emit._Dumper, allow_unicode=True, sort_keys=False, width=120)
        assert yaml.safe_load(doc) == {"with": code}, doc


@pytest.mark.wheel
def test_each_character_gives_the_narrow_entry_and_gnu_patchs_bytes(tmp_path: Path) -> None:
    files = {"rpbreak/__init__.py": ""} | {f"rpbreak/m_{k}.py": _source(c) for k, c in CHARS.items()}
    wheel = build_wheel(tmp_path / "wheel", "rpbreak", "1.0", files)
    venv = pip_install(tmp_path / "venv", wheel)
    reg = tmp_path / "reg"
    got: dict[str, tuple[object, object]] = {}
    wrong: dict[str, list[str]] = {}  # by character, what went wrong: every case runs, then all are said
    for k, c in CHARS.items():
        rel = f"rpbreak/m_{k}.py"
        before = _source(c).encode()
        patch = tmp_path / f"{k}.patch"
        patch.write_bytes(gnu_diff(tmp_path / f"d_{k}", rel, before, _edited(_source(c)).encode()).stdout)
        gnu = tmp_path / f"gnu_{k}"
        (gnu / rel).parent.mkdir(parents=True)
        (gnu / rel).write_bytes(before)
        assert plain_gnu_patch(gnu, patch).returncode == 0
        imported = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
        assert imported.returncode == 0, imported.stderr
        said = wrong.setdefault(k, [])
        said += ["import: one-line suite"] if "one-line suite" in imported.stdout + imported.stderr else []
        applied = venv.radpatch("--registry", str(reg), "apply", k)
        assert applied.returncode == 0, applied.stderr
        said += ["apply: not GNU's bytes"] if (venv.site / rel).read_bytes() != (gnu / rel).read_bytes() else []
        assert venv.radpatch("--registry", str(reg), "revert", k).returncode == 0
        assert (venv.site / rel).read_bytes() == before
        (venv.site / rel).write_bytes((gnu / rel).read_bytes())  # the same edit, by hand
        captured = venv.radpatch(
            "capture", f"c_{k}", "--distribution", "rpbreak", "--wheel", str(wheel), "--out", str(reg), rel
        )
        assert captured.returncode == 0, captured.stderr
        said += ["capture: one-line suite"] if "one-line suite" in captured.stdout + captured.stderr else []
        said += ["capture: not the hand's bytes"] if (venv.site / rel).read_bytes() != (gnu / rel).read_bytes() else []
        got[k] = (_rewrites(reg / f"{k}.yaml"), _rewrites(reg / f"c_{k}.yaml"))
    plain = got.pop("plain")
    assert [r["replace"]["scope"] for r in plain[0]] == ["b", "C.n"], plain  # type: ignore[index, union-attr]
    assert plain[0] == plain[1]
    for k, (imported_rewrites, captured_rewrites) in got.items():
        wrong[k] += ["import: another entry"] if imported_rewrites != plain[0] else []
        wrong[k] += ["capture: another entry"] if captured_rewrites != plain[1] else []
    assert {k: v for k, v in wrong.items() if v} == {}
