"""Which file the target interpreter imports for a module (state.imported): the path finder's
order, checked against the real import system on generated directory layouts."""

from __future__ import annotations

import importlib.machinery
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.state.imported import _file_of, import_name

SUFFIXES = [
    *importlib.machinery.EXTENSION_SUFFIXES,
    *importlib.machinery.SOURCE_SUFFIXES,
    *importlib.machinery.BYTECODE_SUFFIXES,
]

# what may sit beside each other in the package `top` for the module `m`
SHAPES = {
    "package": ("m/__init__.py", "def f():\n    return 'package'\n"),
    "namespace dir": ("m/other.py", "X = 1\n"),
    "source": ("m.py", "def f():\n    return 'source'\n"),
}


def _layouts() -> list[tuple[str, ...]]:
    return [c for n in range(1, len(SHAPES) + 1) for c in itertools.combinations(SHAPES, n)]


@pytest.mark.parametrize("layout", _layouts(), ids=lambda c: "+".join(c))
def test_the_file_found_is_the_one_python_imports(tmp_path: Path, layout: tuple[str, ...]) -> None:
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "__init__.py").write_text("")
    for shape in layout:
        rel, text = SHAPES[shape]
        (tmp_path / "top" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "top" / rel).write_text(text)
    probe = "import sys, importlib.util; sys.path[:0] = [sys.argv[1]]; print(importlib.util.find_spec('top.m').origin)"
    real = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True)
    origin = real.stdout.strip()
    spec = {"origin": str(tmp_path / "top" / "__init__.py"), "dirs": [str(tmp_path / "top")]}
    found = _file_of("top.m", spec, SUFFIXES)
    if origin in ("None", ""):  # a namespace portion only: no file
        assert found is None
    else:
        assert found == Path(origin), layout


@pytest.mark.parametrize("beside", ["m.py", "m/__init__.py"])
def test_a_compiled_extension_is_preferred_to_the_source_beside_it(tmp_path: Path, beside: str) -> None:
    ext = importlib.machinery.EXTENSION_SUFFIXES[0]
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / f"m{ext}").write_bytes(b"\x7fELF")
    (tmp_path / "top" / beside).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "top" / beside).write_text("X = 1\n")
    found = _file_of("top.m", {"origin": None, "dirs": [str(tmp_path / "top")]}, SUFFIXES)
    # a package directory comes before a module file of any suffix; an extension before a .py
    want = tmp_path / "top" / ("m/__init__.py" if beside.startswith("m/") else f"m{ext}")
    assert found == want


def test_the_init_spelling_names_the_package() -> None:
    assert [import_name(m) for m in ("a.b.__init__", "a.__init__", "a.b", "a.init")] == ["a.b", "a", "a.b", "a.init"]
