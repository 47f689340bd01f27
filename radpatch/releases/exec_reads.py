"""The code of its module an `exec`/`eval` call radpatch cannot read depends on, as a digest a
`vouched_exec:` item's `reads:` holds (issue 23, vouch2 #1). `binds` names the statements binding the
names the call passes; what they do not show, and a release can change under an unchanged statement:
the text of the code run where a def builds it (`exec(_text(code), ns)`, `_text`'s body), what a
parameter holds (the module's calls of the def: `run(code, vars(core))` where it was `run(code, {})`),
an attribute it passes (`self.namespace`: every statement of the class), and the namespace changed in
place, before or after the call (`namespace.update(...)`, `vars(core).update(namespace)`,
`globals().update(...)`, `setattr(module, ...)`), and by a def the module runs at import (att56 F11).

The slice: the top-level def or class the call stands in (the module's own statements other than defs
and classes where it is at module level); each top-level statement binding a name the slice reads, and
each one that writes a name the slice reads in place; each top-level statement naming the slice's def
or class (its callers in the module); each top-level statement writing a namespace no binding shows
(`globals()`, `vars()`, `setattr`, `sys.modules`, `__dict__`); each top-level statement holding a
star import, wherever the slice reads a name (it may bind any name: `from .util import *` after
`NS = {}` rebinds `NS`; its module and level are read, att57 F6); all transitively. A statement that
runs a def of the module at import (releases.exec_import_runs) also binds, changes in place and reads
what that def does (`global NS`, `NS.update(...)`, `NS` passed to a call, a method of `NS` called; its
name, so the def goes in with it), and counts as writing a namespace no binding shows where the def
may (`globals()`, `sys.modules`, `exec`, ...). Where radpatch cannot tell which defs run (such a
statement or def), every def that may bind or change a module name carries that itself, and every
def run at import goes in with the statements running it. The digest is of the slice's syntax trees
(formatting, comments and the rest of the module aside) in a form that does not depend on the Python
reading it. What it cannot see: code of other modules (a caller elsewhere, an object another module
made or changes, what a module it imports defines, a star import's or a helper's: att57 F7), a def
only a method runs at import (`Runner()` running `__init__`); a change in the slice that does not
change what the code run does refuses too (read it again). Read with `ast` only."""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from radpatch.releases import exec_import_runs
from radpatch.rewrite import import_callees

_WRITES = frozenset({"update", "setdefault", "__setitem__", "__delitem__", "pop", "popitem", "clear", "__setattr__"})
_DYNAMIC = frozenset({"globals", "vars", "locals", "setattr", "delattr", "__dict__", "modules", "exec", "eval"})
_TOPS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def slice_of(tree: ast.Module, top: ast.stmt) -> list[ast.stmt]:
    """The top-level statements of `tree` the call in the top-level statement `top` depends on, in
    source order: up, the statements naming `top` and, in turn, what they bind (its callers and what
    uses them); then down, what binds or changes in place a name any of those reads, in turn. A
    statement also binds, changes and reads what the defs it runs at import do (_import_runs)."""
    body = tree.body
    runs = _import_runs(body)
    plain = [s for s in body if not isinstance(s, _TOPS)]
    defined = isinstance(top, _TOPS)
    start = [top] if defined else plain  # a call in the module's own code: all of it
    starts = {id(s) for s in start}
    taken: dict[int, int] = {id(s): i for i, s in enumerate(body) if id(s) in starts}
    todo = list(taken.values()) if defined else []
    while todo:  # up: the statements reading what the call's def (and, in turn, they) bind
        named = set(_bound(body[todo.pop()]))
        for i, s in enumerate(body):
            if id(s) not in taken and named & set(_read(s)):
                taken[id(s)] = i
                todo.append(i)
    for i, s in enumerate(body):
        if _dynamic(s) or runs[i].dynamic:
            taken.setdefault(id(s), i)
    todo = list(taken.values())
    while todo:  # down: the statements binding, or changing in place, what they read
        i = todo.pop()
        read = set(_read(body[i])) | runs[i].defs
        for j, s in enumerate(body):
            binds = set(_bound(s)) | set(_written(s)) | runs[j].bound | runs[j].written
            if id(s) not in taken and (read & binds or read and _star(s)):  # a star import may bind any name
                taken[id(s)] = j
                todo.append(j)
    return [s for s in body if id(s) in taken]


@dataclass(frozen=True)
class _Runs:
    """What the defs a top-level statement may run at import add to it: their names (it reads them),
    the module names they bind or may change in place, whether they may bind names no binding shows."""

    defs: frozenset[str] = frozenset()
    bound: frozenset[str] = frozenset()
    written: frozenset[str] = frozenset()
    dynamic: bool = False


def _import_runs(body: list[ast.stmt]) -> list[_Runs]:
    """Per top-level statement, what the defs it may run at import (exec_import_runs) do to the module
    (_effects), and the module's names it passes to a call (`fill(NS)`: may change them). Where
    radpatch cannot tell which defs run (a statement it cannot read, `globals()[name]()`, or one
    running a def that may bind any name): every def that may bind or change a module name carries
    that itself (in the slice where it may bind a name the slice reads), and every def the module
    runs at import goes in (the statements running it, as binding names no binding shows)."""
    module = {n for s in body for n in _bound(s)}
    at = {s.name: i for i, s in enumerate(body) if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
    effects = {name: _effects(body[i], module) for name, i in at.items()}  # type: ignore[arg-type]
    touching = {n for n, e in effects.items() if e.bound or e.written or e.dynamic}
    ran: list[set[str]] = [set() for _ in body]
    for name, where in exec_import_runs.runners(body, touching).items():
        for i in where:
            ran[i].add(name)
    unread = any(_dynamic(s) or any(effects[n].dynamic for n in ran[i]) for i, s in enumerate(body))
    every: dict[int, set[str]] = {}
    if unread:
        for name, where in exec_import_runs.runners(body, at).items():
            for i in where:
                every.setdefault(i, set()).add(name)
        for name in touching:
            ran[at[name]].add(name)
    out = []
    for i, names in enumerate(ran):
        done = [effects[n] for n in names]
        passed = () if isinstance(body[i], _TOPS) else _passed(body[i])  # `fill(NS)` at module level
        out.append(
            _Runs(
                frozenset(names | every.get(i, set())),
                frozenset(n for e in done for n in e.bound),
                frozenset(n for e in done for n in e.written) | {n for n in passed if n in module},
                i in every or any(e.dynamic for e in done),
            )
        )
    return out


def _effects(fn: ast.FunctionDef | ast.AsyncFunctionDef, module: set[str]) -> _Runs:
    """What running `fn` may do to its module: the names it declares `global` (binds), the names not
    its own it changes in place or calls a method of, or the module's names it passes to a call (an
    `NS.update(...)`, `fill(NS)`: may change them), and whether it may bind a name no binding shows
    (`globals()`, `vars(...)`, `setattr(sys.modules[__name__], ...)`, `__dict__`, `exec`)."""
    own = import_callees.own_names(fn)
    bound = frozenset(n for g in ast.walk(fn) if isinstance(g, ast.Global) for n in g.names)
    written = {n for n in _written(fn) if n not in own}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            written.update(n for n in _root(node.func.value) if n not in own)
    written.update(n for n in _passed(fn) if n in module and n not in own)
    dynamic = any(
        isinstance(n, ast.Name) and n.id in _DYNAMIC or isinstance(n, ast.Attribute) and n.attr in _DYNAMIC
        for n in ast.walk(fn)
    )
    return _Runs(frozenset(), bound, frozenset(written), dynamic)


def _passed(node: ast.AST) -> Iterator[str]:
    """The names a call in `node` is passed as a whole (`fill(NS)`, `f(*NS)`, `f(ns=NS)`): it may change them."""
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            for arg in [*call.args, *(k.value for k in call.keywords)]:
                arg = arg.value if isinstance(arg, ast.Starred) else arg
                if isinstance(arg, ast.Name):
                    yield arg.id


def digest(stmts: list[ast.stmt]) -> str:
    """12 hex digits of the statements' syntax trees, alike under every Python that parses them."""
    text = "\n".join(_norm(s) for s in stmts)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def names(stmts: list[ast.stmt]) -> list[str]:
    """The slice in words: each statement by the name it binds (a def, a class) or its first line."""
    return [next(iter(_bound(s)), None) or ast.unparse(s).split("\n", 1)[0][:40] for s in stmts]


def _norm(node: object) -> str:
    """A dump with no positions and no empty fields: fields later Pythons add (`type_params=[]`) do not count."""
    if isinstance(node, ast.AST):
        fields = []
        for name, value in ast.iter_fields(node):
            if value is None or value == [] or name == "type_comment" or (name == "kind" and value is None):
                continue
            fields.append(f"{name}={_norm(value)}")
        return f"{type(node).__name__}({','.join(fields)})"
    if isinstance(node, list):
        return "[" + ",".join(_norm(v) for v in node) + "]"
    return repr(node)


def _bound(stmt: ast.stmt) -> Iterator[str]:
    """The names a top-level statement binds in the module."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield stmt.name
        return
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            yield n.id
        elif isinstance(n, ast.alias) and n.name != "*":
            yield n.asname or n.name.split(".")[0]
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n is not stmt:
            yield n.name


def _star(stmt: ast.stmt) -> bool:
    """A top-level statement holding a star import (`from .util import *`): it binds names no binding
    shows, so it is read (its module and level) wherever the slice reads a name (att57 F6)."""
    return any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.walk(stmt))


def _read(stmt: ast.stmt) -> Iterator[str]:
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            yield n.id


def _written(stmt: ast.stmt) -> Iterator[str]:
    """The names whose object a top-level statement changes in place: `ns[k] = v`, `ns.a = v`, `del ns[k]`,
    `ns.update(...)` (a dict-writing method), `setattr(ns, ...)`."""
    for n in ast.walk(stmt):
        if isinstance(n, ast.Subscript | ast.Attribute) and isinstance(n.ctx, ast.Store | ast.Del):
            yield from _root(n.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _WRITES:
            yield from _root(n.func.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr"):
            yield from (_root(n.args[0]) if n.args else ())


def _root(node: ast.expr) -> Iterator[str]:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    if isinstance(node, ast.Name):
        yield node.id


def _dynamic(stmt: ast.stmt) -> bool:
    """A top-level statement (not a def or class) that may write a namespace no binding shows."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and n.id in _DYNAMIC or isinstance(n, ast.Attribute) and n.attr in _DYNAMIC:
            return True
    return False
