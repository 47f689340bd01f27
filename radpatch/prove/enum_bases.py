"""Is the class an insert_definitions payload constant goes into an enum, with its bases followed
across the install's files? A plain constant in an enum's body becomes a new member (att55 F2: a
base `ModeBase(enum.Enum)` imported from another module of the package). The rewrite refuses what
the class header itself says (rewrite/ops/common/class_facts.special_class); this follows each base
(and the metaclass) without importing anything: a class of the same module defined above it, a name
imported from another module (absolute, relative, aliased, re-exported through a package
`__init__`, a star import as `__all__` says: prove.star_exports), a nested class (`Kinds.Base`),
every binding of the name that may be in effect (`try`/`except ImportError`, `if`/`else`), read from
the target's import path (apply) or the wheel's package files (verify), to one of enum's classes or
EnumMeta/EnumType. Depth-bounded and cycle-safe.

A base that cannot be followed (outside what the reader has, a call, a dynamic module) is unknown:
"may be an enum" when its name or module says `enum`/`Flag`; else unfollowed, which
prove.enum_members asks the target interpreter (apply) and verify leaves (docs/safety.md). The
refusal itself is prove.enum_members'."""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from radpatch.prove.names.import_lookup import resolved
from radpatch.prove.star_exports import Read, star_binds

_ENUM_CLASSES = frozenset(
    {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum", "EnumMeta", "EnumType", "EnumDict"}
)
_DEPTH, _BUILTINS = 12, frozenset(dir(builtins))


@dataclass(frozen=True)
class Verdict:
    """True: an enum (`how`: the chain of bases that shows it); None: a base radpatch cannot follow
    whose name or module says it may be one (`how`: which); False: not an enum as far as the files tell
    (`unfollowed`: a base with a neutral name they cannot tell, `how` says which)."""

    enum: bool | None
    how: str
    unfollowed: bool = False


@dataclass(frozen=True)
class _ReadModule:
    name: tuple[str, bool] | None  # (dotted, is a package)
    tree: ast.Module


def class_verdict(read: Read, me: tuple[str, bool] | None, source: bytes, qualname: str) -> Verdict:
    """Is class `qualname` of the module (`source`, named `me`) an enum?"""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Verdict(False, "")
    node = _class_of(tree.body, qualname.split("."))
    if node is None:
        return Verdict(False, "")
    found = _class(read, _ReadModule(me, tree), node, ())
    return Verdict(found[0], f"class {qualname!r}{found[1]}", found[0] is False and bool(found[1]))


def _class_of(body: list[ast.stmt], parts: list[str]) -> ast.ClassDef | None:
    hits = [n for n in _module_level(body) if isinstance(n, ast.ClassDef) and n.name == parts[0]]
    return None if not hits else hits[-1] if len(parts) == 1 else _class_of(hits[-1].body, parts[1:])


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run at module level: the top ones and those in if/try/with/for blocks."""
    out: list[ast.stmt] = []
    for n in body:
        out.append(n)
        if isinstance(n, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            for field in ("body", "orelse", "finalbody"):
                out.extend(_module_level(getattr(n, field, [])))
            for h in getattr(n, "handlers", []):
                out.extend(_module_level(h.body))
    return out


def _class(read: Read, m: _ReadModule, node: ast.ClassDef, seen: tuple[str, ...]) -> tuple[bool | None, str]:
    exprs = [*node.bases, *(k.value for k in node.keywords if k.arg == "metaclass")]
    maybe: tuple[bool | None, str] | None = None
    unfollowed = ""  # (False, how): a base with a neutral name radpatch cannot follow
    for e in exprs:
        enum, how = _expr(read, m, e, node.lineno, seen)
        said = f" (base {ast.unparse(e)}{how})"
        if enum:
            return True, said
        if enum is None and maybe is None:
            maybe = None, said
        if enum is False and how and not unfollowed:
            unfollowed = said
    return maybe or (False, unfollowed)


def _expr(read: Read, m: _ReadModule, e: ast.expr, line: int, seen: tuple[str, ...]) -> tuple[bool | None, str]:
    """Is the base (or metaclass) expression an enum class, or a class derived from one?"""
    if isinstance(e, ast.Subscript):  # Generic[T], a parametrised base: its class; not a namespace's entry
        if isinstance(e.value, ast.Call) or isinstance(e.value, ast.Attribute) and e.value.attr == "__dict__":
            return _unknown(ast.unparse(e))  # `vars(m)[k]`, `m.__dict__[k]`: what the key names
        return _expr(read, m, e.value, line, seen)
    parts: list[str] = []
    while isinstance(e, ast.Attribute):
        parts.insert(0, e.attr)
        e = e.value
    if not isinstance(e, ast.Name):
        return _unknown(ast.unparse(e))
    return _name(read, m, e.id, parts, line, seen)


def _unknown(said: str) -> tuple[bool | None, str]:
    """A base radpatch cannot follow: None (it may be an enum) when its name says so, else False with
    `how` said (unfollowed: enum_members asks the target interpreter where there is one)."""
    how = f", which radpatch cannot follow: {said}"
    return (None, how) if "enum" in said.lower() or said.endswith("Flag") else (False, how)


def _name(
    read: Read, m: _ReadModule, name: str, attrs: list[str], line: int | None, seen: tuple[str, ...]
) -> tuple[bool | None, str]:
    """What `name` (then `.attrs`) of module `m` is, bound above `line` (None: anywhere at module level).
    Every binding that may be in effect counts (att56 F5: `try`/`except ImportError`, `if`/`else`):
    back from the last one to the last that runs unconditionally. An enum in all: an enum; in some:
    it may be one."""
    key = f"{m.name[0] if m.name else '?'}:{name}.{'.'.join(attrs)}"
    if key in seen or len(seen) >= _DEPTH:
        return _unknown(name)
    seen = (*seen, key)
    top = {id(n) for n in m.tree.body}
    told: list[tuple[bool | None, str]] = []
    for n in reversed(_module_level(m.tree.body)):
        if line is not None and n.lineno >= line:
            continue
        got = _binding(read, m, n, name, attrs, seen)
        if got is None:
            continue
        told.append(got[0])
        if got[1] and id(n) in top:
            break
    else:  # no binding that surely runs: the name may be unbound here (a builtin, or NameError)
        told.append((False, "") if name in _BUILTINS and not attrs else _unknown(".".join([name, *attrs])))
    enums = [t for t in told if t[0]]
    if enums:
        if len(enums) == len(told):
            return enums[0]
        return None, f"{enums[0][1]}, in one of the bindings of {name!r} that may be in effect"
    return next((t for t in told if t[0] is None), next((t for t in told if t[1]), (False, "")))


def _binding(
    read: Read, m: _ReadModule, n: ast.stmt, name: str, attrs: list[str], seen: tuple[str, ...]
) -> tuple[tuple[bool | None, str], bool] | None:
    """What statement `n` binds `name` to (then `.attrs`), and whether it surely binds it; None: it does not."""
    if isinstance(n, ast.ClassDef) and n.name == name:
        return _class_attr(read, m, n, attrs, seen), True
    value = None
    if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
        value = n.value
    if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
        value = n.value
    if value is not None:
        for attr in attrs:
            value = ast.Attribute(value, attr, ast.Load())
        return _expr(read, m, value, n.lineno, seen), True
    if isinstance(n, ast.ImportFrom):
        for a in n.names:
            base = resolved(n, m.name)
            if a.name == "*":  # att56 F3: a star import binds what the module exports (`__all__`)
                star = _star(read, base, name, attrs, seen)
                if star is not None:
                    return star
            elif (a.asname or a.name) == name:
                return (_unknown(a.name) if base is None else _in_module(read, base, [a.name, *attrs], seen)), True
    if isinstance(n, ast.Import):
        for a in n.names:
            if a.asname == name:
                return _in_module(read, a.name, attrs, seen), True
            if a.asname is None and a.name.split(".")[0] == name:
                dotted = a.name.split(".")
                k = 1
                while k < len(dotted) and k <= len(attrs) and attrs[k - 1] == dotted[k]:
                    k += 1
                return _in_module(read, ".".join(dotted[:k]), attrs[k - 1 :], seen), True
    return None


def _star(
    read: Read, base: str | None, name: str, attrs: list[str], seen: tuple[str, ...]
) -> tuple[tuple[bool | None, str], bool] | None:
    """`from base import *` for `name`: what it binds it to, and whether surely; None: it does not bind it."""
    if base is None:
        return _unknown(name), False
    if base == "enum":
        return ((not attrs, ""), True) if name in _ENUM_CLASSES else None
    binds = star_binds(read, base, name)
    if binds is False:
        return None
    return _in_module(read, base, [name, *attrs], seen), binds is True


def _class_attr(
    read: Read, m: _ReadModule, node: ast.ClassDef, attrs: list[str], seen: tuple[str, ...]
) -> tuple[bool | None, str]:
    """Class `node`, then its attribute `attrs` (att56 F4: a nested class `Kinds.Base` as a base)."""
    if not attrs:
        return _class(read, m, node, seen)
    for n in reversed(_module_level(node.body)):
        if isinstance(n, ast.ClassDef) and n.name == attrs[0]:
            return _class_attr(read, m, n, attrs[1:], seen)
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attrs[0] for t in n.targets):
            value = n.value
            for attr in attrs[1:]:
                value = ast.Attribute(value, attr, ast.Load())
            return _expr(read, m, value, n.lineno, seen)
    return _unknown(".".join([node.name, *attrs]))


def _in_module(read: Read, module: str, attrs: list[str], seen: tuple[str, ...]) -> tuple[bool | None, str]:
    """What `module.attrs[0].attrs[1]...` is: enum's classes, a class of a module the reader has."""
    if not attrs:
        return False, ""  # a module is no base
    if module == "enum":
        return (attrs[0] in _ENUM_CLASSES), ""
    found = read(module)
    if found is None:
        sub = read(f"{module}.{attrs[0]}") if len(attrs) > 1 else None
        if sub is not None:
            return _in_module(read, sub.module, attrs[1:], seen)
        return _unknown(f"{module}.{'.'.join(attrs)}")
    try:
        tree = ast.parse(found.data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _unknown(f"{module}.{'.'.join(attrs)}")
    enum, how = _name(read, _ReadModule((found.module, found.package), tree), attrs[0], attrs[1:], None, seen)
    if not enum and found.package and (sub := read(f"{module}.{attrs[0]}")) is not None and len(attrs) > 1:
        return _in_module(read, sub.module, attrs[1:], seen)
    return enum, (f", from {module}{how}" if enum is not False else how)
