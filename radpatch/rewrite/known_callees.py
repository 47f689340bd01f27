"""Functions and decorators from elsewhere whose effect on what they are given radpatch takes as known: readers,
which change none of it and keep nothing of it that code could change it through (a copy, a text of it, a log
call, a tensor made from it, a path joined, `itertools.chain`), and wrappers, decorators that return a wrapper of
the function and run none of it when applied (`@contextmanager`, `@functools.lru_cache(...)`). For
rewrite.escapes and rewrite.later_runs; docs/safety.md lists them as an assumption.

A callee is known by what the module's imports make of its name (`imported`): `np.asarray` after `import numpy
as np`, `contextmanager` after `from contextlib import contextmanager`; a name the module binds any other way
too (`json = ...`, `json.dumps = ...`, `def cache`, `setattr(json, ...)`), or imports from elsewhere (`import
mylib as json`), is not known (att61 F9). Not readers: `subprocess.run`/`Popen` (the result's `.args` is the
list itself), `np.array` (of a dict, an array holding it), `copy.copy`/`deepcopy` of a function (the function
itself; att61 F8).

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

# functions from elsewhere that only read what they are given, by the name they are imported as
_READERS = frozenset(
    {
        *("json.dumps", "json.dump", "copy.copy", "copy.deepcopy", "pprint.pformat", "pprint.pprint"),
        *("torch.tensor", "torch.as_tensor", "os.path.join", "shlex.join", "itertools.chain"),
    }
)
_COPIES = frozenset({"copy.copy", "copy.deepcopy"})  # given a function, they return it
# decorators from elsewhere that wrap the function they are given and run none of it when applied
_WRAPPERS = frozenset(
    {
        *("contextlib.contextmanager", "contextlib.asynccontextmanager", "functools.wraps", "functools.lru_cache"),
        *("functools.cache", "functools.cached_property", "abc.abstractmethod", "typing.overload", "typing.final"),
    }
)
# builtins that do not keep or hand on the object they are given (a copy, a measure, a print)
_PURE = frozenset(
    "len print repr str bool int float isinstance issubclass id type hash list tuple set frozenset dict sorted "
    "iter enumerate zip any all sum min max reversed format callable hasattr ascii map filter".split()
)
_LOGS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def short_text(node: ast.AST) -> str:
    said = ast.unparse(node)
    return said if len(said) <= 40 else said[:37] + "..."


def imported(body: Sequence[ast.AST]) -> dict[str, str]:
    """The names the scope's imports bind (at any depth; not relative ones), each with what it names
    (`np` -> `numpy`, `contextmanager` -> `contextlib.contextmanager`), but a name bound any other way
    too, or by two imports."""
    out: dict[str, str] = {}
    other: set[str] = set()
    for node in ast.walk(ast.Module(list(body), [])):  # type: ignore[arg-type]
        if isinstance(node, ast.Import):
            pairs = [
                (a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0]) for a in node.names
            ]
        elif isinstance(node, ast.ImportFrom):
            names = [a for a in node.names if a.name != "*"]
            pairs = [(a.asname or a.name, f"{node.module}.{a.name}" if node.level == 0 else "") for a in names]
        else:
            other.update(_bound(node))
            continue
        for name, origin in pairs:
            other.update([name] if out.get(name, origin) != origin or not origin else [])
            out[name] = origin
    return {name: origin for name, origin in out.items() if name not in other}


def _bound(node: ast.AST) -> list[str]:
    """The names `node` binds or changes other than by an import: a store or del of the name or of an
    attribute or item of it, a def or class, `setattr(name, ...)`."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return [_root(node)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
        return [_root(node.args[0])] if node.args else []
    return []


def _root(node: ast.AST) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def qualified(callee: ast.AST, names: Mapping[str, str]) -> str:
    """`callee` as the module's imports name it (`np.asarray` -> `numpy.asarray`), or "" where its root
    is no imported name."""
    said, root = ast.unparse(callee), _root(callee)
    return names[root] + said[len(root) :] if root in names and said.startswith(root) else ""


def reads_only(callee: ast.AST, names: Mapping[str, str], kind: str = "") -> bool:
    """A function from elsewhere that only reads what it is given (`_READERS`; of a `kind` "function"
    value, not a copy), or a log call."""
    known = qualified(callee, names)
    return (known in _READERS and not (kind == "function" and known in _COPIES)) or logs(callee)


def wraps_only(decorator: ast.AST, names: Mapping[str, str]) -> bool:
    """A decorator from elsewhere that wraps what it is given and runs none of it (`_WRAPPERS`;
    `@functools.lru_cache(maxsize=8)`, `@functools.wraps(f)`: what the call returns)."""
    return qualified(decorator.func if isinstance(decorator, ast.Call) else decorator, names) in _WRAPPERS


def logs(callee: ast.AST) -> bool:
    """`logger.info(...)`, `logging.warning(...)`, `_log.debug_once(...)`: a log call formats what it is given."""
    if not isinstance(callee, ast.Attribute) or callee.attr.removesuffix("_once") not in _LOGS:
        return False  # vLLM's `logger.warning_once(...)` too (att62 F11)
    root = callee.value
    while isinstance(root, ast.Attribute):
        root = root.value
    said = root.id.lower().lstrip("_") if isinstance(root, ast.Name) else ""
    return said in ("log", "logging") or said.endswith("logger")  # not `catalog`, `logits_table` (att62 F5)


def pure_builtin(call: ast.Call) -> bool:
    """A call of a builtin of _PURE (by its name) that neither keeps nor gives back what it is given: not
    `min`/`max` of several values or with a key or default (it gives back one of them), not `dict(k=v)`
    (it holds v) (att61 F5)."""
    name = call.func.id if isinstance(call.func, ast.Name) else ""
    if name in ("min", "max") and (len(call.args) > 1 or call.keywords):
        return False
    return name in _PURE and not (name == "dict" and call.keywords)
