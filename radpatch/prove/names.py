"""Names a module would fail to find when it runs: a flow-aware check on `ast`, in one walk.

A patch must not add to this set. `problems(source)` follows Python's own rules:

- scopes: function locals (a name bound anywhere in a function is local to all of it), `global`
  and `nonlocal`, class bodies (not visible from their methods or comprehensions), comprehension
  and lambda scopes, PEP 695 type-parameter scopes;
- order: module-level code and what runs at definition time (decorators, defaults, base classes,
  class bodies, evaluated annotations) must find a name bound *earlier*; a function body runs
  later and sees what the module binds by the end of the import (so a module-level `del` counts);
- binding flow: a local read where no path has assigned it yet (UnboundLocalError), or where some
  path has not (if/else, try/except, loops and `return`/`raise` are followed);
- `if TYPE_CHECKING:` bodies never run: their imports serve annotations only (annotations are not
  evaluated under `from __future__ import annotations`, in function bodies, or on Python 3.14+);
  such a name is compared use by use (PER_USE): a new run-time use is new even where the
  original already had one on an error path;
- `global x` must resolve to a module binding: `x += 1` reads x before binding it, and the
  reading function's own later assignment does not bind it for that read;
- self-imports: a module importing from itself while it is imported (given its dotted name);
- the target's standard library (missing_modules): a new unguarded import of a module
  radpatch's standard library has and the target's lacks, not found on the target's path;
- a star import can provide any public name from its position on, nothing else; `globals()`
  (as in `globals().update(...)`) any name.

Conditional bindings at module level count as bindings (`try: import x / except ImportError:`,
`if ...: def f`), so vLLM's modules pass as they are; `introduced()` compares the patched module
with its original and reports only what is new. Each walk is linear in the size of the tree:
one pass collects every scope's bindings, one pass follows the code in evaluation order.

This module only needs the standard library: radpatch runs it inside the target interpreter
when that one's grammar differs from radpatch's own (see install/target_python.py).
"""

from __future__ import annotations

import ast
import builtins
import functools
import gc
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

_MODULE_DUNDERS = frozenset(
    {
        "__file__",
        "__name__",
        "__doc__",
        "__spec__",
        "__loader__",
        "__package__",
        "__builtins__",
        "__path__",
        "__cached__",
        "__annotations__",
        "__dict__",
        "__debug__",
    }
)
_SITE_BUILTINS = frozenset({"exit", "quit", "copyright", "credits", "license", "help"})  # added by `site`
_CLASS_DUNDERS = frozenset({"__module__", "__qualname__", "__class__"})

UNDEFINED = "undefined"
LATER = "used-before-definition"
UNBOUND = "unbound-local"
TYPING_ONLY = "type-checking-only"
SELF_IMPORT = "self-import"
MISSING_MODULE = "missing-module"
CLASS_ATTRIBUTE = "class-attribute"
DELETED = "deleted"


@dataclass(frozen=True)
class Runtime:
    """What the target interpreter provides: its version (annotation semantics) and builtins."""

    version: tuple[int, int]
    builtins: frozenset[str]


def current_runtime() -> Runtime:
    return Runtime((sys.version_info[0], sys.version_info[1]), frozenset(dir(builtins)) | _SITE_BUILTINS)


@dataclass(frozen=True, order=True)
class Problem:
    line: int
    name: str
    scope: str  # "<module>", "f", "C.m", "f.g"
    kind: str
    detail: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.scope, self.name, self.kind)

    def describe(self) -> str:
        where = "at module level" if self.scope == "<module>" else f"in {self.scope}()"
        what = {
            UNDEFINED: "is defined nowhere (NameError)",
            LATER: f"is used before the module defines it{self.detail} (NameError at import)",
            UNBOUND: (
                f"is local to {self.scope}() but read where it {self.detail or 'may not be assigned yet'} "
                "(UnboundLocalError)"
            ),
            TYPING_ONLY: f"is imported only under `if TYPE_CHECKING:`{self.detail}, not at run time (NameError)",
            CLASS_ATTRIBUTE: (
                f"is a class attribute{self.detail}, not visible from methods or comprehensions "
                "(NameError; use self. or the class name)"
            ),
            DELETED: f"is deleted from the module{self.detail} before this code runs (NameError)",
            SELF_IMPORT: (
                f"comes from the module itself{self.detail} while it is still being imported "
                "(a circular import: ImportError, or a half-initialised module)"
            ),
            MISSING_MODULE: f"is not a module{self.detail} (ModuleNotFoundError)",
        }[self.kind]
        return f"`{self.name}` (line {self.line}, {where}) {what}"


def introduced(
    original: str, patched: str, filename: str = "<patched>", runtime: Runtime | None = None, module: str | None = None
) -> list[Problem]:
    """Problems of `patched` whose (scope, name, kind) the original does not already have.
    `module`: the module's dotted name (`pkg.mod`, `pkg` for a package's __init__), for self-imports."""
    return new_problems(problems(original, filename, runtime, module), problems(patched, filename, runtime, module))


# Kinds compared use by use: one more such use is a new failure, even where the original already
# had one under the same name (a typing-only name on a new run-time path next to an old error path).
PER_USE = frozenset({TYPING_ONLY, SELF_IMPORT, MISSING_MODULE})


def new_problems(before: Iterable[Problem], after: Iterable[Problem]) -> list[Problem]:
    """The problems of `after` the original does not have: by (scope, name, kind), each key once;
    for the PER_USE kinds, each use beyond the original's count of them (lines the original has
    are taken as its own)."""
    before, after = list(before), list(after)
    old = {p.key for p in before}
    counted: dict[tuple[str, str, str], list[int]] = {}
    for p in before:
        if p.kind in PER_USE:
            counted.setdefault(p.key, []).append(p.line)
    extra: dict[tuple[str, str, str], list[Problem]] = {}
    for p in after:
        if p.kind in PER_USE and p.key in counted:
            extra.setdefault(p.key, []).append(p)
    surplus: set[int] = set()
    for key, uses in extra.items():
        n = len(uses) - len(counted[key])
        if n > 0:  # which uses are the new ones: those on lines the original does not have, else the last
            lines = set(counted[key])
            fresh = [p for p in uses if p.line not in lines] or uses
            surplus.update(id(p) for p in (fresh[:n] if len(fresh) >= n else uses[-n:]))
    seen: set[tuple[str, str, str]] = set()
    out = []
    for p in after:
        if id(p) in surplus or (p.key not in old and p.key not in seen):
            if id(p) not in surplus:
                seen.add(p.key)
            out.append(p)
    return out


def problems(
    source: str | bytes, filename: str = "<patched>", runtime: Runtime | None = None, module: str | None = None
) -> list[Problem]:
    enabled = gc.isenabled()
    gc.disable()  # the walk makes no cycles; the collector would rescan the whole tree again and again
    try:
        return problems_in(ast.parse(source, filename), runtime, module_of(module, filename))
    finally:
        if enabled:
            gc.enable()


def problems_in(
    tree: ast.Module, runtime: Runtime | None = None, module: tuple[str, bool] | None = None
) -> list[Problem]:
    """problems() of an already parsed module (the caller keeps the collector paused). `module`:
    its dotted name and whether it is a package (see module_of)."""
    rt = runtime or current_runtime()
    scopes = _Collector(tree).scopes
    return sorted(_Walker(tree, scopes, rt, module).run())


def module_of(module: str | None, filename: str) -> tuple[str, bool] | None:
    """(dotted name, is a package) of the module `filename` holds, or None when unknown."""
    if not module or module == "<patched>":
        return None
    return module, filename.replace("\\", "/").rsplit("/", 1)[-1] == "__init__.py"



def self_import(module: tuple[str, bool], node: ast.Import | ast.ImportFrom) -> list[tuple[str, str, bool]]:
    """What `node` imports of the module itself: (name, how, the module as a whole) for each; empty
    when nothing. `import pkg.mod` in pkg/mod.py, `from pkg import mod`, `from . import mod`, or a
    name from it: `from pkg.mod import x`, `from .mod import x`."""
    name, package = module
    if isinstance(node, ast.Import):
        return [(a.asname or a.name.split(".")[0], f" (`import {a.name}`)", True) for a in node.names if a.name == name]
    if node.level:
        parts = name.split(".") if package else name.split(".")[:-1]
        if node.level - 1 > len(parts):
            return []
        base = parts[: len(parts) - (node.level - 1)]
        source = ".".join([*base, *([node.module] if node.module else [])])
    else:
        source = node.module or ""
    how = "." * node.level + (node.module or "")
    if source == name:  # a package's own names may be its submodules, which the import loads: not judged
        return [] if package else [(a.name, f" (`from {how} import {a.name}`)", a.name == "*") for a in node.names]
    return [(a.name, f" (`from {how} import {a.name}`)", True) for a in node.names if f"{source}.{a.name}" == name]


# --- the target's standard library ----------------------------------------------------------------

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def imported_modules(tree: ast.Module, version: tuple[int, int] | None = None) -> list[tuple[str, int, str]]:
    """(top-level module name, line, scope) of each absolute import that runs unguarded: not in a
    `try` that catches ImportError, nor under an `if`. A `sys.version_info` comparison with a tuple
    is decided for the target `version` (`if sys.version_info >= (3, 11): import tomllib` is how
    code imports what only newer Pythons have); what another condition (a flag like `PY311`)
    stands for is not followed: it counts as a guard."""
    out: list[tuple[str, int, str]] = []
    stack: list[tuple[ast.AST, str]] = [(s, "<module>") for s in reversed(tree.body)]
    while stack:
        node, qual = stack.pop()
        if isinstance(node, ast.Import):
            out.extend((a.name.split(".")[0], node.lineno, qual) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if not node.level and node.module:
                out.append((node.module.split(".")[0], node.lineno, qual))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            handlers = getattr(node, "handlers", [])
            parts = [getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            if not any(_catches_import_error(h) for h in handlers):  # else the body and its fallbacks are guarded
                parts = [getattr(node, "body", []), *(h.body for h in handlers), *parts]
            for part in reversed(parts):
                stack.extend((x, qual) for x in reversed(part))
        elif isinstance(node, ast.If):  # a version check is decided for the target; any other `if` guards
            taken = _version_check(node.test, version) if version is not None else None
            if taken is not None:
                stack.extend((x, qual) for x in reversed(node.body if taken else node.orelse))
        elif isinstance(node, (*_FUNCS, ast.ClassDef)):
            inner = node.name if qual == "<module>" else f"{qual}.{node.name}"
            stack.extend((x, inner) for x in reversed(node.body))
        elif isinstance(node, ast.stmt):
            for f in ("finalbody", "orelse", "cases", "body"):
                stack.extend((x, qual) for x in reversed(getattr(node, f, None) or []))
        elif type(node).__name__ == "match_case":
            stack.extend((x, qual) for x in reversed(getattr(node, "body", [])))
    return out


_COMPARE: dict[type, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = {
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
}


def _version_check(test: ast.expr, version: tuple[int, int]) -> bool | None:
    """The value of `sys.version_info <op> (3, 11)` (or `sys.version_info[:2]`) on `version`; None for
    any other test. Only major.minor is known: a comparison that needs the micro version is None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _version_check(test.operand, version)
        return None if inner is None else not inner
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARE):
        return None
    left, right = test.left, test.comparators[0]
    whole = not isinstance(left, ast.Subscript)
    if not whole:
        left = left.value  # type: ignore[attr-defined]
    if whole and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        return None  # the whole version_info (3, 10, 13, 'final', 0) equals no short tuple
    if not (isinstance(left, ast.Attribute) and left.attr == "version_info"):
        return None
    if not isinstance(right, ast.Tuple) or not all(
        isinstance(e, ast.Constant) and type(e.value) is int for e in right.elts
    ):
        return None
    want = tuple(e.value for e in right.elts)  # type: ignore[attr-defined]
    if len(want) > 2:
        return None
    have = version[: len(want)]
    return _COMPARE[type(test.ops[0])](have, want)


def _catches_import_error(h: ast.ExceptHandler) -> bool:
    if h.type is None:
        return True
    names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    return any(
        (n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else "") in _IMPORT_ERRORS
        for n in names
    )


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


# --- pass 1: every scope's bindings ---------------------------------------------------------------

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(eq=False)
class _Scope:
    kind: str  # module | function | class | comprehension | annotation
    qual: str
    parent: _Scope | None
    import_time: bool  # runs while the module is imported (module, class bodies and comprehensions in them)
    bound: set[str] = field(default_factory=set)
    globals_: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    augmented: set[str] = field(default_factory=set)  # targets of `x += ...` (which reads x before it binds it)
    augmented_only: set[str] = field(default_factory=set)  # ... bound here by nothing else

    @property
    def locals(self) -> set[str]:
        return self.bound - self.globals_ - self.nonlocals

    def child(self, kind: str, name: str) -> _Scope:
        if kind in ("comprehension", "annotation"):  # anonymous: problems name the scope around them
            qual = self.qual
        else:
            qual = name if self.qual == "<module>" else f"{self.qual}.{name}"
        return _Scope(kind, qual, self, self.import_time and kind in ("class", "comprehension", "annotation"))

    def binding_scope(self) -> _Scope:
        """Where an assignment expression (:=) in this scope binds: past comprehensions."""
        s = self
        while s.kind == "comprehension" and s.parent is not None:
            s = s.parent
        return s


def _type_params(node: ast.AST) -> list[ast.AST]:
    return list(getattr(node, "type_params", None) or [])


def _arg_names(args: ast.arguments) -> Iterator[ast.arg]:
    yield from args.posonlyargs
    yield from args.args
    if args.vararg:
        yield args.vararg
    yield from args.kwonlyargs
    if args.kwarg:
        yield args.kwarg


def _arg_annotations(args: ast.arguments) -> Iterator[ast.expr]:
    for a in _arg_names(args):
        if a.annotation is not None:
            yield a.annotation


class _Collector:
    """Scope tree and bindings (what symtable would say), without recursion."""

    def __init__(self, tree: ast.Module) -> None:
        self.module = _Scope("module", "<module>", None, True)
        self.scopes: dict[int, _Scope] = {id(tree): self.module}
        stack: list[tuple[ast.AST, _Scope]] = [(n, self.module) for n in tree.body]
        name, plain = ast.Name, _PLAIN
        while stack:  # the order does not matter here: this pass only collects
            node, scope = stack.pop()
            kind = type(node)
            if kind is name:
                if not isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    scope.bound.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.AugAssign and type(node.target) is name:  # type: ignore[attr-defined]
                # `global x; x += 1` reads x before it binds it: it binds nothing the module lacked
                scope.augmented.add(node.target.id)  # type: ignore[attr-defined]
                stack.append((node.value, scope))  # type: ignore[attr-defined]
            elif kind in plain:
                stack.extend((c, scope) for c in ast.iter_child_nodes(node))
            else:
                stack.extend(self._visit(node, scope))
        for s in self.scopes.values():
            s.augmented_only = s.augmented - s.bound
            s.bound |= s.augmented

    def _new(self, node: ast.AST, scope: _Scope, kind: str, name: str) -> _Scope:
        s = scope.child(kind, name)
        self.scopes[id(node)] = s
        return s

    def _visit(self, node: ast.AST, scope: _Scope) -> Iterator[tuple[ast.AST, _Scope]]:
        if isinstance(node, (*_FUNCS, ast.ClassDef)):
            yield from self._definition(node, scope)
        elif isinstance(node, ast.Lambda):
            yield from ((d, scope) for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None)
            inner = self._new(node, scope, "function", "<lambda>")
            inner.bound.update(a.arg for a in _arg_names(node.args))
            yield (node.body, inner)
        elif isinstance(node, _COMPS):
            yield from self._comprehension(node, scope)
        elif isinstance(node, ast.NamedExpr):
            self._bind(node, scope)
            yield (node.value, scope)
        elif type(node).__name__ == "TypeAlias":
            yield (node.name, scope)  # type: ignore[attr-defined]
            inner = self._new(
                node, scope, "function", getattr(getattr(node, "name", None), "id", "<type>")
            )  # lazily evaluated value
            yield from self._params(node, inner)
            yield (node.value, inner)  # type: ignore[attr-defined]
        else:
            self._bind(node, scope)
            yield from ((c, scope) for c in ast.iter_child_nodes(node))

    def _bind(self, node: ast.AST, scope: _Scope) -> None:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            scope.bound.add(node.id)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            scope.binding_scope().bound.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            scope.bound.update(_import_name(a) for a in node.names if a.name != "*")
        elif isinstance(node, ast.Global):
            scope.globals_.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            scope.bound.add(node.name)
        elif type(node).__name__ in ("MatchAs", "MatchStar") and getattr(node, "name", None):
            scope.bound.add(node.name)  # type: ignore[attr-defined]
        elif type(node).__name__ == "MatchMapping" and getattr(node, "rest", None):
            scope.bound.add(node.rest)  # type: ignore[attr-defined]

    def _params(self, node: ast.AST, scope: _Scope) -> Iterator[tuple[ast.AST, _Scope]]:
        for p in _type_params(node):
            scope.bound.add(p.name)  # type: ignore[attr-defined]
            yield from ((c, scope) for c in ast.iter_child_nodes(p))

    def _definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: _Scope
    ) -> Iterator[tuple[ast.AST, _Scope]]:
        scope.bound.add(node.name)
        yield from ((d, scope) for d in node.decorator_list)
        outer = scope
        if _type_params(node):
            outer = self._new(node.type_params, scope, "annotation", node.name)  # type: ignore[union-attr]
            yield from self._params(node, outer)
        if isinstance(node, ast.ClassDef):
            yield from ((b, outer) for b in [*node.bases, *node.keywords])
            inner = self._new(node, outer, "class", node.name)
        else:
            a = node.args
            yield from (
                (d, outer) for d in [*a.defaults, *a.kw_defaults, *_arg_annotations(a), node.returns] if d is not None
            )
            inner = self._new(node, outer, "function", node.name)
            inner.bound.update(x.arg for x in _arg_names(a))
        yield from ((s, inner) for s in node.body)

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, scope: _Scope
    ) -> Iterator[tuple[ast.AST, _Scope]]:
        yield (node.generators[0].iter, scope)
        inner = self._new(node, scope, "comprehension", "")
        for i, gen in enumerate(node.generators):
            if i:
                yield (gen.iter, inner)
            yield (gen.target, inner)
            yield from ((c, inner) for c in gen.ifs)
        elts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        yield from ((e, inner) for e in elts)


_PLAIN = frozenset(
    {
        ast.Expr,
        ast.Return,
        ast.Call,
        ast.Attribute,
        ast.BinOp,
        ast.Compare,
        ast.BoolOp,
        ast.UnaryOp,
        ast.Subscript,
        ast.Constant,
        ast.keyword,
        ast.Tuple,
        ast.List,
        ast.Dict,
        ast.Set,
        ast.If,
        ast.For,
        ast.While,
        ast.With,
        ast.withitem,
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.Try,
        ast.Raise,
        ast.Assert,
        ast.IfExp,
        ast.Starred,
        ast.JoinedStr,
        ast.FormattedValue,
        ast.Slice,
        ast.Await,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Load,
        ast.Store,
        ast.Del,
        ast.Expr,
    }
)  # nothing to bind


def _import_name(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


# --- pass 2: follow the code --------------------------------------------------------------------


class _Flow:
    """What one scope has bound so far. `maybe`: bound on some path (grows, except for an
    unconditional del); `definite`: bound on every path. Branches log their changes to
    `definite` so a join costs what the branches changed, never the size of the scope."""

    def __init__(self) -> None:
        self.maybe: dict[str, int] = {}
        self.definite: set[str] = set()
        self.log: list[tuple[bool, str]] = []
        self.depth = 0
        self.deleted: dict[str, int] = {}  # names an unconditional del removed (and nothing bound again)
        self.dels: set[str] = set()  # names some del removes
        self.loops: list[list[Callable[[], None]]] = []

    def bind(self, name: str, line: int) -> None:
        self.maybe.setdefault(name, line)
        self.deleted.pop(name, None)
        self._set(name, True)

    def unbind(self, name: str, line: int) -> None:
        self.dels.add(name)
        self._set(name, False)
        if self.depth == 0:
            self.maybe.pop(name, None)
            self.deleted[name] = line

    def _set(self, name: str, present: bool) -> None:
        if (name in self.definite) == present:
            return
        if present:
            self.definite.add(name)
        else:
            self.definite.discard(name)
        if self.depth:
            self.log.append((present, name))

    def open(self) -> int:
        self.depth += 1
        return len(self.log)

    def close(self, mark: int) -> dict[str, bool]:
        """The net change to `definite` since `mark`, undone."""
        segment = self.log[mark:]
        del self.log[mark:]
        for present, name in reversed(segment):
            if present:
                self.definite.discard(name)
            else:
                self.definite.add(name)
        self.depth -= 1
        return {name: present for present, name in segment}

    def join(self, nets: list[dict[str, bool]]) -> None:
        """Continue with the paths that fall through (each given as its net change)."""
        touched: set[str] = set().union(*nets) if nets else set()
        for name in touched:
            self._set(name, all(net.get(name, name in self.definite) for net in nets))

    def later(self, check: Callable[[], None]) -> bool:
        """Inside a loop, a name bound further down the body is bound on the next iteration:
        decide when the loop is done. False when not in a loop."""
        if not self.loops:
            return False
        self.loops[-1].append(check)
        return True


@dataclass(frozen=True)
class _Ctx:
    scope: _Scope
    flow: _Flow
    annotations_lazy: bool


@dataclass(frozen=True)
class _GlobalUse:
    name: str
    line: int
    scope: _Scope
    import_time: bool
    own: bool = False  # a `global` name the reading function itself has assigned before (on some path)


class _Walker:
    def __init__(
        self, tree: ast.Module, scopes: dict[int, _Scope], runtime: Runtime, module: tuple[str, bool] | None = None
    ) -> None:
        self.tree, self.scopes, self.rt, self.self_module = tree, scopes, runtime, module
        self.module = scopes[id(tree)]
        self.flows: dict[int, _Flow] = {}
        self.out: list[Problem] = []
        self.deferred: list[tuple[ast.AST, _Ctx]] = []
        self.uses: list[_GlobalUse] = []
        self.lazy_uses: list[tuple[str, int, _Scope]] = []
        self.typing: dict[str, int] = {}  # names bound only for type checkers, where
        self.star: int | None = None  # line of the first run-time star import
        self.dynamic: int | None = None  # line of the first use of globals()
        self.future_annotations = any(
            isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names)
            for s in tree.body
        )
        # names a function binds in the module through `global` (an augmented assignment binds only
        # what it has read: `global x; x += 1` with x bound nowhere else is a NameError)
        self.global_assigners: dict[str, set[int]] = {}
        for s in scopes.values():
            if s.kind != "module":
                for n in (s.bound - s.augmented_only) & s.globals_:
                    self.global_assigners.setdefault(n, set()).add(id(s))
        self.global_assigned = set(self.global_assigners)
        self.everywhere = {n for s in scopes.values() for n in s.bound}

    def flow(self, scope: _Scope) -> _Flow:
        f = self.flows.get(id(scope))
        if f is None:
            f = self.flows[id(scope)] = _Flow()
        return f

    def ctx(self, scope: _Scope) -> _Ctx:
        lazy = self.future_annotations or self.rt.version >= (3, 14)
        return _Ctx(scope, self.flow(scope), lazy)

    def run(self) -> list[Problem]:
        top = self.ctx(self.module)
        self.block(self.tree.body, top)
        i = 0
        while i < len(self.deferred):  # function bodies, once their enclosing scope is complete
            node, c = self.deferred[i]
            self.deferred_body(node, c)
            i += 1
        for use in self.uses:
            self.resolve_global(use)
        for name, line, scope in self.lazy_uses:
            if (
                name not in self.everywhere
                and name not in self.typing
                and not self.builtin(name)
                and not self.starred(name, None)
            ):
                self.out.append(Problem(line, name, scope.qual, UNDEFINED))
        return self.out

    # statements ------------------------------------------------------------------------------

    def block(self, stmts: Iterable[ast.stmt], c: _Ctx) -> bool:
        """Walk statements in order; False when control cannot fall off the end."""
        falls = True
        for s in stmts:
            falls = self.stmt(s, c) and falls
        return falls

    def branches(self, c: _Ctx, parts: list[Callable[[], bool]]) -> bool:
        nets = []
        for part in parts:
            mark = c.flow.open()
            falls = part()
            net = c.flow.close(mark)
            if falls:
                nets.append(net)
        c.flow.join(nets)
        return bool(nets)

    def stmt(self, s: ast.stmt, c: _Ctx) -> bool:
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is not None:
            return bool(method(s, c))
        for child in ast.iter_child_nodes(s):  # Expr, Return, Raise, Assert, Delete, ...
            if isinstance(child, ast.expr):
                self.expr(child, c)
        return not isinstance(s, (ast.Return, ast.Raise, ast.Continue, ast.Break))

    def s_Assign(self, s: ast.Assign, c: _Ctx) -> bool:
        self.expr(s.value, c)
        for t in s.targets:
            self.expr(t, c)
        return True

    def s_AugAssign(self, s: ast.AugAssign, c: _Ctx) -> bool:
        if isinstance(s.target, ast.Name):
            self.use(s.target.id, s.target.lineno, c)
        self.expr(s.value, c)
        self.expr(s.target, c)
        return True

    def s_AnnAssign(self, s: ast.AnnAssign, c: _Ctx) -> bool:
        if s.value is not None:
            self.expr(s.value, c)
        if c.scope.kind in ("module", "class"):  # a function's local annotations are never evaluated
            self.annotation(s.annotation, c)
        if s.value is not None or not isinstance(s.target, ast.Name):
            self.expr(s.target, c)
        return True

    def s_Import(self, s: ast.Import | ast.ImportFrom, c: _Ctx) -> bool:
        if self.self_module is not None and c.scope.import_time:
            self.imports_itself(s, c)
        for a in s.names:
            if a.name == "*":
                if self.star is None:
                    self.star = s.lineno
            else:
                c.flow.bind(_import_name(a), s.lineno)
        return True

    s_ImportFrom = s_Import

    def imports_itself(self, s: ast.Import | ast.ImportFrom, c: _Ctx) -> None:
        """While the module is being imported it is in sys.modules half done: `from itself import x`
        fails unless x is bound already (ImportError), and any import of the whole of itself is a cycle."""
        assert self.self_module is not None
        bound = self.flow(self.module).maybe
        for name, how, whole in self_import(self.self_module, s):
            if whole or name not in bound:
                self.out.append(Problem(s.lineno, name, c.scope.qual, SELF_IMPORT, how))

    def s_Delete(self, s: ast.Delete, c: _Ctx) -> bool:
        for t in s.targets:
            if isinstance(t, ast.Name):
                self.use(t.id, t.lineno, c)
                self.unbind(t.id, t.lineno, c)
            else:
                self.expr(t, c)
        return True

    def s_Global(self, s: ast.stmt, c: _Ctx) -> bool:
        return True

    s_Nonlocal = s_Global

    def s_If(self, s: ast.If, c: _Ctx) -> bool:
        typing = _type_checking(s.test)
        if typing is None:
            self.expr(s.test, c)
            return self.branches(c, [lambda: self.block(s.body, c), lambda: self.block(s.orelse, c)])
        dead, live = (s.body, s.orelse) if typing else (s.orelse, s.body)
        self.typing_only(dead, c)
        return self.block(live, c)

    def s_For(self, s: ast.For | ast.AsyncFor, c: _Ctx) -> bool:
        self.expr(s.iter, c)
        self.loop(c, lambda: self.expr(s.target, c) or self.block(s.body, c))  # type: ignore[func-returns-value]
        self.branches(c, [lambda: self.block(s.orelse, c), lambda: True])
        return True

    s_AsyncFor = s_For

    def s_While(self, s: ast.While, c: _Ctx) -> bool:
        self.loop(c, lambda: self.expr(s.test, c) or self.block(s.body, c))  # type: ignore[func-returns-value]
        self.branches(c, [lambda: self.block(s.orelse, c), lambda: True])
        return True

    def loop(self, c: _Ctx, body: Callable[[], object]) -> None:
        c.flow.loops.append([])
        self.branches(c, [lambda: bool(body() or True), lambda: True])
        pending = c.flow.loops.pop()
        for check in pending:
            check()

    def s_With(self, s: ast.With | ast.AsyncWith, c: _Ctx) -> bool:
        for item in s.items:
            self.expr(item.context_expr, c)
            if item.optional_vars is not None:
                self.expr(item.optional_vars, c)
        return self.block(s.body, c)

    s_AsyncWith = s_With

    def s_Try(self, s: ast.Try, c: _Ctx) -> bool:
        def handler(h: ast.ExceptHandler) -> Callable[[], bool]:
            def walk() -> bool:
                if h.type is not None:
                    self.expr(h.type, c)
                had = h.name is not None and h.name in c.flow.maybe
                if h.name:
                    c.flow.bind(h.name, h.lineno)
                falls = self.block(h.body, c)
                if h.name:  # `except E as e` deletes e when the handler ends
                    c.flow._set(h.name, False)
                    if not had:
                        c.flow.maybe.pop(h.name, None)
                return falls

            return walk

        parts: list[Callable[[], bool]] = [lambda: self.block(s.body, c) and self.block(s.orelse, c)]
        parts += [handler(h) for h in s.handlers]
        falls = self.branches(c, parts)
        return self.block(s.finalbody, c) and falls

    s_TryStar = s_Try

    def s_Match(self, s: ast.stmt, c: _Ctx) -> bool:
        self.expr(s.subject, c)  # type: ignore[attr-defined]
        parts: list[Callable[[], bool]] = []
        for case in s.cases:  # type: ignore[attr-defined]

            def walk(case: ast.AST = case) -> bool:
                self.expr(case.pattern, c)  # type: ignore[attr-defined]
                if case.guard is not None:  # type: ignore[attr-defined]
                    self.expr(case.guard, c)  # type: ignore[attr-defined]
                return self.block(case.body, c)  # type: ignore[attr-defined]

            parts.append(walk)
        parts.append(lambda: True)  # no case matched
        return self.branches(c, parts)

    def s_FunctionDef(self, s: ast.FunctionDef | ast.AsyncFunctionDef, c: _Ctx) -> bool:
        for d in s.decorator_list:
            self.expr(d, c)
        outer = self.params(s, c)
        for default in [*s.args.defaults, *s.args.kw_defaults]:
            if default is not None:
                self.expr(default, outer)
        for a in [*_arg_annotations(s.args), s.returns]:
            if a is not None:
                self.annotation(a, outer)
        self.deferred.append((s, self.ctx(self.scopes[id(s)])))
        c.flow.bind(s.name, s.lineno)
        return True

    s_AsyncFunctionDef = s_FunctionDef

    def s_ClassDef(self, s: ast.ClassDef, c: _Ctx) -> bool:
        for d in s.decorator_list:
            self.expr(d, c)
        outer = self.params(s, c)
        for b in [*s.bases, *s.keywords]:
            self.expr(b, outer)
        inner = self.ctx(self.scopes[id(s)])
        self.block(s.body, inner)
        c.flow.bind(s.name, s.lineno)
        return True

    def s_TypeAlias(self, s: ast.stmt, c: _Ctx) -> bool:
        name = s.name  # type: ignore[attr-defined]
        self.deferred.append((s, self.ctx(self.scopes[id(s)])))
        c.flow.bind(name.id, s.lineno)
        return True

    def params(self, s: ast.AST, c: _Ctx) -> _Ctx:
        if not _type_params(s):
            return c
        inner = self.ctx(self.scopes[id(s.type_params)])  # type: ignore[attr-defined]
        for p in _type_params(s):
            inner.flow.bind(p.name, s.lineno)  # type: ignore[attr-defined]
        return inner

    def deferred_body(self, node: ast.AST, c: _Ctx) -> None:
        if isinstance(node, ast.Lambda):
            for a in _arg_names(node.args):
                c.flow.bind(a.arg, node.lineno)
            self.expr(node.body, c)
        elif isinstance(node, _FUNCS):
            for a in _arg_names(node.args):
                c.flow.bind(a.arg, node.lineno)
            self.block(node.body, c)
        else:  # a type alias' value
            for p in _type_params(node):
                c.flow.bind(p.name, node.lineno)  # type: ignore[attr-defined]
            self.expr(node.value, c)  # type: ignore[attr-defined]

    def typing_only(self, stmts: list[ast.stmt], c: _Ctx) -> None:
        """Bindings in a block that never runs (`if TYPE_CHECKING:`): known, never bound."""
        stack = list(stmts)
        while stack:
            s = stack.pop()
            if isinstance(s, (ast.Import, ast.ImportFrom)):
                for a in s.names:
                    if a.name != "*":
                        self.typing.setdefault(_import_name(a), s.lineno)
            elif isinstance(s, (*_FUNCS, ast.ClassDef)):
                self.typing.setdefault(s.name, s.lineno)
            elif isinstance(s, (ast.Assign, ast.AnnAssign)):
                for t in s.targets if isinstance(s, ast.Assign) else [s.target]:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.typing.setdefault(n.id, s.lineno)
            else:
                for f in ("body", "orelse", "finalbody", "handlers"):
                    stack.extend(getattr(s, f, ()))

    # expressions ------------------------------------------------------------------------------

    def annotation(self, node: ast.expr, c: _Ctx) -> None:
        if c.annotations_lazy:
            for n in ast.walk(node):
                if isinstance(n, ast.Name):
                    self.lazy_uses.append((n.id, n.lineno, c.scope))
        else:
            self.expr(node, c)

    def expr(self, root: ast.AST, c: _Ctx) -> None:
        stack: list[tuple[ast.AST, _Ctx]] = [(root, c)]
        while stack:
            node, cx = stack.pop()
            if type(node) is ast.Constant:
                continue
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self.use(node.id, node.lineno, cx)
                elif isinstance(node.ctx, ast.Store):
                    cx.flow.bind(node.id, node.lineno)
                continue
            if isinstance(node, ast.NamedExpr):
                target = node.target
                assert isinstance(target, ast.Name)
                home = self.ctx(cx.scope.binding_scope())
                stack.append((ast.Name(target.id, ast.Store(), lineno=target.lineno, col_offset=0), home))
                stack.append((node.value, cx))
                continue
            if isinstance(node, ast.Lambda):
                for d in [*node.args.defaults, *node.args.kw_defaults]:
                    if d is not None:
                        self.expr(d, cx)
                self.deferred.append((node, self.ctx(self.scopes[id(node)])))
                continue
            if isinstance(node, _COMPS):
                self.comprehension(node, cx)
                continue
            for field_ in _MATCH_NAMES:
                name = getattr(node, field_, None) if type(node).__name__.startswith("Match") else None
                if isinstance(name, str):
                    cx.flow.bind(name, getattr(node, "lineno", 0))
            stack.extend((child, cx) for child in reversed(list(ast.iter_child_nodes(node))))

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, c: _Ctx) -> None:
        self.expr(node.generators[0].iter, c)
        inner = self.ctx(self.scopes[id(node)])
        for i, gen in enumerate(node.generators):
            if i:
                self.expr(gen.iter, inner)
            self.expr(gen.target, inner)
            for cond in gen.ifs:
                self.expr(cond, inner)
        for e in [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]:
            self.expr(e, inner)

    # resolving a read ---------------------------------------------------------------------------

    def use(self, name: str, line: int, c: _Ctx) -> None:
        scope = c.scope
        if name == "globals" and self.dynamic is None:  # globals().update(...) may bind any name from here on
            self.dynamic = line
        if scope.kind == "module":
            self.module_read(name, line, scope, c.flow)
        elif name in scope.globals_:
            self.uses.append(_GlobalUse(name, line, scope, scope.import_time, name in c.flow.maybe))
        elif scope.kind == "class" and name in scope.locals:
            if name not in c.flow.maybe:  # not bound in the class yet: the module's (LOAD_NAME)
                self.global_read(name, line, scope)
        elif name in scope.locals:
            self.local_read(name, line, scope, c.flow)
        else:
            self.free_read(name, line, scope)

    def local_read(self, name: str, line: int, scope: _Scope, flow: _Flow) -> None:
        if name in flow.definite:
            return
        hides = name in self.module.bound or self.builtin(name) or name in flow.dels
        if name in flow.maybe:
            # Bound on some path only: the usual `if ...: x = ...` pattern, unless the local hides a
            # module name or builtin (an assignment that turned a global into a local).
            if hides:
                self.out.append(
                    Problem(line, name, scope.qual, UNBOUND, "is not assigned (or is deleted) on some path")
                )
            return
        self.local_check(name, line, scope, flow, hides)

    # A check that a loop decides later is queued as a partial of a method, never as a closure that
    # names itself: that would be a reference cycle holding the walker, and with it the whole tree,
    # until the cyclic collector runs (which radpatch pauses while it analyses a module).

    def local_check(self, name: str, line: int, scope: _Scope, flow: _Flow, hides: bool) -> None:
        if name in flow.maybe:  # assigned further down the loop: bound from the second iteration
            if hides:
                self.out.append(
                    Problem(
                        line,
                        name,
                        scope.qual,
                        UNBOUND,
                        "is not assigned before the loop's first pass (it hides the global)",
                    )
                )
        elif not flow.later(functools.partial(self.local_check, name, line, scope, flow, hides)):
            self.out.append(Problem(line, name, scope.qual, UNBOUND, "is not assigned yet"))

    def module_read(self, name: str, line: int, scope: _Scope, flow: _Flow) -> None:
        self.module_check(name, line, scope, self.flow(self.module))

    def module_check(self, name: str, line: int, scope: _Scope, module_flow: _Flow) -> None:
        if name not in module_flow.maybe and not module_flow.later(
            functools.partial(self.module_check, name, line, scope, module_flow)
        ):
            self.uses.append(_GlobalUse(name, line, scope, True))

    def global_read(self, name: str, line: int, scope: _Scope) -> None:
        if scope.import_time:
            self.module_read(name, line, scope, self.flow(self.module))
        else:
            self.uses.append(_GlobalUse(name, line, scope, False))

    def free_read(self, name: str, line: int, scope: _Scope) -> None:
        child, s = scope, scope.parent
        while s is not None:
            if s.kind == "module":
                self.global_read(name, line, scope)
                return
            visible = s.kind != "class" or child.kind == "annotation"
            if visible and name in s.globals_:
                self.global_read(name, line, scope)
                return
            if visible and name in s.locals:
                if name not in self.flow(s).maybe and s.kind != "class":
                    self.out.append(
                        Problem(line, name, scope.qual, UNBOUND, f"is not assigned yet in {s.qual}() (free variable)")
                    )
                return
            child, s = s, s.parent

    def resolve_global(self, use: _GlobalUse) -> None:
        name = use.name
        if self.builtin(name) or (name in _CLASS_DUNDERS and use.scope.kind != "module"):
            return
        module_flow = self.flow(self.module)
        if use.import_time:
            if name in self.global_assigned or self.starred(name, use.line):
                return
            if name in module_flow.maybe:
                self.out.append(Problem(use.line, name, use.scope.qual, LATER, f" (line {module_flow.maybe[name]})"))
                return
        elif name in module_flow.maybe or self.assigned_elsewhere(use) or self.starred(name, None):
            return
        self.out.append(self.missing(use))

    def assigned_elsewhere(self, use: _GlobalUse) -> bool:
        """Does a function bind this `global` name before `use` may read it: another function (which may
        run first), or the reading one itself, earlier on its path? Not the assignment that follows the
        read in the same function: the first call fails there."""
        return use.own or bool(self.global_assigners.get(use.name, set()) - {id(use.scope)})

    def missing(self, use: _GlobalUse) -> Problem:
        name, module_flow = use.name, self.flow(self.module)
        if name in module_flow.deleted:
            return Problem(use.line, name, use.scope.qual, DELETED, f" (del at line {module_flow.deleted[name]})")
        if name in self.typing:
            return Problem(use.line, name, use.scope.qual, TYPING_ONLY, f" (line {self.typing[name]})")
        owner = next((s for s in _ancestors(use.scope) if s.kind == "class" and name in s.locals), None)
        if owner is not None:
            return Problem(use.line, name, use.scope.qual, CLASS_ATTRIBUTE, f" of {owner.qual}")
        return Problem(use.line, name, use.scope.qual, UNDEFINED)

    def builtin(self, name: str) -> bool:
        return name in self.rt.builtins or name in _MODULE_DUNDERS

    def starred(self, name: str, line: int | None) -> bool:
        """Could a run-time star import or globals() (before `line`, if given) provide `name`?"""
        if self.dynamic is not None and (line is None or self.dynamic < line):
            return True
        return self.star is not None and not name.startswith("_") and (line is None or self.star < line)

    def unbind(self, name: str, line: int, c: _Ctx) -> None:
        scope = c.scope
        if scope.kind != "module" and name in scope.globals_:
            return
        c.flow.unbind(name, line)


_MATCH_NAMES = ("name", "rest")


def _ancestors(scope: _Scope) -> Iterator[_Scope]:
    s: _Scope | None = scope.parent
    while s is not None:
        yield s
        s = s.parent


def _type_checking(test: ast.expr) -> bool | None:
    """True for `if TYPE_CHECKING:`, False for `if not TYPE_CHECKING:`, None otherwise."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    inner = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    if (isinstance(inner, ast.Name) and inner.id == "TYPE_CHECKING") or (
        isinstance(inner, ast.Attribute) and inner.attr == "TYPE_CHECKING"
    ):
        return not negated
    return None
