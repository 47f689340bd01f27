"""Issue 20 (att20e F2, F3): a diff editing a class defined once inside a module-level block (`if
HAS_X:`, `try:`), or the typing-only stubs of `if TYPE_CHECKING:`, imports into an entry that the
real engine applies AST-equal to GNU patch, that `status --check` accepts and that reverts to the
installed bytes (tests/lib/importing.imported_as_gnu_patch_gives, on a pip-installed toy wheel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.blocks import in_block
from tests.lib.importing import imported_as_gnu_patch_give_each, imported_as_gnu_patch_gives

# a real wheel pip-installed into a venv: the real tier (tests/lib/tier.py)
pytestmark = pytest.mark.wheel

HEADS = {  # the block holding the class, and what its body is indented by
    "if": ("try:\n    import json as HAS_X\nexcept ImportError:\n    HAS_X = None\n\nif HAS_X:\n", "    "),
    "try": ("try:\n", "    "),
    "type-checking": ("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n", "    "),
}
TAILS = {
    "if": "",
    "try": "except ImportError:\n    pass\n",
    "type-checking": "else:\n    Config = dict\n",
}
STUB = {  # the class's methods: real ones, or typing stubs
    "if": ("def size(self) -> int:\n    return 4\n", "def rows(self) -> int:\n    return 2\n"),
    "try": ("def size(self) -> int:\n    return 4\n", "def rows(self) -> int:\n    return 2\n"),
    "type-checking": ("def size(self) -> int: ...\n", "def rows(\n    self, n: int\n) -> int: ...\n"),
}
NEW = {
    "if": "def describe(self) -> str:\n    return 'x'\n",
    "try": "def describe(self) -> str:\n    return 'x'\n",
    "type-checking": "def describe(self) -> str: ...\n",
}


def module(block: str, methods: list[str]) -> str:
    head, ind = HEADS[block]
    cls = in_block("class Config:\n", "\n".join(methods) if methods else "pass\n")
    return in_block("import os\n\n" + head, cls, "\n" + TAILS[block] + "\n\ndef after():\n    return os.sep\n", ind)


def edits(block: str) -> dict[str, list[str]]:
    size, rows = STUB[block]
    return {
        "add-last": [size, rows, NEW[block]],
        "add-middle": [size, NEW[block], rows],
        "delete-last": [size],
        "change": [size.replace("int", "float"), rows],
    }


CASES = [(b, e) for b in HEADS for e in ("add-last", "add-middle", "delete-last", "change")]


def _case(block: str, edit: str) -> tuple[str, str]:
    return module(block, list(STUB[block])), module(block, edits(block)[edit])


@pytest.fixture(scope="module")
def passed_together(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, object]]:
    """The cases that pass every check when all of them are imported, applied, checked and reverted
    in one pip-installed wheel (a few processes for the file instead of six per case)."""
    return imported_as_gnu_patch_give_each(tmp_path_factory.mktemp("guarded"), [_case(*c) for c in CASES])


@pytest.mark.parametrize(("block", "edit"), CASES, ids=[f"{b}-{e}" for b, e in CASES])
def test_class_in_a_module_level_block(
    tmp_path: Path, passed_together: dict[int, dict[str, object]], block: str, edit: str
) -> None:
    if CASES.index((block, edit)) not in passed_together:  # alone, for the failing check's message
        imported_as_gnu_patch_gives(tmp_path, *_case(block, edit))
