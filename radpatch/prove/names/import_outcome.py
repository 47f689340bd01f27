"""Whether a guarded import of the standard library fails on the target (issue 21): `try: from itertools
import batched` / `except ImportError: pass` leaves `batched` unbound on every 3.11 run, as a version
test would, so a new read of it there is no partial binding but a NameError; on 3.12 the body surely
binds it.

Told only where this interpreter is the target's major.minor (the names walk runs in the target or
in a radpatch of its version), for absolute imports of a standard-library module this process
already holds, one built in, or one of a few whose import only defines things (_PLAIN: math,
typing, ...): `from M import N` fails when M has no attribute N and is no package (a package's
submodule may still be found), `import M` and a present N succeed; an import of a module only a
newer standard library has (`tomllib` on 3.10) fails. Anything else is not told: the try stays a
branch fixed per install (fallback_only judges its fallback).
"""

from __future__ import annotations

import ast
import importlib
import sys
from types import ModuleType

from .target_stdlib import ADDED_SINCE_310
from .version_guard import catches

# standard-library modules whose import only defines things (no threads, files, terminals, network)
_PLAIN = frozenset(
    {"math", "cmath", "itertools", "operator", "functools", "typing", "collections", "locale", "inspect"}
)
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def import_outcome(s: ast.AST, version: tuple[int, int]) -> bool | tuple[int, ast.ExceptHandler] | None:
    """For a try whose body is imports only: True when each surely succeeds on the target; (the index
    of the first that surely fails, the handler that catches its ImportError); None when not told."""
    if version != sys.version_info[:2]:
        return None
    handler = next((h for h in getattr(s, "handlers", ()) if catches(h, _IMPORT_ERRORS)), None)
    for i, stmt in enumerate(getattr(s, "body", ())):
        if isinstance(stmt, ast.Pass):
            continue
        told = _succeeds(stmt)
        if told is None:
            return None
        if not told:
            return (i, handler) if handler is not None else None
    return True


def _succeeds(s: ast.stmt) -> bool | None:
    if isinstance(s, ast.Import):
        if any(_newer_only(a.name) for a in s.names):
            return False
        return True if all(_module(a.name) is not None for a in s.names) else None
    if isinstance(s, ast.ImportFrom) and not s.level and s.module and _newer_only(s.module):
        return False
    if not isinstance(s, ast.ImportFrom) or s.level or not s.module:
        return None
    module = _module(s.module)
    if module is None:
        return None
    for a in s.names:
        if a.name == "*" or (not hasattr(module, a.name) and hasattr(module, "__path__")):
            return None
        if not hasattr(module, a.name):
            return False
    return True


def _newer_only(name: str) -> bool:
    """A module only a newer standard library has (`tomllib` on 3.10): no distribution installs one."""
    top = name.split(".")[0]
    return top in ADDED_SINCE_310 and top not in getattr(sys, "stdlib_module_names", (top,))


def _module(name: str) -> ModuleType | None:
    """The standard-library module `name` as this interpreter has it without running module code."""
    if name.split(".")[0] not in getattr(sys, "stdlib_module_names", ()):
        return None
    held = sys.modules.get(name)
    if held is not None:
        return held
    if name in sys.builtin_module_names or name in _PLAIN:
        try:
            return importlib.import_module(name)
        except ImportError:
            return None
    return None
