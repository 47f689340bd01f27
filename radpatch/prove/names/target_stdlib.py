"""The target Python's standard library: a new unguarded import of a module that looks like standard
library (some Python's has it) but that the target's lacks and that is not installed on its path
(`import tomllib` on a 3.10 target). A `try` that catches ImportError guards; so does an `if`,
except that a `sys.version_info` comparison is decided for the target's version.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .problem import MISSING_MODULE, Problem
from .scope_bindings import FUNCS
from .version_guard import OPEN, aliases, catches, decide, flags

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def imported_modules(tree: ast.Module, version: tuple[int, int] | None = None) -> list[tuple[str, int, str]]:
    """(top-level module name, line, scope) of each absolute import that runs unguarded (see
    unguarded_imports)."""
    out: list[tuple[str, int, str]] = []
    for node, qual in unguarded_imports(tree, version):
        if isinstance(node, ast.Import):
            out.extend((a.name.split(".")[0], node.lineno, qual) for a in node.names)
        elif not node.level and node.module:
            out.append((node.module.split(".")[0], node.lineno, qual))
    return out


def unguarded_imports(
    tree: ast.Module, version: tuple[int, int] | None = None
) -> list[tuple[ast.Import | ast.ImportFrom, str]]:
    """(import statement, scope) of each import that runs unguarded: not in a `try` that catches
    ImportError, nor under an `if`. A test of the Python version is decided for the target
    `version` (`if sys.version_info >= (3, 11): import tomllib` is how code imports what only newer
    Pythons have; version_guard.decide), and one that reads the version in a way not understood
    guards neither branch; a module-level name bound once to a version test (`PY311 = sys.version_info
    >= (3, 11)`) is decided as that test; what another condition stands for is not followed: it
    counts as a guard."""
    out: list[tuple[ast.Import | ast.ImportFrom, str]] = []
    stack: list[tuple[ast.AST, str]] = [(s, "<module>") for s in reversed(tree.body)]
    renamed, flagged = aliases(tree), flags(tree)
    while stack:
        node, qual = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append((node, qual))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            handlers = getattr(node, "handlers", [])
            parts = [getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            if not any(catches(h, _IMPORT_ERRORS) for h in handlers):  # else the body and its fallbacks are guarded
                parts = [getattr(node, "body", []), *(h.body for h in handlers), *parts]
            for part in reversed(parts):
                stack.extend((x, qual) for x in reversed(part))
        elif isinstance(node, ast.If):  # a version check is decided for the target; any other `if` guards
            taken = decide(node.test, version, renamed, flagged) if version is not None else None
            if taken == OPEN:  # a version test not understood: either branch may run
                stack.extend((x, qual) for x in reversed([*node.body, *node.orelse]))
            elif taken is not None:
                stack.extend((x, qual) for x in reversed(node.body if taken else node.orelse))
        elif isinstance(node, (*FUNCS, ast.ClassDef)):
            inner = node.name if qual == "<module>" else f"{qual}.{node.name}"
            stack.extend((x, inner) for x in reversed(node.body))
        elif isinstance(node, ast.stmt):
            for f in ("finalbody", "orelse", "cases", "body"):
                stack.extend((x, qual) for x in reversed(getattr(node, f, None) or []))
        elif type(node).__name__ == "match_case":
            stack.extend((x, qual) for x in reversed(getattr(node, "body", [])))
    return out


# Top-level standard-library modules a Python newer than the oldest radpatch supports (3.10) added:
# they look like standard library even to a radpatch running on 3.10 (3.12 and 3.13 added no public
# top-level module; what they removed is in the older interpreter's own stdlib_module_names).
ADDED_SINCE_310 = frozenset({"tomllib"})


def missing_modules(
    before: ast.Module,
    after: ast.Module,
    stdlib: frozenset[str],
    looks_stdlib: frozenset[str],
    installed: Callable[[str], bool],
    python: str,
) -> list[Problem]:
    """New unguarded imports of a module that looks like standard library (`looks_stdlib`: what some
    Python's standard library has) but that the target's (`stdlib`) lacks and that is not installed
    there either (`installed`: found on the target's path, without importing it)."""
    version = tuple(int(x) for x in python.split(".")[:2])
    v = (version[0], version[1]) if len(version) == 2 else None
    had: dict[str, int] = {}
    for name, _, _ in imported_modules(before, v):
        had[name] = had.get(name, 0) + 1
    out = []
    for name, line, qual in imported_modules(after, v):
        if had.get(name, 0):
            had[name] -= 1
            continue
        if name in looks_stdlib and name not in stdlib and not installed(name):
            detail = f" of Python {python}'s standard library, nor installed there"
            out.append(Problem(line, name, qual, MISSING_MODULE, detail))
    return out
