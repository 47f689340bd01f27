"""Calls that never return, for reachability: control never gets past `sys.exit(...)`, `os._exit(...)`,
`os.abort()`, an `os.exec*` call, `typing.assert_never(...)`, the `exit()`/`quit()` the site module
puts in builtins, nor a call of a module-level function annotated `-> NoReturn` or `-> Never`. A name
counts only when every binding the module has of it is the one that makes it such a call (`import
sys` and no other `sys` anywhere in the module; one `def die() -> NoReturn:` and no other `die`):
a parameter, a local or a second def of the same name may be something else.

Standard library only and relative imports: this module also runs in targets as old as 3.9
(prove.target_probe serves the placement package)."""

from __future__ import annotations

import ast
from collections.abc import Collection

_EXEC = ("execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe")
NEVER_RETURN = frozenset(
    {"sys.exit", "os._exit", "os.abort", *(f"os.{e}" for e in _EXEC)}
    | {"typing.assert_never", "typing_extensions.assert_never"}
)
_SITE_BUILTINS = ("exit", "quit")  # site's: they raise SystemExit
_NO_RETURN_TYPES = frozenset({"NoReturn", "Never"})


def stopping_names(tree: ast.Module) -> frozenset[str]:
    """The callees, as the module spells them (`sys.exit`, `_exit`, `die`), a call of which never
    returns: the module's names bound only to such a function or to a module holding one."""
    bindings: dict[str, list[str | None]] = {}  # name -> what each of its bindings makes it (None: other)

    def bind(name: str, what: str | None) -> None:
        bindings.setdefault(name, []).append(what)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                if a.asname:
                    bind(a.asname, a.name)
                else:
                    bind(top, top)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                whole = f"{node.module}.{a.name}" if node.module and not node.level else None
                bind(a.asname or a.name, whole)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bind(node.name, "<never>" if _annotated_never(node.returns) else None)
        elif isinstance(node, ast.ClassDef):
            bind(node.name, None)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bind(node.id, None)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind(node.name, None)
        elif isinstance(node, ast.arg):
            bind(node.arg, None)  # a parameter
        elif type(node).__name__ in ("MatchAs", "MatchStar") and getattr(node, "name", None):
            bind(node.name, None)  # type: ignore[attr-defined]
        elif type(node).__name__ == "MatchMapping" and getattr(node, "rest", None):
            bind(node.rest, None)  # type: ignore[attr-defined]
    out: set[str] = set(n for n in _SITE_BUILTINS if n not in bindings)
    for name, whats in bindings.items():
        if len(set(whats)) != 1 or whats[0] is None:
            continue
        what = whats[0]
        if what == "<never>" or what in NEVER_RETURN:
            out.add(name)
        else:  # a module: its never-returning functions by attribute
            out.update(name + f[len(what) :] for f in NEVER_RETURN if f.startswith(what + "."))
    return frozenset(out)


def _annotated_never(returns: ast.expr | None) -> bool:
    if isinstance(returns, ast.Constant) and isinstance(returns.value, str):
        return returns.value.split(".")[-1] in _NO_RETURN_TYPES
    if isinstance(returns, ast.Name):
        return returns.id in _NO_RETURN_TYPES
    return isinstance(returns, ast.Attribute) and returns.attr in _NO_RETURN_TYPES  # typing.NoReturn


def never_returns(s: ast.stmt, stopping: Collection[str]) -> str | None:
    """The callee (as spelled) when statement `s` is a call that never returns, else None."""
    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)) or not stopping:
        return None
    parts: list[str] = []
    f: ast.expr = s.value.func
    while isinstance(f, ast.Attribute):
        parts.insert(0, f.attr)
        f = f.value
    if not isinstance(f, ast.Name):
        return None
    spelled = ".".join([f.id, *parts])
    return spelled if spelled in stopping else None
