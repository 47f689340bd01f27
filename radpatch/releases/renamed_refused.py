"""Why a module-level alias is not followed as a rename (issue 23, port47): the declared module binds the
scope's old name to a definition of another name (`size = planning.size_of`, `size = size_of`, one
re-export hop on), the shape radpatch.releases.renamed follows, but its rules refuse it because something
may make the name other code at run time: a star import, a store no statement shows (`globals()[...]`,
`setattr` of a module object, a function's `global` store), `exec`/`eval`, `setattr` passed on, a
`__dict__`, `sys.modules` written (releases.namespace_stores), in the declared module or the module the
alias reads from; or a package `__init__` on the way that binds the submodule's name to something else,
star-imports, stores names no statement shows, or defines a module `__getattr__`. The cell and verify's
failure say which, at file:line, as a class-body alias refused says why (releases.renamed_class).
Read with `ast` only; nothing here decides what is followed (renamed's rules do): only the words."""

from __future__ import annotations

import ast
from collections.abc import Callable

from radpatch import source_lines
from radpatch.releases import renamed
from radpatch.releases.namespace_stores import _module_stores, dynamic
from radpatch.rewrite.name_bindings import binding_sites

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
Read = Callable[[str], bytes | None]
Where = Callable[[str], str | None]


def why(
    source: bytes, qualname: str, module: str, rel: str, relpath_of: Where, read: Read, hop: bool = True
) -> str | None:
    """Why the top-level alias of `qualname`'s first name in `source` (module `module`, file `rel`) is no
    rename, in one line naming the hazard's file:line; None when there is no such alias (or it is one)."""
    tree = renamed.parse_or_none(source)
    if tree is None:
        return None
    name, body = qualname.split(".")[0], tree.body
    site = renamed._only_binding(body, name)
    if site is None or isinstance(site, _DEFS):
        return None
    defined: dict[str, ast.stmt] = {n.name: n for n in body if isinstance(n, _DEFS) and renamed._once(body, n.name, n)}
    to = renamed._target(site, name, body, module, rel.endswith("/__init__.py"), defined)
    if to is None:
        return None
    lines = source_lines.split(source.decode("utf-8", "replace"))
    text = lines[site.lineno - 1].strip() if site.lineno <= len(lines) else ""
    there = relpath_of(to[0])
    if to[1] == name:  # `from .planning import size`: the alias may live one hop on
        if not hop or to[0] == module or there is None or (more := read(there)) is None:
            return None
        inner = why(more, name, to[0], there, relpath_of, read, hop=False)
        if inner is not None or renamed.binding(more, name, to[0], there.endswith("/__init__.py")) is None:
            return inner  # refused there, or no rename one hop on either: nothing of this module to say
        hazard = _hazard(tree, name, rel) or _inits(to[0], relpath_of, read)  # the rename there, undone here
        return f"`{text}` in {module} (line {site.lineno}) is not followed as a rename: {hazard}" if hazard else None
    target = renamed.parse_or_none(read(there)) if there is not None else None
    if target is None or not isinstance(renamed._only_binding(target.body, to[1]), _DEFS):
        return None  # no definition there: no rename to refuse, a no match
    hazard = _hazard(tree, name, rel) or _hazard(target, to[1], there or "")
    hazard = hazard or _inits(to[0], relpath_of, read)
    if hazard is None:
        return None
    return f"`{text}` in {module} (line {site.lineno}) is not followed as a rename: {hazard}"


def _hazard(tree: ast.Module, name: str, rel: str) -> str | None:
    """What in `tree` (file `rel`) may bind `name` where no statement shows it, in words with file:line."""
    star = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)), None
    )
    if star is not None:
        return f"a star import ({rel}:{star.lineno}) may bind any name"
    line = _module_stores(tree, name)
    if line is not None:
        return f"a store of `{name}` no statement shows ({rel}:{line}: a namespace, `setattr` or `global` store)"
    got = dynamic(tree, lambda n: f"{rel}:{n}")
    return got[1] if got is not None else None


def _inits(module: str, relpath_of: Where, read: Read) -> str | None:
    """The package `__init__` on the way to `module` that may make the submodule's name something else
    (renamed.inits_clear's rules), in words with file:line."""
    parts = module.split(".")
    for n in range(1, len(parts)):
        package, sub = ".".join(parts[:n]), parts[n]
        rel = relpath_of(package)
        init = renamed.parse_or_none(read(rel)) if rel is not None else None
        if init is None or rel is None:
            continue
        for s in binding_sites(init.body, sub, "module"):
            if not renamed._the_submodule(s, package, sub):
                return f"{rel}:{getattr(s, 'lineno', 0)} binds `{sub}` to something else than the submodule"
        getter = next((s for s in init.body if isinstance(s, ast.FunctionDef) and s.name == "__getattr__"), None)
        if getter is not None:
            return (
                f"{rel}:{getter.lineno} defines a module `__getattr__`, which `from {package} import {sub}` asks first"
            )
        hazard = _hazard(init, sub, rel)
        if hazard is not None:
            return hazard
    return None
