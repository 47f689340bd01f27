"""Which `with` statements may swallow what their body raises, so that the code after the `with` runs
with the body stopped at any statement (a name it binds is then bound on some paths only).

A context manager swallows when its `__exit__` returns a true value. Told from the module's text:
- `contextlib.suppress` however the module spells it (`suppress(E)`, `contextlib.suppress(E)`,
  `import contextlib as c` / `c.suppress(E)`, `from contextlib import suppress as s` / `s(E)`), and
  `ExitStack` / `AsyncExitStack` (a manager entered on them may swallow);
- a class the module defines whose `__exit__`/`__aexit__` may return something other than a false
  constant (a def, or an assignment in the class body: `__exit__ = lambda self, *e: True`), or that
  subclasses one of these (`class Quiet(contextlib.suppress)`), with or without `()`;
- a class the module gives an `__exit__`/`__aexit__` after it is made (`Q.__exit__ = ...`,
  `setattr(Q, "__exit__", ...)`), but a lambda of a false constant; one it makes with
  `type(name, bases, namespace)` or `types.new_class` from a base of these or with such an
  `__exit__` in the namespace (bases or a namespace it cannot read: taken as swallowing);
- a name or attribute the module assigns one of these or a call of one (`sp = contextlib.suppress`,
  `cm = suppress(E)`), and the spellings `functools.partial(<one>, ...)()` and
  `getattr(contextlib, "suppress")(E)`;
- a generator the module defines whose `yield` sits where what `contextmanager` throws into it may be
  caught: in the body of a `try` with a handler that does not end in `raise`, anywhere in a `try`
  whose `finally` swallows, in a `with` of a manager that may swallow, or a `yield from` one of these
  generators. The generator then swallows, as contextlib's `__exit__` does when the generator stops
  after the throw. It is taken as a manager wherever it is decorated (by anything: `@contextmanager`
  under any spelling, or the module's own wrapper) and in the call of anything on it
  (`quiet = contextlib.contextmanager(_gen)`): a generator reaches a `with` only so wrapped, and the
  walk cannot tell every spelling of the wrapper.
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
from typing import cast

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)

_STACKS = frozenset({"ExitStack", "AsyncExitStack"})
_EXITS = ("__exit__", "__aexit__")


class Swallowing:
    """The module's names for managers that may swallow (see the module doc)."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: set[str] = {"suppress", *_STACKS}  # bare names, as called or used
        self.attrs: set[str] = {"suppress", *_STACKS}  # `c.suppress(...)`: any module's (`import contextlib as c`)
        self.generators: set[str] = set()  # the module's generators that swallow what is thrown in (names or attrs)
        classes: list[ast.ClassDef] = []
        assigns: list[tuple[list[ast.expr], ast.expr]] = []  # (targets, value)
        generators: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # by id: a def with a yield of its own
        stack: list[tuple[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef | None]] = [(tree, None)]
        while stack:
            node, fn = stack.pop()
            owner = node if isinstance(node, FUNCS) else None if isinstance(node, (ast.ClassDef, ast.Lambda)) else fn
            stack.extend((child, owner) for child in ast.iter_child_nodes(node))
            if isinstance(node, ast.ImportFrom) and node.module == "contextlib":
                for a in node.names:
                    if a.name == "suppress" or a.name in _STACKS:
                        self.names.add(a.asname or a.name)
            elif isinstance(node, ast.ClassDef):
                classes.append(node)
            elif isinstance(node, (ast.Yield, ast.YieldFrom)) and fn is not None:
                generators[id(fn)] = fn
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                assigns.append((node.targets if isinstance(node, ast.Assign) else [node.target], node.value))
                for t in assigns[-1][0]:  # `Q.__exit__ = ...` after the class
                    if isinstance(t, ast.Attribute) and t.attr in _EXITS and not _false_exit(node.value):
                        self._name(t.value)
            elif isinstance(node, ast.Call) and _called(node) == "setattr" and len(node.args) >= 2:
                exit_, value = node.args[1], node.args[2] if len(node.args) > 2 else None
                if isinstance(exit_, ast.Constant) and exit_.value in _EXITS and not _false_exit(value):
                    self._name(node.args[0])  # `setattr(Q, "__exit__", ...)`
        grew = True
        while grew:  # aliases of aliases, subclasses of subclasses, generators in generators
            before = len(self.names) + len(self.attrs) + len(self.generators)
            for fn in generators.values():
                if fn.name not in self.generators and self._caught_yield(fn.body):
                    self.generators.add(fn.name)
                    if fn.decorator_list:  # `@contextmanager`, however spelled or wrapped
                        self.names.add(fn.name)
                        self.attrs.add(fn.name)
            for c in classes:
                if any(_exit_may_swallow(f) for f in c.body) or any(self.may_swallow(b) for b in c.bases):
                    self.names.add(c.name)
                    self.attrs.add(c.name)
            for targets, value in assigns:
                if self.may_swallow(value):  # `sp = contextlib.suppress`, `cm = suppress(E)`
                    for t in targets:
                        self._name(t)
                if self._generator(value):  # `_g2 = _gen`: another name of a swallowing generator
                    self.generators.update(t.id if isinstance(t, ast.Name) else getattr(t, "attr", "") for t in targets)
            grew = len(self.names) + len(self.attrs) + len(self.generators) > before

    def _name(self, target: ast.expr) -> None:
        """Take what `target` names (a name, an attribute) as a manager that may swallow."""
        if isinstance(target, ast.Name):
            self.names.add(target.id)
        elif isinstance(target, ast.Attribute):
            self.attrs.add(target.attr)

    def may_swallow(self, e: ast.expr) -> bool:
        """Is `e` a manager that may swallow, or what makes one: a name or attribute the module gives
        one, a call of one (`suppress(E)`, `partial(suppress, E)()`), `partial(<one>, ...)`,
        `getattr(<anything>, "<one's attribute>")`, a call on one of the module's swallowing
        generators (`contextmanager(_gen)`), a class made by `type(...)` that may swallow."""
        while isinstance(e, ast.Call):
            name = _called(e)
            if any(self._generator(a) for a in [*e.args, *(k.value for k in e.keywords)]) or (
                _makes_class(e) and self._made_swallows(e)
            ):
                return True
            if name == "partial" and e.args:
                e = e.args[0]
            elif name == "getattr" and len(e.args) >= 2 and isinstance(e.args[1], ast.Constant):
                return e.args[1].value in self.attrs
            else:
                e = e.func
        if isinstance(e, ast.Name):
            return e.id in self.names
        if isinstance(e, ast.Attribute):
            return e.attr in self.attrs
        return False

    def _generator(self, e: ast.expr) -> bool:
        """Is `e` (a name, an attribute) one of the module's generators that swallow?"""
        return (isinstance(e, ast.Name) and e.id in self.generators) or (
            isinstance(e, ast.Attribute) and e.attr in self.generators
        )

    def _delegates(self, node: ast.YieldFrom) -> bool:
        """`yield from g()` of one of the module's swallowing generators: what is thrown goes to g."""
        return isinstance(node.value, ast.Call) and self._generator(node.value.func)

    def _made_swallows(self, call: ast.Call) -> bool:
        """May the class `type(name, bases, namespace)` / `types.new_class(name, bases, ...)` swallow:
        a base may, or its namespace gives an `__exit__` that may; what it cannot read, it takes as may."""
        given = {k.arg: k.value for k in call.keywords if k.arg}
        bases = call.args[1] if len(call.args) > 1 else given.get("bases")
        if bases is not None and not isinstance(bases, (ast.Tuple, ast.List)):
            return True
        if bases is not None and any(isinstance(b, ast.Starred) or self.may_swallow(b) for b in bases.elts):
            return True
        if _called(call) == "new_class":  # its namespace is what exec_body (or a metaclass in kwds) makes
            return (
                len(call.args) > 2 or bool({"kwds", "exec_body"} & set(given)) or any(not k.arg for k in call.keywords)
            )
        space = call.args[2]
        if isinstance(space, ast.Dict):
            pairs = list(zip(space.keys, space.values))
        elif isinstance(space, ast.Call) and _called(space) == "dict" and not space.args:
            pairs = [(None if k.arg is None else ast.Constant(k.arg), k.value) for k in space.keywords]
        else:
            return True
        return any(
            k is None or not isinstance(k, ast.Constant) or (k.value in _EXITS and not _false_exit(v)) for k, v in pairs
        )

    def _caught_yield(self, body: list[ast.stmt]) -> bool:
        """Does a `yield` of this function's `body` sit where what is thrown into it may be caught (see
        the module doc)? Nested functions and classes are their own."""
        stack: list[tuple[ast.AST, bool]] = [(s, False) for s in body]
        while stack:
            node, caught = stack.pop()
            if isinstance(node, ast.Yield) and caught:
                return True
            if isinstance(node, ast.YieldFrom) and (caught or self.may_swallow(node.value) or self._delegates(node)):
                return True
            if isinstance(node, (*FUNCS, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":  # try/except* (3.11): a try's fields
                t = cast(ast.Try, node)
                handles = any(_handler_may_swallow(h) for h in t.handlers)
                ends = finally_swallows(t.finalbody)
                stack.extend((s, caught or handles or ends) for s in t.body)
                stack.extend((s, caught or ends) for s in [*t.handlers, *t.orelse])
                stack.extend((s, caught) for s in t.finalbody)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                catches = any(self.may_swallow(i.context_expr) for i in node.items)
                stack.extend((i, caught) for i in node.items)
                stack.extend((s, caught or catches) for s in node.body)
            else:
                stack.extend((child, caught) for child in ast.iter_child_nodes(node))
        return False


def _called(call: ast.Call) -> str:
    """The name a call calls: `f` of `f(...)` and of `m.f(...)`."""
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _makes_class(call: ast.Call) -> bool:
    """`type(name, bases, namespace)` (three arguments, not `type(x)`), `types.new_class(...)`."""
    return (_called(call) == "type" and len(call.args) == 3) or (_called(call) == "new_class" and bool(call.args))


def _false_exit(value: ast.expr | None) -> bool:
    """Is `value`, given as an `__exit__`, one that returns a false constant: `lambda *e: None`?"""
    return isinstance(value, ast.Lambda) and isinstance(value.body, ast.Constant) and not value.body.value


def _exit_may_swallow(f: ast.stmt) -> bool:
    """An `__exit__`/`__aexit__` with a `return` of something but a false constant, or decorated, or
    one assigned in the class body (`__exit__ = lambda self, *e: True`) but a lambda of a false constant."""
    if isinstance(f, ast.Assign) and any(isinstance(t, ast.Name) and t.id in _EXITS for t in f.targets):
        return not _false_exit(f.value)
    if not (isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name in _EXITS):
        return False
    if f.decorator_list:  # a decorator may change what it returns
        return True
    for node in ast.walk(f):
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and not node.value.value):
                return True
    return False


def _handler_may_swallow(h: ast.ExceptHandler) -> bool:
    """May handler `h` end without raising: all but one whose last statement is a `raise` and that
    holds no `return` (nor `break`/`continue` of a loop around it) before it."""
    return not (h.body and isinstance(h.body[-1], ast.Raise) and not finally_swallows(h.body))


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
