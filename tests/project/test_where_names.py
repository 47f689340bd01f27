"""Issue 22: `where` meant a file:line location, a file name, a directory, a side of an anchor and
where an original came from. No parameter or field of radpatch's is called `where`; each meaning
has its own name (`location`, `filename`, `site_dir`, `side`, `original_from`, ...)."""

from __future__ import annotations

import ast
from pathlib import Path

import radpatch

PACKAGE = Path(radpatch.__file__).parent


def _named_where() -> list[str]:
    """`module.py:line` of each parameter, class field or method called `where` in radpatch/."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.arg) and node.arg == "where":
                found.append(f"{rel}:{node.lineno} parameter")
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        named = item.target.id
                    elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        named = item.name
                    else:
                        continue
                    if named == "where":
                        found.append(f"{rel}:{item.lineno} {node.name}.where")
    return found


def test_no_parameter_or_field_is_called_where() -> None:
    assert _named_where() == []
