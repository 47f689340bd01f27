"""docs/architecture.md names every module of radpatch/ (issue 22: a newcomer finds each folder's
modules in its table): each module's name appears in the doc's code spans, except the operation
modules, which the doc names as a family (`ops/<operation>`) and which declare an Operation."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _is_operation_module(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "Operation" for b in node.bases)
        for node in tree.body
    )


def test_every_module_is_named_in_the_architecture_doc() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    words = {w for span in re.findall(r"`([^`]+)`", doc) for w in re.findall(r"[A-Za-z_]\w*", span)}
    missing = []
    for path in sorted((ROOT / "radpatch").rglob("*.py")):
        name = path.parent.name if path.stem == "__init__" else path.stem
        if path.parent.name == "ops" and _is_operation_module(path):
            continue
        if name not in words:
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, f"modules docs/architecture.md does not name: {missing}"
