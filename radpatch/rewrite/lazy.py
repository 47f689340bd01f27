"""The heavy names an operation module uses (libcst, the matching code, ops/common), bound in it
when one of its rewrites first runs.

Loading a registry imports every operation module (ops/__init__ finds them), and must not import
libcst (a quarter of a second, in every status run). So an operation module imports those names
only under `if TYPE_CHECKING:`, for the type checker, and calls load(__name__) before it runs:
the imports of that block, read from the module's own source, are then made at run time. The
block is the one list of them.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys

_LOADED: set[str] = set()


def load(name: str) -> None:
    """Bind in module `name` what its `if TYPE_CHECKING:` block imports (once)."""
    if name in _LOADED:
        return
    module = sys.modules[name]
    spec = importlib.util.find_spec(name)
    loader = spec.loader if spec is not None else None
    source = loader.get_source(name) if loader is not None and hasattr(loader, "get_source") else None
    if source is None:
        raise ImportError(f"{name}: radpatch needs its source to load what its rewrites use")
    for stmt in ast.parse(source).body:
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Name) and stmt.test.id == "TYPE_CHECKING":
            for node in stmt.body:
                _bind(module, node)
    _LOADED.add(name)


def _bind(module: object, node: ast.stmt) -> None:
    if isinstance(node, ast.Import):
        for a in node.names:
            imported = importlib.import_module(a.name)
            if a.asname:
                setattr(module, a.asname, imported)
            else:
                setattr(module, a.name.split(".")[0], importlib.import_module(a.name.split(".")[0]))
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        source = importlib.import_module(node.module)
        for a in node.names:
            try:
                value = getattr(source, a.name)
            except AttributeError:  # a submodule not imported yet (`from radpatch.rewrite import commas`)
                value = importlib.import_module(f"{node.module}.{a.name}")
            setattr(module, a.asname or a.name, value)
    else:
        raise ImportError(f"{ast.unparse(node)}: only absolute imports are loaded lazily")
