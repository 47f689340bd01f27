"""The functions of a scope Python may run at a later node without a call naming them, for
rewrite.later_runs (esc53, att57 F1, F2).

A class's methods (any def in its body: dunders, static and class methods, a nested class's) run
where the class is used, and Python runs many without a call naming them (`__init_subclass__`, a
metaclass's `__new__`, `__init__` of `Cls(...)`, `__exit__`, `__set_name__`, `__post_init__`, an
Enum's `__init__`, `__class_getitem__`, `inst.reset()`). The simple sound rule: once its class is
used at all (its name read anywhere in the module, a class deriving from it or using it as a
metaclass), a method may run at any later node that names the class (or a class deriving from it;
not in an annotation) or defines a class deriving from it (its own, where a base or metaclass from
elsewhere or a decorator may run them: an Enum's members); a class used before the binding (an
instance made then) has its methods run from the first later statement. The module's namespace
handed out (`globals()`, `vars()`, `sys.modules`, `__import__`, `importlib.import_module`, not given
a name computed from other parts: module_routes.other_module; an imported name's attribute named
like a def or class of the module: a self-import) lets any function
of the module run: every def is followed from there. Each is followed late (at any time after),
seeing the scope's names.

Standard library only (`ast`)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from radpatch.rewrite.import_callees import own
from radpatch.rewrite.module_routes import looked_up, module_keys, module_names, namespace_use, other_module
from radpatch.rewrite.passed_values import passed
from radpatch.rewrite.self_calls import bound as gets_self
from radpatch.rewrite.self_calls import self_method

if TYPE_CHECKING:
    from radpatch.rewrite.import_callees import Function

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_STORES = frozenset({"update", "setdefault", "__setitem__", "__delitem__", "pop", "clear"})
_Item = tuple[ast.AST, frozenset[str], ast.AST]
_Follow = Callable[["Function", set[str]], Iterator[_Item]]


class Implicitly(ast.expr):
    """The node of the scope's code a refusal names for a change in a function Python may run there
    without a call naming it: `shown`, and the function (`what`: `Base.__init_subclass__`)."""

    def __init__(self, shown: ast.AST, what: str) -> None:
        super().__init__()
        self.shown, self.what = shown, what
        self.lineno, self.col_offset = getattr(shown, "lineno", 0), getattr(shown, "col_offset", 0)


def shown_text(node: ast.AST, width: int = 60) -> str:
    """A node as a refusal quotes it, cut to `width`; an implicit run's first line, with its function."""
    if isinstance(node, Implicitly):
        return f"{shown_text(node.shown, width).splitlines()[0]}`, which may run `{node.what}"
    said = ast.unparse(node)
    return said if len(said) <= width else said[: width - 3] + "..."


class Implicit:
    """A scope's classes (by name: their methods, the class names each derives from or uses as a
    metaclass), its defs, and the names it imports."""

    def __init__(self, body: Sequence[ast.AST], start: tuple[int, int]) -> None:
        self.methods: dict[str, list[Function]] = {}
        self.bases: dict[str, set[str]] = {}
        self.defs: list[Function] = []
        self.named: dict[int, str] = {}
        ran = list(own(body))
        for node in ran:
            if isinstance(node, ast.ClassDef):
                inner = [n for n in own(node.body) if isinstance(n, _DEFS)]
                self.named.update((id(n), f"{node.name}.{n.name}") for n in inner)
                self.methods.setdefault(node.name, []).extend(inner)
                said = [*node.bases, *(k.value for k in node.keywords)]
                self.bases.setdefault(node.name, set()).update(_names(said))
            elif isinstance(node, _DEFS):
                self.defs.append(node)
        walked = list(ast.walk(ast.Module(list(body), [])))  # type: ignore[arg-type]
        self.parents = {id(c): n for n in walked for c in ast.iter_child_nodes(n)}
        self.body, self.classes = body, {n.name: n for n in walked if isinstance(n, ast.ClassDef)}
        self.imports = module_names(body)
        self.keys = module_keys(body)
        held = {id(n) for c in ran if isinstance(c, ast.ClassDef) for n in own(c.body)}  # in a class body
        self.top = {n.name for n in ran if isinstance(n, (*_DEFS, ast.ClassDef)) and id(n) not in held}
        self.hinted = {id(n) for a in walked for h in _annotations(a) for n in ast.walk(h)}
        loads = [n for n in walked if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
        used = {n.id for n in loads if (n.lineno, n.col_offset) < start and id(n) not in self.hinted}
        self.earlier = [c for c in self.methods if c in used]  # instances made before may run them later
        self.pending = True  # the first statement after the binding not reached yet

    def run_by(self, node: ast.AST, names: frozenset[str]) -> list[tuple[Function, set[str]]]:
        """The functions Python may run at `node` without a call naming them, each with the parameters
        `node` passes the value to (`Cls(CFG)`: `__init__`'s and `__new__`'s after the first;
        `Cls.m(CFG)`: m's, after the first for a classmethod)."""
        if (namespace_use(node) and self._hands_out(node)) or self._self_import(node):
            return [(f, set()) for f in [*self.defs, *(m for ms in self.methods.values() for m in ms)]]
        if isinstance(node, ast.ClassDef):
            said = _names([*node.bases, *(k.value for k in node.keywords)])
            # its own methods run at its definition only through code radpatch does not read: a base or
            # metaclass from elsewhere (an Enum's members, `__init_subclass__` there), a decorator
            foreign = node.keywords or node.decorator_list or any(b not in {*self.methods, "object"} for b in said)
            return [(f, set()) for f in self._of(said | ({node.name} if foreign else set()))]
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in self.methods:
            return [(f, set()) for f in self._of({node.id})] if id(node) not in self.hinted else []
        if isinstance(node, ast.Call) and self.parents.get(id(node.func)) is node:
            return self._given(node, names)
        return []

    def _given(self, call: ast.Call, names: frozenset[str]) -> list[tuple[Function, set[str]]]:
        func = call.func
        by_text = looked_up(func, self.imports)  # `getattr(sys.modules[__name__], "_reset")(CFG)`
        if by_text is not None:
            return [(f, passed(call, f, names)) for f in self.defs if getattr(f, "name", "") == by_text]
        shifted = ast.Call(func, [ast.Constant(None), *call.args], call.keywords)  # `self`, `cls` first
        if isinstance(func, ast.Name) and func.id in self.methods:
            made = [f for f in self._of({func.id}) if getattr(f, "name", "") in ("__init__", "__new__")]
            return [(f, passed(shifted, f, names)) for f in made]
        mine = self_method(func, self.parents, self.classes, self.body)  # `self._apply(CFG)` (att62 F12)
        if mine:
            return [(f, passed(shifted if gets_self(f) else call, f, names)) for f in mine]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.methods:
            out = []
            for f in (f for f in self._of({func.value.id}) if getattr(f, "name", "") == func.attr):
                bound = any(ast.unparse(d) == "classmethod" for d in getattr(f, "decorator_list", []))
                out.append((f, passed(shifted if bound else call, f, names)))
            return out
        return []

    def around(self, items: Iterator[_Item], node: ast.AST, follow: _Follow, names: frozenset[str]) -> Iterator[_Item]:
        """`items` (what `node`, where `names` hold the value, runs, as later_runs walks it), with the
        functions each of them (and `node`) may run implicitly followed right after it (`follow`: the
        walk's, memoized); at the first statement after the binding, the methods of classes used before it."""
        if self.pending and isinstance(node, ast.stmt):
            self.pending = False
            yield from self._run(((f, set()) for f in self._of(set(self.earlier))), follow)
        yield from self._run(self.run_by(node, names), follow)
        for item in items:
            yield item
            yield from self._run(self.run_by(item[0], item[1]), follow)

    def _run(self, fns: Iterable[tuple[Function, set[str]]], follow: _Follow) -> Iterator[_Item]:
        for fn, given in fns:
            what = self.named.get(id(fn), getattr(fn, "name", "lambda"))
            said = ((n, names, Implicitly(shown, what)) for n, names, shown in follow(fn, given))
            yield from self.around(said, ast.Pass(), follow, frozenset())

    def _of(self, classes: set[str]) -> list[Function]:
        """The methods of `classes` and of the classes they derive from (by name, in this scope)."""
        seen: set[str] = set()
        todo = [c for c in classes if c in self.methods]
        out: list[Function] = []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            out += self.methods.get(name, [])
            todo += [b for b in self.bases.get(name, ()) if b in self.methods]
        return out

    def _hands_out(self, node: ast.AST) -> bool:
        """The namespace or module object `node` gives is used other than to store into it (`globals()[
        "X"] = 1`, `vars().update(X=1)`, `setattr(sys.modules[__name__], "X", 1)`: rewrite.module_stores)."""
        at, parent = node, self.parents.get(id(node))
        if isinstance(node, ast.Attribute) and isinstance(parent, (ast.Subscript, ast.Attribute)):
            at, parent = parent, self.parents.get(id(parent))  # `sys.modules[...]`, `sys.modules.get`
            if isinstance(parent, ast.Call) and parent.func is at:
                at, parent = parent, self.parents.get(id(parent))
        if other_module(at, self.keys):
            return False  # `importlib.import_module(self.name)`: another module's namespace
        if isinstance(parent, (ast.Subscript, ast.Attribute)) and not isinstance(parent.ctx, ast.Load):
            return False
        if isinstance(parent, ast.Attribute) and parent.attr in _STORES:
            return False
        setter = isinstance(parent, ast.Call) and getattr(parent.func, "id", "") in ("setattr", "delattr")
        return not (setter and parent.args[:1] == [at])  # type: ignore[union-attr]

    def _self_import(self, node: ast.AST) -> bool:
        """`_me._reset` where `_me` is imported: maybe the module itself (radpatch does not know its name)."""
        root = node.value if isinstance(node, ast.Attribute) else None
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in self.imports and getattr(node, "attr", "") in self.top


def _annotations(node: ast.AST) -> list[ast.expr]:
    """The annotations `node` holds (a parameter's, a def's return, an annotated assignment's)."""
    if isinstance(node, ast.arg):
        return [node.annotation] if node.annotation is not None else []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.returns] if node.returns is not None else []
    return [node.annotation] if isinstance(node, ast.AnnAssign) else []


def _names(nodes: list[ast.expr]) -> set[str]:
    return {n.id for part in nodes for n in ast.walk(part) if isinstance(n, ast.Name)}
