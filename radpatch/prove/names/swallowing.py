"""Which `with` statements may swallow what their body raises, so that the code after the `with` runs
with the body stopped at any statement (a name it binds is then bound on some paths only).

A context manager swallows when its `__exit__` returns a true value. Told from the module's text:
- `contextlib.suppress` however the module spells it (`suppress(E)`, `contextlib.suppress(E)`,
  `import contextlib as c` / `c.suppress(E)`, `from contextlib import suppress as s` / `s(E)`), and
  `ExitStack` / `AsyncExitStack` (a manager entered on them may swallow);
- a class the module defines whose `__exit__`/`__aexit__` may return something other than a false
  constant (a def, or an assignment in the class body: `__exit__ = lambda self, *e: True`), or that
  subclasses one of these (`class Quiet(contextlib.suppress)`), with or without `()`;
- a name or attribute the module assigns one of these or a call of one (`sp = contextlib.suppress`,
  `cm = suppress(E)`), and the spellings `functools.partial(<one>, ...)()` and
  `getattr(contextlib, "suppress")(E)`;
- a `@contextmanager` generator the module defines whose `yield` sits in a `try` with an `except`
  handler (the handler swallows unless it re-raises).
And a `try` whose `finally` holds a `return`, or a `break`/`continue` of the loop around it, swallows
what its body or a handler raises (finally_swallows); a handler is entered only from a statement that
may raise (last_raising).
A manager (or a base class) the module imports and does not name so (`open()`, a lock, `torch.no_grad()`, vLLM's own
`set_forward_context`) is taken as not swallowing: the walk cannot read its `__exit__`, and taking
every unknown one as swallowing would refuse every read after `with torch.no_grad(): out = ...`.
Standard library only: served to target interpreters with the rest of the package.
"""

from __future__ import annotations

import ast

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)

_STACKS = frozenset({"ExitStack", "AsyncExitStack"})
_EXITS = ("__exit__", "__aexit__")


class Swallowing:
    """The module's names for managers that may swallow (see the module doc)."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: set[str] = {"suppress", *_STACKS}  # bare names, as called or used
        self.attrs: set[str] = {"suppress", *_STACKS}  # `c.suppress(...)`: any module's (`import contextlib as c`)
        nodes = list(ast.walk(tree))
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module == "contextlib":
                for a in node.names:
                    if a.name == "suppress" or a.name in _STACKS:
                        self.names.add(a.asname or a.name)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _generator_swallows(node):
                self.names.add(node.name)
                self.attrs.add(node.name)
        grew = True
        while grew:  # aliases of aliases, subclasses of subclasses
            before = len(self.names) + len(self.attrs)
            for node in nodes:
                if isinstance(node, ast.ClassDef) and (
                    any(_exit_may_swallow(f) for f in node.body) or any(self.may_swallow(b) for b in node.bases)
                ):
                    self.names.add(node.name)
                    self.attrs.add(node.name)
                elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                    if self.may_swallow(node.value):  # `sp = contextlib.suppress`, `cm = suppress(E)`
                        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                            if isinstance(t, ast.Name):
                                self.names.add(t.id)
                            elif isinstance(t, ast.Attribute):
                                self.attrs.add(t.attr)
            grew = len(self.names) + len(self.attrs) > before

    def may_swallow(self, e: ast.expr) -> bool:
        """Is `e` a manager that may swallow, or what makes one: a name or attribute the module gives
        one, a call of one (`suppress(E)`, `partial(suppress, E)()`), `partial(<one>, ...)`,
        `getattr(<anything>, "<one's attribute>")`."""
        while isinstance(e, ast.Call):
            f = e.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name == "partial" and e.args:
                e = e.args[0]
            elif name == "getattr" and len(e.args) >= 2 and isinstance(e.args[1], ast.Constant):
                return e.args[1].value in self.attrs
            else:
                e = f
        if isinstance(e, ast.Name):
            return e.id in self.names
        if isinstance(e, ast.Attribute):
            return e.attr in self.attrs
        return False


def _exit_may_swallow(f: ast.stmt) -> bool:
    """An `__exit__`/`__aexit__` with a `return` of something but a false constant, or one assigned
    in the class body (`__exit__ = lambda self, *e: True`) but a lambda of a false constant."""
    if isinstance(f, ast.Assign) and any(isinstance(t, ast.Name) and t.id in _EXITS for t in f.targets):
        body = f.value.body if isinstance(f.value, ast.Lambda) else None
        return not (isinstance(body, ast.Constant) and not body.value)
    if not (isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name in _EXITS):
        return False
    for node in ast.walk(f):
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and not node.value.value):
                return True
    return False


def _generator_swallows(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A `@contextmanager`-decorated generator whose `yield` is in the body of a `try` with a handler."""
    named = {d.id if isinstance(d, ast.Name) else getattr(d, "attr", "") for d in fn.decorator_list}
    if not named & {"contextmanager", "asynccontextmanager"}:
        return False
    for node in ast.walk(fn):
        handlers, body = getattr(node, "handlers", None), getattr(node, "body", [])
        if handlers and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for b in body for n in ast.walk(b)):
            return True  # a try (or try/except*) whose body yields
    return False


def last_raising(body: list[ast.stmt]) -> int:
    """The index of the last statement of `body` that may raise: not `pass` nor `name = <constant>`."""
    for i in range(len(body) - 1, -1, -1):
        s = body[i]
        const = isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
        if not (isinstance(s, ast.Pass) or (const and all(isinstance(t, ast.Name) for t in s.targets))):  # type: ignore[attr-defined]
            return i
    return -1


def finally_swallows(body: list[ast.stmt]) -> bool:
    """Does a `return`, or a `break`/`continue` of the enclosing loop, sit in `body` (a finally's)?"""
    stack: list[tuple[ast.AST, bool]] = [(b, False) for b in body]
    while stack:
        node, looped = stack.pop()
        if isinstance(node, ast.Return) or (isinstance(node, (ast.Break, ast.Continue)) and not looped):
            return True
        if isinstance(node, (*FUNCS, ast.ClassDef, ast.Lambda)):
            continue
        inner = looped or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return False
