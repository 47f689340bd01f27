"""A new import-time use of a name whose only binding that runs on the target is its fallback
constant (att21 F5): `if sys.version_info >= (3, 11): import tomllib` / `else: tomllib = None` (or
`try: import tomllib` / `except ImportError: tomllib = None`) on a 3.10 target, and a new constant
`CONF = tomllib.loads(...)`: the module raises AttributeError when it is imported.

What runs on the target is decided from three facts radpatch has: a test on the Python version
decided for the target's major.minor (version_guard), `if TYPE_CHECKING:` (false at run time, the
one predicate of typing_only), and an import in a `try` body that fails on
the target (`present`: the module is not on the target's path), which leaves the rest of that body
unrun and its handlers run. A name all of whose module-level bindings that run are a constant
(`None`, a number, a string) while another binding of it does not run is fallback-only. A new use
of it at import time (module level or a class body, not inside a def or lambda) as `X.attr`,
`X(...)` or `X[...]`, not under a test that reads X (`if X is not None:`, `X and X.loads(...)`) nor
in a try that catches the failure, is the problem; so is one in a function, which fails when the
function is called (att21 pass 4: `called_uses`), unless the function binds X itself or reads it
otherwise (an early `if X is None: return`), or some function declares X `global` (it may bind it).

Standard library only and relative imports, as the rest of the names package.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

from .problem import FALLBACK_ONLY, Problem
from .typing_only import type_checking, type_checking_names
from .version_guard import aliases, catches, decide, flags

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_USE_ERRORS = frozenset({"AttributeError", "TypeError", "Exception", "BaseException"})


def fallback_only(
    tree: ast.Module, version: tuple[int, int], present: Callable[[str], bool]
) -> dict[str, tuple[int, str]]:
    """The module-level names whose bindings that run on the target are all constants, each with the
    line and text of the binding that does not run (why it is the fallback)."""
    renamed, flagged, typing = aliases(tree), flags(tree), type_checking_names(tree)
    live: dict[str, list[bool]] = {}  # name -> is each running binding a constant
    dead: dict[str, tuple[int, str]] = {}

    def visit(stmts: list[ast.stmt], runs: bool) -> None:
        stopped = False
        for s in stmts:
            here = runs and not stopped
            if isinstance(s, ast.If):
                guard = type_checking(s.test, typing)  # True: false at run time
                truth = decide(s.test, version, renamed, flagged) if guard is None else not guard
                visit(s.body, here and truth is not False)
                visit(s.orelse, here and truth is not True)
                continue
            if isinstance(s, ast.Try):
                catches_import = any(catches(h, _IMPORT_ERRORS) for h in s.handlers)
                visit(s.body, here)
                fails = catches_import and _fails(s.body, present)
                for h in s.handlers:
                    visit(h.body, here)
                visit(s.orelse, here and not fails)
                visit(s.finalbody, here)
                continue
            if here and isinstance(s, (ast.Import, ast.ImportFrom)) and _import_fails(s, present):
                stopped = here = False  # it raises: neither it nor the rest of its block (a try body) runs
            for name, constant in _bindings(s):
                if here:
                    live.setdefault(name, []).append(constant)
                elif not constant:
                    dead.setdefault(name, (s.lineno, ast.unparse(s).splitlines()[0]))
            if isinstance(s, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)):
                visit(s.body, here)
                visit(getattr(s, "orelse", []), here)

    visit(tree.body, True)
    return {n: dead[n] for n, kinds in live.items() if kinds and all(kinds) and n in dead}


def _fails(stmts: list[ast.stmt], present: Callable[[str], bool]) -> bool:
    return any(isinstance(s, (ast.Import, ast.ImportFrom)) and _import_fails(s, present) for s in stmts)


def _import_fails(s: ast.Import | ast.ImportFrom, present: Callable[[str], bool]) -> bool:
    if isinstance(s, ast.Import):
        return any(not present(a.name.split(".")[0]) for a in s.names)
    return not s.level and bool(s.module) and not present((s.module or "").split(".")[0])


def _bindings(s: ast.stmt) -> Iterator[tuple[str, bool]]:
    """(name, bound to a constant) of each module-level binding `s` makes itself."""
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield s.name, False
    elif isinstance(s, (ast.Import, ast.ImportFrom)):
        yield from ((a.asname or a.name.split(".")[0], False) for a in s.names if a.name != "*")
    elif isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        constant = isinstance(s.value, ast.Constant)
        yield from ((t.id, constant) for t in targets if isinstance(t, ast.Name))
        yield from (
            (n.id, False)
            for t in targets
            if not isinstance(t, ast.Name)
            for n in ast.walk(t)
            if isinstance(n, ast.Name)
        )


def uses(tree: ast.Module, wanted: set[str]) -> list[tuple[int, str, str]]:
    """(line, name, the use's text) of each import-time `X.attr`, `X(...)`, `X[...]` of a `wanted`
    name, not under a test that reads X nor in a try that catches the failure."""
    out: list[tuple[int, str, str]] = []
    stack: list[tuple[ast.AST, bool]] = [(s, False) for s in tree.body]
    while stack:
        node, guarded = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        held = getattr(node, "value", None) if isinstance(node, (ast.Attribute, ast.Subscript)) else None
        held = node.func if isinstance(node, ast.Call) else held
        if isinstance(held, ast.Name) and held.id in wanted and not guarded:
            out.append((node.lineno, held.id, ast.unparse(node)[:60]))  # type: ignore[attr-defined]
        tested = _tested(node)
        catching = isinstance(node, ast.Try) and any(catches(h, _USE_ERRORS) for h in node.handlers)
        for child in ast.iter_child_nodes(node):
            inner = guarded or bool(tested & wanted and child is not getattr(node, "test", None))
            inner = inner or (catching and child in getattr(node, "body", ()))
            if isinstance(node, ast.BoolOp):
                inner = inner or bool(_names(node.values[0]) & wanted and child is not node.values[0])
            stack.append((child, inner))
    return out


def called_uses(tree: ast.Module, wanted: set[str]) -> list[tuple[int, str, str, str]]:
    """(line, name, the use's text, the function) of each `X.attr`, `X(...)`, `X[...]` of a `wanted`
    module-level name in a function body (it fails when the function is called), guarded as `uses`
    guards, and not in a function that binds X itself (a parameter, a local, an enclosing function's)
    or reads X in any other way (`if X is None: return`: an early exit guards what follows). A name
    some function declares `global` or `nonlocal` may be bound at run time: none of its uses counts."""
    rebound = {n for node in ast.walk(tree) if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
    out: list[tuple[int, str, str, str]] = []

    def visit(node: ast.AST, prefix: str, names: set[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + child.name
                here = names - _locals(child) - _read_otherwise(child)
                body = ast.Module(body=child.body, type_ignores=[])
                out.extend((line, name, text, qual) for line, name, text in uses(body, here))
                visit(child, qual + ".", here)
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".", names)
            elif not isinstance(child, ast.Lambda):
                visit(child, prefix, names)

    visit(tree, "", wanted - rebound)
    return out


def _locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Every name `fn` (or a function in it) binds: its parameters, assignments, imports, defs."""
    out = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for n in ast.walk(ast.Module(body=fn.body, type_ignores=[])):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
    return out


def _read_otherwise(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names `fn` reads other than as `X.attr`, `X(...)` or `X[...]` (a test, an argument)."""
    held = set()
    for n in ast.walk(fn):
        inner = n.func if isinstance(n, ast.Call) else getattr(n, "value", None)
        if isinstance(n, (ast.Attribute, ast.Subscript, ast.Call)) and isinstance(inner, ast.Name):
            held.add(id(inner))
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in held}


def _tested(node: ast.AST) -> set[str]:
    test = getattr(node, "test", None) if isinstance(node, (ast.If, ast.IfExp, ast.While)) else None
    return _names(test) if test is not None else set()


def _names(e: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}


_CONSTANT = re.compile(  # `X = None`, `X: T = 1`, `X = ("a")`: a line that may bind a name to a constant
    rb"^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t(]*(?:None|True|False|[-+]?[\d.]\w*|[rbuRBU]*['\"])", re.M
)

_USED = re.compile(rb"\b([A-Za-z_]\w*)\s*[.(\[]")


def _may_use_a_constant(before: bytes, after: bytes) -> bool:
    """A text test, so a plain apply parses nothing more: does a line `after` adds (not in `before`,
    as often) name a name that some line of `after` binds to a constant (`X = None`), followed by
    `.`, `(` or `[`?"""
    constants = {m.group(1) for m in _CONSTANT.finditer(after)}
    if not constants:
        return False
    had: dict[bytes, int] = {}
    for line in before.splitlines():
        had[line] = had.get(line, 0) + 1
    for line in after.splitlines():
        if had.get(line, 0):
            had[line] -= 1
            continue
        if {m.group(1) for m in _USED.finditer(line)} & constants:
            return True
    return False


def fallback_uses(
    before: bytes, after: bytes, version: tuple[int, int], present: Callable[[str], bool]
) -> list[Problem]:
    """New uses in `after`, at import time or in a function, of a name bound on the target only to its
    fallback constant."""
    if before == after or not _may_use_a_constant(before, after):
        return []
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    only = fallback_only(new, version, present)
    if not only:
        return []
    had: dict[tuple[str, str, str], int] = {}
    for _, name, text, qual in _all_uses(old, set(only)):
        had[name, text, qual] = had.get((name, text, qual), 0) + 1
    out = []
    for line, name, text, qual in sorted(_all_uses(new, set(only))):
        if had.get((name, text, qual), 0):
            had[name, text, qual] -= 1
            continue
        at, binding = only[name]
        why = (
            f"`{name}` is only its fallback constant on Python {version[0]}.{version[1]} "
            f"(`{binding}` at line {at} does not run there): `{text}` fails"
        )
        out.append(Problem(line, name, qual, FALLBACK_ONLY, why))
    return out


def _all_uses(tree: ast.Module, wanted: set[str]) -> list[tuple[int, str, str, str]]:
    return [*((line, name, text, "<module>") for line, name, text in uses(tree, wanted)), *called_uses(tree, wanted)]
