"""Where the value a name holds escapes the walk of rewrite.later_runs (esc53, att57 F1-F3): radpatch cannot follow
every route a value takes, so it knows where it stops following.

After the binding, in the scope's code and every function the walk follows, each place an expression may be the
value (a name holding it, `T[0]`, the name read through the module object: `sys.modules[__name__].CFG`,
`vars()["CFG"]`, `_me.CFG`) must be a use the walk reads (an allow-list): an item or attribute read, stored or
deleted and a method called on it (judged by rewrite.later_changes, also `operator.setitem(CFG, ...)` and the like:
rewrite.module_routes), a reading method taken, an operand, a test, a statement, a format, an annotation, iteration,
spreading, an alias rewrite.passed_values binds, a display bound to names or looped over, an argument of a function
the walk follows (the module's, its classes' constructors and methods, one looked up by string) or treats as unknown
(a parameter, a loop variable: every function let out runs), of a pure builtin (known_callees) or a reader
(`json.dumps`, `logger.info`), a default of a def only called by its name. Anything else is `Escaped`, refused by
name and line: passed to a class from elsewhere, another object's method or an imported function
(`HOLD.append(CFG)`), a bound method taken (`put = CFG.__setitem__`), stored in a container or attribute, returned,
a `with`. A comprehension's own variable of the same name is not the value; `{**CFG}` copies its items. Standard
library only."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Sequence

from radpatch.rewrite.call_arguments import CallArguments, Escaped
from radpatch.rewrite.import_callees import Callees
from radpatch.rewrite.known_callees import short_text
from radpatch.rewrite.module_routes import (
    callee_name,
    comprehension_local,
    module_keys,
    module_like,
    module_names,
    namespace_call,
)
from radpatch.rewrite.namespace_escapes import Namespaces
from radpatch.rewrite.passed_values import reaches

_BUILTINS = frozenset(dir(builtins))
_SHOWN = frozenset({"len", "print", "map", "bool", "any", "all"})  # given a display holding the value
_READS = {
    "dict": {"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__", "__iter__"},
    "list": {"index", "count", "copy", "__len__", "__iter__", "__getitem__", "__contains__"},
    "set": {"copy", "union", "intersection", "difference", "issubset", "issuperset", "isdisjoint", "__contains__"},
    "tuple": {"index", "count", "__contains__", "__getitem__", "__len__", "__iter__"},
}
_DISPLAYS = (ast.Tuple, ast.List, ast.Set, ast.Dict)
_TESTS = (ast.If, ast.While, ast.Assert, ast.IfExp, ast.comprehension)


class Escapes(CallArguments):
    """The uses of the value in one scope's code (`body`), judged: where it escapes."""

    def __init__(self, body: Sequence[ast.AST], name: str, kind: str) -> None:
        self.name, self.kind = name, kind
        self.parents: dict[int, ast.AST] = {}
        for node in ast.walk(ast.Module(list(body), [])):  # type: ignore[arg-type]
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
        self.imports = module_names(body)
        # `_g = globals()`: indexed as the namespace; `_ME = __name__`: `sys.modules[_ME]` may be the module
        self.spaces, self.keys = module_names(body, imports=False), module_keys(body)
        self.scope = Callees(body)
        walked = ast.walk(ast.Module(list(body), []))  # type: ignore[arg-type]
        self.defined = {n.name: n for n in walked if isinstance(n, ast.ClassDef)}
        self.classes = set(self.defined)
        self.body, self.foreign = body, None
        self.ns = Namespaces(body, self.parents, name, self.keys, self._own_code)  # att61 F7: `globals().get`

    def judge(self, node: ast.AST, names: frozenset[str]) -> Escaped | None:
        """Where `node` (one node of the code that runs after the binding) is the value, or a display
        or container holding it, used other than as the walk reads: the escape, else None. A function
        (set_default's) escapes to code from elsewhere, by a method taken, stored in an attribute or a class
        attribute (`C.g = f`, then `C.g.__defaults__ = ...`) and changed through an expression that may give it
        back (`(f or g).__defaults__ = ...`); kept in a display or returned, its defaults change only by what
        the walk judges."""
        said = self._judge(node, names)
        reasons = (" is passed to ", " is changed through ", " is stored")
        elsewhere = said is not None and (any(r in said.reason for r in reasons) or said.reason.endswith(" is taken"))
        return None if said is not None and self.kind == "function" and not elsewhere else said

    def _judge(self, node: ast.AST, names: frozenset[str]) -> Escaped | None:
        handed = self.ns.escape(node)
        if handed is not None:
            return Escaped(handed[0], f"{handed[1]}: {self.name} is passed to code radpatch does not read")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in names and not comprehension_local(node, self.parents):  # not `[X for X in ...]`
                return self._context(node, names)
            if node.id + "[]" in names and not self._indexed(node):
                return self._container(node, names)
        elif (isinstance(node, ast.Subscript) and reaches(node, names)) or self.through_module(node):
            return self._context(node, names)
        return None

    def through_module(self, node: ast.AST) -> bool:
        """`node` reads the name through the module object: `<module>.CFG` (an imported name: the
        module itself, maybe), `globals()["CFG"]`, `vars(...)[k]`, `getattr(<module>, k)` (a key the
        text does not tell may be it)."""
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr == self.name:
            return self.module(node.value)
        if self.ns.keyed(node):
            return True  # `globals()["CFG"]`, `h.__globals__.get("CFG")`
        if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Call, ast.Name)):
            spaces = namespace_call(node.value) or (isinstance(node.value, ast.Name) and node.value.id in self.spaces)
            return spaces and self._key_may_be(node.slice)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            told = isinstance(node.args[1], ast.Constant) if len(node.args) >= 2 else False
            return len(node.args) >= 2 and self.module(node.args[0], not told) and self._key_may_be(node.args[1])
        return False

    def _key_may_be(self, key: ast.AST) -> bool:
        return not isinstance(key, ast.Constant) or key.value == self.name

    def module(self, node: ast.AST, strict: bool = False) -> bool:
        return module_like(node, self.imports, self.spaces, strict, self.keys)

    def _indexed(self, node: ast.AST) -> bool:
        parent = self.parents.get(id(node))
        return isinstance(parent, ast.Subscript) and parent.value is node

    def _container(self, node: ast.Name, names: frozenset[str]) -> Escaped | None:
        """A name holding a display the value is in (`T` after `T = (CFG,)`): looped over by a name,
        measured, spread into a call, passed to a function the walk follows; else an escape."""
        parent = self.parents.get(id(node))
        if isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is node and isinstance(parent.target, ast.Name):
            return None
        if isinstance(parent, (ast.Compare, ast.Expr)) or (isinstance(parent, ast.Starred) and self._call_of(parent)):
            return None
        call = self._call_of(node)
        if call is not None and (callee_name(call) == "len" or self._followed(call)):
            return None
        return Escaped(node, f"{node.id}, holding {self.name}, is used")

    def _call_of(self, node: ast.AST) -> ast.Call | None:
        """The call `node` is an argument of (positional, keyword or spread), or None."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.keyword) or (isinstance(parent, ast.Starred) and parent.value is node):
            node, parent = parent, self.parents.get(id(parent))
        if isinstance(parent, ast.Call) and parent.func is not node:
            return parent
        return None

    def _context(self, node: ast.AST, names: frozenset[str]) -> Escaped | None:  # noqa: C901, PLR0911, PLR0912
        shown = short_text(node)
        at = node
        parent = self.parents.get(id(node))
        while isinstance(parent, (ast.BoolOp, ast.IfExp, ast.NamedExpr)) and _passes(parent, at):
            at, parent = parent, self.parents.get(id(parent))  # the result may be the value itself
        if at is not node and isinstance(parent, (ast.Subscript, ast.Attribute)) and parent.value is at:
            read = isinstance(parent, ast.Subscript) or self._reads(parent.attr)
            if not (isinstance(parent.ctx, ast.Load) and read):  # att61 F4: `(CFG or {})[k] = 1`
                return Escaped(parent, f"{shown} is changed through `{short_text(at)}`")
        if isinstance(parent, ast.Attribute) and parent.value is at:
            above = self.parents.get(id(parent))
            called = isinstance(above, ast.Call) and above.func is parent
            if called or not isinstance(parent.ctx, ast.Load) or self._reads(parent.attr):
                return None
            return Escaped(parent, f"{shown}.{parent.attr} is taken")
        if isinstance(parent, ast.Subscript) or isinstance(parent, (ast.Compare, ast.BinOp, ast.UnaryOp)):
            return None
        if isinstance(parent, ast.arg) or at in (getattr(parent, "returns", None), getattr(parent, "annotation", None)):
            return None  # an annotation: a type named, not the value handed on
        if isinstance(parent, ast.Call) and parent.func is at:
            return None  # called: a function of the module the walk follows (a literal is not callable)
        if self.kind == "function" and at in getattr(parent, "decorator_list", ()):
            return None  # a decorator: called, and followed
        if isinstance(parent, (ast.Expr, ast.FormattedValue, ast.Starred, ast.AugAssign, *_TESTS)):
            return None  # a test (a branch of `x if c else y` climbed above), iterated, spread, merged in
        if isinstance(parent, ast.Dict) and any(k is None and v is at for k, v in zip(parent.keys, parent.values)):
            return None  # `{**CFG}`: its items copied (esc55)
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and parent.value is at:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            classy = isinstance(self.parents.get(id(parent)), ast.ClassDef)  # a class attribute (att61 F2)
            if all(isinstance(t, ast.Name) for t in targets) and not classy:
                return None  # an alias
            return Escaped(parent, f"{shown} is stored")
        if isinstance(parent, ast.Match) and parent.subject is at:
            return None  # its captures are aliases (rewrite.passed_values)
        if isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is at:
            return None  # its keys or elements
        if isinstance(parent, _DISPLAYS) and not (isinstance(parent, ast.Dict) and at in parent.keys):
            return self._display(parent, shown)
        call = self._call_of(at)
        if call is not None:
            return self._argument(call, at, shown)
        if isinstance(parent, ast.arguments) and self._called_only(self.parents.get(id(parent))):
            return None  # a default of a function only called by its name: the call passes it (passed_values)
        what = {ast.arguments: "a parameter default", ast.Return: "returned", ast.withitem: "a `with`"}
        said = what.get(type(parent), type(parent).__name__) if parent is not None else "code"
        while parent is not None and not hasattr(parent, "lineno"):
            parent = self.parents.get(id(parent))
        return Escaped(parent or node, f"{shown} is handed on ({said})")

    def _reads(self, attr: str) -> bool:
        if self.kind in _READS:
            return attr in _READS[self.kind]
        if self.kind == "function":
            return attr != "__setattr__"  # `f.__name__`, `f.__defaults__` (a tuple), `f.__wrapped__`
        return not attr.startswith("__") and not attr.lower().startswith("set")  # an object's field read

    def _display(self, display: ast.AST, shown: str) -> Escaped | None:
        """A display holding the value: bound to names (a container the walk tracks), unpacked into
        names, looped over by a name, compared, or given to a builtin of _SHOWN."""
        parent = self.parents.get(id(display))
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is display:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if all(isinstance(t, ast.Name) or _unpacks(t, display) for t in targets):
                return None
        elif isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is display:
            if isinstance(parent.target, ast.Name):
                return None
        elif isinstance(parent, (ast.Compare, ast.Expr)) or (
            isinstance(parent, ast.Subscript) and parent.slice is display
        ):
            return None  # compared, a statement, a subscript's key (`Generic[T, U]`)
        call = self._call_of(display)
        above = self.parents.get(id(display))
        spread = isinstance(above, ast.Starred) or (isinstance(above, ast.keyword) and above.arg is None)
        if call is not None and spread and self._followed(call):
            return None  # `f(*[CFG])`, `f(**{"d": CFG})`: every parameter may hold it (rewrite.later_runs)
        if call is not None and not spread:
            if callee_name(call) in _SHOWN and self._builtin(call) and self._maps_own(call):
                return None
            return Escaped(call, f"{shown} is passed to {short_text(call.func)} in a display")
        return Escaped(display, f"{shown} is put in a display")


def _passes(parent: ast.AST, child: ast.AST) -> bool:
    """Whether `parent`'s result may be `child`'s value: a `:=`'s value, an operand of `or`/`and`,
    a branch (not the test) of a conditional expression."""
    if isinstance(parent, ast.IfExp):
        return child is not parent.test
    return not isinstance(parent, ast.NamedExpr) or parent.value is child


def _unpacks(target: ast.AST, display: ast.AST) -> bool:
    elts = getattr(display, "elts", None)
    if not isinstance(target, (ast.Tuple, ast.List)) or elts is None or len(elts) != len(target.elts):
        return False
    return all(isinstance(t, ast.Name) for t in target.elts)
