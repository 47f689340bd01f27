"""A method renamed inside its class (issue 23, port45): the class the entry's `scope: C.size` names is
still defined, but its body binds `size = size_of` beside `def size_of`. The code is not gone: port
follows it as it follows a module-level rename (radpatch.releases.renamed_port), `scope: C.size_of`.

Read with `ast` only, by the module-level rules (radpatch.releases.renamed), conservatively:
- `C` is the module's one binding of its name, a top-level class; no star import or namespace store;
- the alias is the class body's one binding of `size`, a plain `size = size_of` at the class body's
  top level, after `def size_of`, itself the body's one binding of `size_of`;
- nothing may rebind `size` after the body ran: no attribute store or `del` of `.size` anywhere in the
  module (`C.size = ...`, `cls.size = ...`, `self.size = ...`: which object it is is not read), no
  `setattr`/`delattr`/`__setattr__` that may name it, no `locals()` in the class body, no call in the
  class body (what it makes may have a `__set_name__`), nothing the module-level rules refuse
  (releases.namespace_stores.dynamic: `exec`, `setattr` under another name, a `__dict__`);
- nothing runs on the class once made: no decorator on `C`, no keyword in its header (`metaclass=`,
  arguments of `__init_subclass__`), no `__init_subclass__` of its own, and each base is `object` or a
  class of the module that passes the same header rules (a base from elsewhere may have a metaclass
  or an `__init_subclass__` that rebinds the name).
A class nested in another (`Outer.Inner.size`, port47) is read down the nesting, each class bound once
in the one above, every class on the way by the same header and body rules, and a store of a nested
class's own name (`Outer.Inner = ...`) refuses too; the alias may be annotated (`size: T = size_of`).
A refusal is said (`found` gives its words): the cell names it. A store from another module
(`mod.C.size = ...`) is read by radpatch.releases.renamed_release."""

from __future__ import annotations

import ast

from radpatch import source_lines
from radpatch.prove.names.closures import own_nodes
from radpatch.releases import renamed
from radpatch.releases.namespace_stores import dynamic, literal_stores
from radpatch.releases.renamed import Renamed
from radpatch.rewrite.name_bindings import binding_sites

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def found(source: bytes, qualname: str, module: str) -> Renamed | str | None:
    """The class-body alias keeping `qualname`'s method name (`C.size`), a Renamed to `C.size_of`; a
    str when the class body binds the name to another method but something may rebind it (why);
    None when the class body shows no such alias."""
    parts = qualname.split(".")
    if len(parts) < 2:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    bound = renamed._only_statements_bind(tree, parts[0], dynamic_too=False)  # dynamic ones: rebinds says
    cls = renamed._only_binding(tree.body, parts[0]) if bound else None
    if not isinstance(cls, ast.ClassDef):
        return None
    outer: list[ast.ClassDef] = []
    while len(outer) + 2 < len(parts):  # `Outer.Inner.size`: down the nested classes, each bound once
        sites = binding_sites(cls.body, parts[len(outer) + 1], "class")
        inner = sites[0] if len(sites) == 1 and sites[0] in cls.body else None
        if not isinstance(inner, ast.ClassDef):
            break
        outer.append(cls)
        cls = inner
    cls_name, meth = ".".join(parts[: len(outer) + 1]), parts[len(outer) + 1]
    sites = binding_sites(cls.body, meth, "class")
    site = sites[0] if len(sites) == 1 else None
    alias = next((s for s in cls.body if _aliases(s, site)), None)  # `size = size_of`, `size: T = size_of`
    value = alias.value if isinstance(alias, ast.Assign | ast.AnnAssign) else None
    if alias is None or not isinstance(value, ast.Name):
        return None
    new = value.id
    defs = binding_sites(cls.body, new, "class")
    if new == meth or len(defs) != 1 or not isinstance(defs[0], _FUNCS) or defs[0] not in cls.body:
        return None
    if defs[0].lineno > alias.lineno:
        return None
    lines = source_lines.split(source.decode("utf-8", "replace"))
    text = lines[alias.lineno - 1].strip() if alias.lineno <= len(lines) else ""
    why = rebinds(tree, cls, meth, tuple(outer))
    if why is not None:
        return f"`{text}` in class {cls_name} (line {alias.lineno}) is not followed as a rename: {why}"
    return Renamed(f"{cls_name}.{meth}", module, f"{cls_name}.{new}", module, alias.lineno, text)


def _aliases(stmt: ast.stmt, site: ast.AST | None) -> bool:
    """`stmt` is a plain alias whose one target is `site`: `size = size_of`, or annotated `size: T = size_of`."""
    if isinstance(stmt, ast.Assign):
        return len(stmt.targets) == 1 and stmt.targets[0] is site
    return isinstance(stmt, ast.AnnAssign) and stmt.value is not None and stmt.target is site


def rebinds(tree: ast.Module, cls: ast.ClassDef, meth: str, outer: tuple[ast.ClassDef, ...] = ()) -> str | None:
    """What may rebind `meth` on the class after its body ran, in words; None when nothing may. `outer`:
    the classes `cls` is nested in, outermost first, each read by the same header and body rules."""
    for each in (*outer, cls):
        header = _header(tree, each, set())
        if header is not None:
            return header
    hazard = dynamic(tree)
    if hazard is not None:
        return hazard[1]
    names = [meth, *(c.name for c in (*outer, cls)[1:])]  # a nested class's own name rebound: `Outer.Inner = X`
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Attribute) and node.attr in names and isinstance(node.ctx, ast.Store | ast.Del):
            return f"an attribute store of `.{node.attr}` (line {line}) may rebind it"
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            said = next((n for n in names if _may_name(node, n)), None)
            if called in ("setattr", "delattr", "__setattr__", "__delattr__") and said is not None:
                return f"`{called}` (line {line}) may rebind `{said}`"
            run = next((n for n in names if n in literal_stores(node)), None)
            if run is not None:  # literal code run by exec, read as code (dynamic: any other)
                return f"code run by `{called}` (line {line}) may rebind `{run}`"
    body = [n for each in (*outer, cls) for n in own_nodes(each)]
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "locals" for n in body):
        return "the class body calls `locals()`, which may store the name"
    made = next((n for n in body if isinstance(n, ast.Call)), None)
    if made is not None:  # `hook = Hook()`: its `__set_name__` runs on the class once made
        return (
            f"the class body calls `{ast.unparse(made.func)}` (line {made.lineno}): what it makes may rebind "
            "the class's names once the class is made (`__set_name__`)"
        )
    return None


def _header(tree: ast.Module, cls: ast.ClassDef, seen: set[str]) -> str | None:
    """What in `cls`'s header (or a base's) may run code on the class once made, in words."""
    seen.add(cls.name)
    if cls.decorator_list:
        return f"class {cls.name} has a decorator, which may rebind its attributes"
    if cls.keywords:
        return f"class {cls.name} has a keyword in its header (a metaclass or `__init_subclass__` arguments)"
    if any(isinstance(s, _FUNCS) and s.name == "__init_subclass__" for s in cls.body):
        return f"class {cls.name} defines `__init_subclass__`, which may rebind its subclasses' attributes"
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id == "object":
            continue
        named = base.id if isinstance(base, ast.Name) else ast.unparse(base)
        found = renamed._only_binding(tree.body, named) if isinstance(base, ast.Name) else None
        if not isinstance(found, ast.ClassDef) or named in seen:
            return (
                f"class {cls.name}'s base {named} is not a class of this module: its metaclass or "
                "`__init_subclass__` may rebind the name"
            )
        why = _header(tree, found, seen)
        if why is not None:
            return why
    return None


def _may_name(call: ast.Call, meth: str) -> bool:
    """A setattr-like call may name `meth`: one of its string constants is `meth`, or it has none."""
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return not names or meth in names
