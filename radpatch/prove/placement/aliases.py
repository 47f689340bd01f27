"""The module's other names for its own namespace and for itself (`_g = globals()`, `_self = sys.modules[__name__]`,
`import pkg.mod as _me`, ...), and the spellings that reach them (`chain`, `namespace`; `store_calls.setattr_call`): a
store through any of them rebinds like the direct form, for the live and rebinding proofs. Standard library only."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from .shadowing import walrus


@dataclass(frozen=True)
class Aliases:
    """The module's other names for its own namespace and for itself, bound at module level:
    `_g = globals()` / `vars()` (namespace), `_self = sys.modules[__name__]`,
    `sys.modules.get(__name__)`, `import pkg.mod as _me`, `from pkg import mod` in pkg/mod.py
    (module; not `pkg.mod` after `import pkg.mod`: the import system binds the parent's attribute
    only after the module has run, so a store through it raises AttributeError). A store through
    one rebinds like the direct form. A name bound so anywhere at module level counts, whatever
    else it is bound to.
    `sys.modules` is also read through `import sys as _s` (`_s.modules`) and `from sys import
    modules`, and keyed by `__name__`, `__spec__.name` or the module's own dotted name (`name`);
    `importlib.import_module(<key>)` (in the same spellings: `importers`) returns it too."""

    namespace: frozenset[str] = frozenset()
    module: frozenset[str] = frozenset()
    sys_modules: frozenset[str] = frozenset({"sys.modules"})
    name: str | None = None
    importers: frozenset[str] = frozenset({"importlib.import_module"})
    namespace_functions: frozenset[str] = frozenset()  # `_gl = globals`: `_gl()` is the namespace
    in_function: bool = False  # read in a function body: there `locals()` and `vars()` are its own locals
    classes: tuple[tuple[str, str], ...] = ()  # (alias, class): `D = C`, `E = C.Inner` at module level
    # (alias, function, its first arguments): a name bound to a storing function (`_set =
    # globals().__setitem__`, `_sa = setattr`) or to a partial of one (`functools.partial(setattr, _me)`)
    callables: tuple[tuple[str, ast.expr, tuple[ast.expr, ...]], ...] = ()
    partials: frozenset[str] = frozenset({"functools.partial"})
    operators: tuple[tuple[str, str], ...] = (("operator.setitem", "__setitem__"), ("operator.delitem", "__delitem__"))
    package: bool = False  # the module is a package's __init__ (for a relative import of itself)


NO_ALIASES = Aliases()


def collect(statements: list[ast.stmt], module: tuple[str, bool] | None = None, base: Aliases | None = None) -> Aliases:
    """The Aliases bound by a module's module-level `statements` (those inside its if/try/with/loops
    too); `module`: its (dotted name, is a package), for imports of itself. With `base` (the
    module's, in_function: later2), those a function's `statements` add to them (`_g = globals()`
    in its body; not `vars()`, its own locals there). An alias of an alias
    counts (`_b = _a`, `_d = _me.__dict__`, `_a, _z = globals(), 0`, the variable of a loop over a
    literal list, `_gl = globals` then `_gl()`), to a fixed point."""
    space: set[str] = set()
    self: set[str] = set()
    sys_modules = frozenset(_spellings(statements, "sys", "modules"))
    importers = frozenset(_spellings(statements, "importlib", "import_module"))
    name = module[0] if module else None
    pairs: list[tuple[str, ast.expr]] = []
    functions: set[str] = set()
    defined = {s.name for s in statements if isinstance(s, ast.ClassDef)}
    classes: dict[str, str] = {}
    partials = frozenset(_spellings(statements, "functools", "partial"))
    operators = tuple(
        (spelling, f"__{how}__")
        for how in ("setitem", "delitem")
        for spelling in _spellings(statements, "operator", how)
    )
    nullcontexts = set(_spellings(statements, "contextlib", "nullcontext"))
    callables: dict[str, tuple[ast.expr, tuple[ast.expr, ...]]] = {}
    if base is not None:
        space, self, functions = set(base.namespace), set(base.module), set(base.namespace_functions)
        classes, callables = dict(base.classes), {k: (f, a) for k, f, a in base.callables}
        sys_modules, importers, name = sys_modules | base.sys_modules, importers | base.importers, base.name
    for s in statements:
        if isinstance(s, (ast.Import, ast.ImportFrom)) and module is not None:
            self.update(_imports_itself(s, module))
            continue
        found: list[tuple[ast.expr, ast.expr | None]] = []
        if isinstance(s, ast.Assign):
            found = [(t, s.value) for t in s.targets]
        elif isinstance(s, ast.AnnAssign):
            found = [(s.target, s.value)]
        elif isinstance(s, (ast.For, ast.AsyncFor)) and isinstance(s.iter, (ast.List, ast.Tuple, ast.Set)):
            found = [(s.target, e) for e in s.iter.elts]  # `for _g in [globals()]:`
        elif isinstance(s, (ast.With, ast.AsyncWith)):  # `with contextlib.nullcontext(globals()) as _g:`
            found = [
                (i.optional_vars, i.context_expr.args[0])
                for i in s.items
                if isinstance(i.context_expr, ast.Call)
                and chain(i.context_expr.func) in nullcontexts
                and i.context_expr.args
                and i.optional_vars is not None
            ]
        found += [(n.target, n.value) for n in walrus(s)]
        while found:
            target, value = found.pop()
            if isinstance(target, ast.Name) and value is not None:
                pairs.append((target.id, value))
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
                if len(target.elts) == len(value.elts) and not any(isinstance(e, ast.Starred) for e in target.elts):
                    found.extend(zip(target.elts, value.elts))
    while True:
        aliases = Aliases(
            frozenset(space),
            frozenset(self),
            sys_modules,
            name,
            importers,
            frozenset(functions),
            classes=tuple(sorted(classes.items())),
            callables=tuple((k, *v) for k, v in sorted(callables.items(), key=lambda kv: kv[0])),
            partials=partials,
            operators=operators,
            in_function=base is not None and base.in_function,
            package=bool(module and module[1]),
        )
        for target_name, value in pairs:
            how = chain(value)
            if how in _NAMESPACE_CALLS or how in functions:
                functions.add(target_name)
            elif isinstance(value, ast.Call) and chain(value.func) in partials and value.args:
                callables.setdefault(target_name, (value.args[0], tuple(value.args[1:])))
            elif storing_function(value, aliases):
                callables.setdefault(target_name, (value, ()))
            elif namespace(value, aliases):
                space.add(target_name)
            elif chain(value, aliases) == "<module>":
                self.add(target_name)
            else:  # `D = C`: a store through D is one on C
                dotted = chain(value, aliases)
                if dotted is not None and dotted.split(".")[0] in defined and target_name not in defined:
                    classes.setdefault(target_name, dotted)
        if (len(space), len(self), len(functions), len(classes), len(callables)) == (
            len(aliases.namespace),
            len(aliases.module),
            len(aliases.namespace_functions),
            len(aliases.classes),
            len(aliases.callables),
        ):  # the sets only grow: the same sizes are the same sets
            return aliases


def in_body(aliases: Aliases, f: ast.AST) -> Aliases:
    """The module's `aliases` as a function `f`'s body sees them (its `locals()` and `vars()` are
    its own), with those it binds itself (`_g = globals()`, `_s = sys.modules[__name__]`: later2)."""
    inner = [x for x in ast.walk(f) if x is not f and isinstance(x, ast.stmt)]
    module = (aliases.name, aliases.package) if aliases.name else None  # `import pkg.mod as _me` in it
    return collect(inner, module, replace(aliases, in_function=True))


def _spellings(statements: Iterable[ast.stmt], module: str, attr: str) -> Iterator[str]:
    """The module's spellings of `module.attr`: itself, `_s.attr` after `import module as _s`,
    `attr` after `from module import attr` (or its `as` name)."""
    yield from (said := {f"{module}.{attr}"})
    for s in statements:
        if isinstance(s, ast.Assign) and chain(s.value) in said:  # `d = sys.modules` (att61 F7)
            said |= {t.id for t in s.targets if isinstance(t, ast.Name)}
            yield from said
        elif isinstance(s, ast.Import):
            yield from (f"{a.asname}.{attr}" for a in s.names if a.name == module and a.asname)
        elif isinstance(s, ast.ImportFrom) and s.module == module and not s.level:
            yield from (a.asname or a.name for a in s.names if a.name == attr)


def _imports_itself(s: ast.Import | ast.ImportFrom, module: tuple[str, bool]) -> Iterator[str]:
    """The names (or dotted chain) import `s` binds to the module itself."""
    name, package = module
    if isinstance(s, ast.Import):  # `import pkg.mod` binds pkg, whose attribute mod is not set yet
        yield from (a.asname or a.name for a in s.names if a.name == name and (a.asname or "." not in name))
        return
    if s.level:
        parts = name.split(".") if package else name.split(".")[:-1]
        if s.level - 1 > len(parts):
            return
        source = ".".join([*parts[: len(parts) - (s.level - 1)], *([s.module] if s.module else [])])
    else:
        source = s.module or ""
    yield from (a.asname or a.name for a in s.names if f"{source}.{a.name}" == name)


def _namespace_call(node: ast.expr, aliases: Aliases = NO_ALIASES) -> bool:
    """`globals()`; at module level also `locals()` and `vars()`, which are the module's namespace there."""
    if not isinstance(node, ast.Call) or node.args:
        return False
    how = chain(node.func)
    if how in _LOCALS_CALLS:
        return not aliases.in_function
    return how in _NAMESPACE_CALLS or how in aliases.namespace_functions


_LOCALS_CALLS = ("vars", "locals", "builtins.vars", "builtins.locals")
_FRAME_NAMESPACES = frozenset({"f_globals", "f_locals", "__globals__"})
_NAMESPACE_CALLS = ("globals", "builtins.globals", *_LOCALS_CALLS)


def bare(node: ast.expr) -> ast.expr:
    """`node` without the assignment expressions around it: `(_g := globals())` is `globals()`."""
    while isinstance(node, ast.NamedExpr):
        node = node.value
    return node


def namespace(node: ast.expr, aliases: Aliases = NO_ALIASES) -> bool:
    """The module's namespace: `globals()`, `vars()`, an alias of them, `vars(<module>)`,
    `<module>.__dict__` (<module>: `sys.modules[__name__]`, an alias of it), each also inside an
    assignment expression (`(_g := globals())`)."""
    node = bare(node)
    if _namespace_call(node, aliases) or isinstance(node, ast.Name) and node.id in aliases.namespace:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Lambda) and not node.args:
        return namespace(node.func.body, aliases)  # `(lambda: globals())()`; a frame's, a def's (att61 F7):
    if isinstance(node, ast.Attribute) and node.attr in _FRAME_NAMESPACES:  # `sys._getframe().f_globals`
        return True
    if isinstance(node, ast.Call) and chain(node.func) == "vars" and len(node.args) == 1:
        return chain(node.args[0], aliases) == "<module>"
    return isinstance(node, ast.Attribute) and node.attr == "__dict__" and chain(node.value, aliases) == "<module>"


def chain(node: ast.expr, aliases: Aliases = NO_ALIASES) -> str | None:
    """`A.B.c` as "A.B.c" (Names and attributes only); the module itself (`sys.modules[__name__]`,
    `sys.modules.get(__name__)`, an alias of it) as "<module>", and `_me.C` as "C". An assignment
    expression stands for its value (`(_m := sys.modules[__name__]).f`)."""
    parts: list[str] = []
    node = bare(node)
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = bare(node.value)
    if isinstance(node, ast.Name):
        parts.append(node.id)
        dotted = ".".join(reversed(parts))
        for alias in aliases.module:
            if dotted == alias:
                return "<module>"
            if dotted.startswith(alias + "."):
                return dotted[len(alias) + 1 :]
        for alias, cls in aliases.classes:
            if dotted == alias or dotted.startswith(alias + "."):
                return cls + dotted[len(alias) :]
        return dotted
    if not parts and _itself(node, aliases):
        return "<module>"
    return None


def _itself(node: ast.expr, aliases: Aliases) -> bool:
    """`sys.modules[__name__]`, `sys.modules.get(__name__)`, `importlib.import_module(__name__)`,
    keyed also by `__spec__.name`, `K.__module__` (att62 F2) or the module's own dotted name; `sys.modules`
    in any of the module's spellings of it."""
    if isinstance(node, ast.Subscript) and chain(node.value) in aliases.sys_modules:
        key: ast.expr | None = node.slice
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and chain(node.func.value) in aliases.sys_modules
        and node.args
    ):
        key = node.args[0]
    elif isinstance(node, ast.Call) and chain(node.func) in aliases.importers and len(node.args) == 1:
        key = node.args[0]  # importlib.import_module(__name__): sys.modules' entry
    else:
        return False
    if isinstance(key, ast.Constant):
        return aliases.name is not None and key.value == aliases.name
    said = (chain(key) or "").rpartition(".") if key is not None else ("", "", "")
    return said[::2] in (("", "__name__"), ("__spec__", "name")) or (said[2] == "__module__" and bool(said[0]))


_SETATTRS = frozenset(
    f"{owner}{how}"
    for owner in ("", "builtins.")
    for how in (
        "setattr",
        "delattr",
        "object.__setattr__",
        "object.__delattr__",
        "type.__setattr__",
        "type.__delattr__",
    )
)


# The namespace's methods that store (or delete) names (those that only read it: store_calls.NAMESPACE_READS).
NAMESPACE_STORES = ("__setitem__", "update", "pop", "__delitem__", "clear", "popitem", "__ior__")


def storing_function(node: ast.expr, aliases: Aliases) -> bool:
    """A function value that stores module names when called: `setattr` (and the other _SETATTRS),
    `operator.setitem`, `globals().__setitem__` / `.update` / `.pop`, `<module>.__setattr__`, an
    alias of one."""
    node = bare(node)
    how = chain(node)
    if how in _SETATTRS or how in dict(aliases.operators) or how in {a for a, _, _ in aliases.callables}:
        return True
    if how in ("exec", "builtins.exec"):
        return True
    if isinstance(node, ast.Attribute) and node.attr in NAMESPACE_STORES:
        return namespace(node.value, aliases)
    setter = isinstance(node, ast.Attribute) and node.attr in ("__setattr__", "__delattr__")
    return setter and chain(getattr(node, "value", node), aliases) == "<module>"
