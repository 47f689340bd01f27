"""Issue 22: every class radpatch defines has its own name. Two modules each with a `Verdict` (or a
`Scope`, a `FileChange`...) make a reader ask which one a name means; a class's name says what it is."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import radpatch

PACKAGE = Path(radpatch.__file__).parent


def _classes() -> dict[str, list[str]]:
    """Each class name radpatch/ defines (nested ones too), with where: `module.py:line`."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return where


def test_no_two_classes_in_radpatch_share_a_name() -> None:
    found = _classes()
    assert len(found) > 50  # the walk did reach the package's modules
    assert {name: places for name, places in found.items() if len(places) > 1} == {}
