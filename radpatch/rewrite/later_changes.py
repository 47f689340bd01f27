"""What later statements of a scope do to the literal a name is bound to: the rule behind set_item's,
add_element's and remove_element's refusal of an edit the module undoes before it is done running
(and set_keyword's, on the call a name is bound to: `later_attributes`).

rewrite.name_bindings says the name is bound once (a second binding, `CFG = {...}` again, `FLAGS +=
[...]`, `del CFG`, is refused there, as set_constant refuses a constant bound twice); this module
reads the statements after that binding, in the scope's own code (its blocks and comprehensions,
not the bodies of functions or classes it defines), that change the literal in place through the
name: a subscript stored, augmented or deleted (`CFG["k"] = 2`, `FLAGS[:] = [...]`, `del CFG["k"]`)
and a method that changes it (`CFG.update(...)`, `CFG.pop(k)`, `FLAGS.remove(x)`, `S.add(x)`). Each
is kept when it provably leaves the edit in place (another literal key or element, a method that
only reads, `append`, `sort`), else named: it overwrites or takes away the edited entry or
element, or may. Read too (rewrite.later_runs): the literal changed through another name
(`ALIAS = CFG`) and in the functions of the scope a later call runs, at any depth to a bound; a
function from elsewhere is not read.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable
from typing import Any

from radpatch.rewrite.escapes import Escapes
from radpatch.rewrite.later_runs import Unfollowed, reaches, runs_after
from radpatch.rewrite.list_replay import dynamic, edit_survives
from radpatch.rewrite.name_bindings import binding_sites

# methods that leave the edited entry or element where it is, per literal kind
_KEEP = {
    "dict": {"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__", "__iter__"},
    "list": {"index", "count", "copy", "append", "extend", "insert", "sort", "reverse", "__len__", "__iter__"},
    "set": {
        "copy",
        "union",
        "intersection",
        "difference",
        "symmetric_difference",
        "issubset",
        "issuperset",
        "isdisjoint",
        "__contains__",
        "__len__",
        "__iter__",
    },
    "tuple": {"index", "count", "__contains__", "__getitem__", "__len__", "__iter__"},
}
# an object's attributes that hold all of its others, and its dunder methods that change none of them
_WHOLE = frozenset({"__dict__", "__class__"})
_DUNDER_READS = frozenset(
    {"__getattribute__", "__getattr__", "__repr__", "__str__", "__format__", "__eq__", "__ne__", "__hash__"}
    | {"__len__", "__iter__", "__contains__", "__getitem__", "__bool__", "__dir__", "__sizeof__", "__getstate__"}
)
# methods whose first argument is the one key or element they change
_ONE = {"dict": {"pop", "setdefault", "__setitem__", "__delitem__"}, "set": {"add", "discard", "remove"}}
_ONE["list"] = {"remove"}
# a list's methods that add elements (their elements: _added)
_ADDS = frozenset({"append", "insert", "extend"})
# methods whose arguments are collections of keys (a dict's, with keywords) or elements they change
_MANY = {"dict": {"update"}, "set": {"update", "difference_update", "symmetric_difference_update"}}


def later_changes(
    body: list[ast.stmt],
    name: str,
    bound: ast.AST,
    kind: str,
    part: str,
    mode: str,
    free: bool = True,
    values: Callable[[], tuple[list[Any], list[Any]] | None] | None = None,
    escapes: bool = True,
) -> list[ast.AST]:
    """The nodes (a subscript, a method call) after `bound` in the scope's `body` that change the
    `kind` literal (dict, list, set, tuple) `name` holds so that the edit of `part` (a key or an
    element, as expression text) may not be what the module keeps. `mode`: change (a dict entry's
    value), add, remove, or order (a list display whose elements only move; `part` is the new display).
    What runs after `bound`, and through which names: rewrite.later_runs (`free`: as there). A list's
    positions: with `values` (the list before and after the edit, as values, when literals), changes
    a replay of the later statements proves harmless are kept (rewrite.list_replay). `escapes`: where
    the value escapes the walk (rewrite.escapes; a module's or class's value, not a function's local), that place."""
    edited = ast.parse(part.strip(), mode="eval").body
    aug: set[int] = set()
    out: list[ast.AST] = []
    uses = Escapes(body, name, kind)
    for node, names, shown in runs_after(body, name, bound, free, uses.scope.rebound):
        if isinstance(node, ast.AugAssign):
            aug.add(id(node.target))
            if isinstance(node.target, ast.Name) and node.target.id in names:  # att61 F1: `A |= {...}`, A = CFG
                out.append(shown)  # in place, on the value itself (the name's own `CFG |= ...` binds it again)
        if isinstance(node, Unfollowed):
            out.append(shown)
            continue
        escaped = uses.judge(node, names) if escapes else None
        if escaped is not None:
            return [*out, escaped.from_runner(shown, node)]  # esc53: radpatch cannot follow it from there
        node = uses.method_form(node) or node  # `operator.setitem(CFG, k, 1)`: `CFG.__setitem__(k, 1)`
        own = body if shown is node else []  # a followed function's names are its own
        named = _named(node.value, names) if isinstance(node, (ast.Subscript, ast.Attribute)) else False
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            named = named or uses.through_module(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            named = _named(node.func.value, names) or uses.through_module(node.func.value)
        if isinstance(node, ast.Subscript) and named and not isinstance(node.ctx, ast.Load):
            keys = _constants(node.slice, own) or [node.slice]  # `k` bound only to constants: each of them
            if not all(_subscript_keeps(k, kind, edited, mode, id(node) in aug) for k in keys):
                out.append(shown)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and named:
            call = ast.Call(node.func, [_constant(a, own) for a in node.args], node.keywords)
            if not _call_keeps(call, node.func.attr, kind, edited, mode):
                out.append(shown)
    if out and kind == "list" and mode in ("add", "remove") and values is not None:
        got = values()
        if got is not None and edit_survives(body, name, bound, got, mode, part):
            return []
    return out


def later_attributes(
    body: list[ast.stmt], name: str, bound: ast.AST, attr: str, free: bool = True, kind: str | None = "object"
) -> list[ast.AST]:
    """The nodes after `bound` that store or delete the attribute `attr` of the object `name` holds
    (`T.daemon = False`, `del T.daemon`, `setattr(T, "daemon", ...)`, an attribute the text cannot
    tell); an augmented one (`T.size += 1`) is computed from the value before, and kept. Where the
    object (`kind`: an object, a function; None: not asked) escapes the walk (rewrite.escapes), that place."""
    aug: set[int] = set()
    out: list[ast.AST] = []
    uses = Escapes(body, name, kind or "object")
    for node, names, shown in runs_after(body, name, bound, free, uses.scope.rebound):
        if isinstance(node, ast.AugAssign):
            aug.add(id(node.target))
        escaped = uses.judge(node, names) if kind is not None else None
        if isinstance(node, Unfollowed) or escaped is not None:
            out.append(escaped.from_runner(shown, node) if escaped is not None else shown)
            continue
        node = uses.method_form(node) or node  # `object.__setattr__(B, k, 1)`: `setattr(B, k, 1)`
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load) and _named(node.value, names, uses):
            if (node.attr == attr and id(node) not in aug) or node.attr in _WHOLE:  # att61 F3: `B.__dict__ = {...}`
                out.append(shown)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _named(node.func.value, names):
            method = node.func.attr  # `T.setDaemon(True)`, `T.set_daemon(...)`; `B.__init__()` again (att61 F3)
            if _setter(method) == _setter("set" + attr) or (method.startswith("__") and method not in _DUNDER_READS):
                out.append(shown)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            if node.args and _named(node.args[0], names):
                said = _constant(node.args[1], body if shown is node else []) if len(node.args) > 1 else None
                if said is None or _same(said, ast.Constant(attr)) is not False:
                    out.append(shown)
    return out


def _constants(node: ast.expr, body: list[ast.stmt]) -> list[ast.expr] | None:
    """A name every binding of which in the scope (`body`) is `k = <constant>`, as those constants
    (`k = "other"` / `if c: k = "alt"` / `CFG[k] = 3`: one of two other keys, later2 #2); else None."""
    if not isinstance(node, ast.Name) or not body or _unread_store(body, node.id):
        return None
    return _plain_constants(body, node.id)


def _plain_constants(body: list[ast.stmt], name: str) -> list[ast.expr] | None:
    """The constants of `name = <constant>`, where those are all the bindings binding_sites lists; else None."""
    sites = binding_sites(body, name, "module")
    found = {id(t): s.value for s in ast.walk(ast.Module(body, [])) if isinstance(s, ast.Assign) for t in s.targets}
    values = [found.get(id(t)) for t in sites]
    return (
        [v for v in values if isinstance(v, ast.Constant)]
        if values and all(isinstance(v, ast.Constant) for v in values)
        else None
    )


def _constant(node: ast.expr, body: list[ast.stmt]) -> ast.expr:
    """A name the scope (`body`) binds once, by `k = <constant>`, as that constant (`k = "other"` /
    `CFG[k] = 3`: another key); any other node as it is."""
    if not isinstance(node, ast.Name) or not body or _unread_store(body, node.id):
        return node
    sites = binding_sites(body, node.id, "module")  # a module's count: also a `global` function's stores
    for stmt in ast.walk(ast.Module(body, [])) if len(sites) == 1 else ():
        if isinstance(stmt, ast.Assign) and stmt.targets == sites and isinstance(stmt.value, ast.Constant):
            return stmt.value
    return node


def _unread_store(body: list[ast.stmt], name: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the scope may bind `name` in a way binding_sites does not list (att56 F9:
    `globals()["k"] = "timeout"`, `vars()`, `exec`, `setattr`, `sys.modules[__name__].k = ...`).
    A `setattr` whose key cannot be `name` is not one (`k = "other"`; `setattr(B, k, 3)`)."""
    module = ast.Module(body, [])
    stored = (n for n in ast.walk(module) if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load))
    if any(n.attr == name for n in stored):
        return True
    calls = [n for n in ast.walk(module) if isinstance(n, ast.Call)]
    setattrs = [n for n in calls if isinstance(n.func, ast.Name) and n.func.id == "setattr"]
    without = ast.Module([ast.Expr(n) for n in calls if n not in setattrs], [])
    return dynamic(without) or not all(_key_not(c, name, body, seen | {name}) for c in setattrs)


def _key_not(call: ast.Call, name: str, body: list[ast.stmt], seen: frozenset[str]) -> bool:
    """Whether `setattr(obj, key, value)` cannot bind `name`: its key is a string constant other than
    `name`, or a name bound only to such constants (and stored no other way)."""
    if len(call.args) != 3 or call.keywords:
        return False
    key = call.args[1]
    if isinstance(key, ast.Constant):
        return key.value != name
    if not isinstance(key, ast.Name) or (key.id != name and (key.id in seen or _unread_store(body, key.id, seen))):
        return False
    values = _plain_constants(body, key.id)
    return values is not None and all(isinstance(v, ast.Constant) and v.value != name for v in values)


def _named(node: ast.AST, names: frozenset[str], uses: Escapes | None = None) -> bool:
    return reaches(node, names) or (uses is not None and uses.through_module(node))


def _same(a: ast.AST, b: ast.AST) -> bool | None:
    """Whether two keys or elements are equal: True, False, or None when the text cannot say."""
    if ast.dump(a) == ast.dump(b):
        return True
    with contextlib.suppress(ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return bool(ast.literal_eval(a) == ast.literal_eval(b))
    return None


def _subscript_keeps(key: ast.AST, kind: str, edited: ast.AST, mode: str, augmented: bool) -> bool:
    if kind != "dict":
        return False  # a list's positions move with an element added or taken away; a tuple has none
    same = _same(key, edited)
    if augmented and mode == "change":
        return True  # `CFG[k] += 1`: computed from the value the edit gave, whatever k is
    return same is False


def _call_keeps(call: ast.Call, method: str, kind: str, edited: ast.AST, mode: str = "change") -> bool:
    if mode == "order":  # a list's elements reordered: a sort puts them back, a remove may leave one
        return method in _KEEP["list"] - {"sort"}
    if kind == "list" and mode == "remove" and method in _ADDS:  # may put the removed element back
        added = _added(call, method)
        return added is not None and all(_same(a, edited) is False for a in added)
    if method in _KEEP[kind]:
        return True
    if kind == "dict" and method == "setdefault" and mode != "remove":
        return True  # sets a key only where it is missing: the edited entry is there
    if kind == "set" and method == "intersection_update":  # an element each argument holds is left as the edit left it
        shown = (ast.Set, ast.List, ast.Tuple)
        return (
            bool(call.args)
            and not call.keywords
            and all(isinstance(a, shown) and any(_same(e, edited) is True for e in a.elts) for a in call.args)
        )
    if method in _ONE.get(kind, ()):
        return bool(call.args) and not isinstance(call.args[0], ast.Starred) and _same(call.args[0], edited) is False
    if method in _MANY.get(kind, ()):
        parts = _parts(call, kind)
        return parts is not None and all(_same(p, edited) is False for p in parts)
    return False


def _parts(call: ast.Call, kind: str) -> list[ast.AST] | None:
    """The keys (a dict's update) or elements (a set's) the call's arguments hold, written out;
    None when an argument is not a display the text lists."""
    out: list[ast.AST] = []
    for arg in call.args:
        if kind == "dict" and isinstance(arg, ast.Dict) and all(k is not None for k in arg.keys):
            out.extend(k for k in arg.keys if k is not None)
        elif kind == "set" and isinstance(arg, (ast.Set, ast.List, ast.Tuple)):
            if any(isinstance(e, ast.Starred) for e in arg.elts):
                return None
            out.extend(arg.elts)
        else:
            return None
    for kw in call.keywords:
        if kind != "dict" or kw.arg is None:
            return None
        out.append(ast.Constant(kw.arg))
    return out


def _added(call: ast.Call, method: str) -> list[ast.expr] | None:
    """The elements a list's append, insert or extend call adds, written out; None when they are not."""
    args = call.args
    if any(isinstance(a, ast.Starred) for a in args) or call.keywords:
        return None
    if method == "append" and len(args) == 1:
        return [args[0]]
    if method == "insert" and len(args) == 2:
        return [args[1]]
    if method == "extend" and len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple, ast.Set)):
        elts = args[0].elts
        return None if any(isinstance(e, ast.Starred) for e in elts) else list(elts)
    return None


def _setter(method: str) -> str:
    """A method's name as a setter's is compared: `setDaemon`, `set_daemon` and `setdaemon` alike."""
    return method.replace("_", "").lower()
