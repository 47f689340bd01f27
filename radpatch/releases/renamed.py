"""A scope renamed, its old name kept by an alias (issue 23, rel41): the release's declared module no longer
defines `size`, but binds the name to code under another name, `size = planning.size_of`, `from .planning import
size_of as size`, or `size = size_of` beside `def size_of`. The code is not gone, so the release is no "no
match": it moved to that definition, and the binding says where. port follows it where the rewrites prove under
the new name (radpatch.releases.renamed_port: a variant of each rewrite with the new `scope:`); elsewhere the
cell says moved, unproven, and names the binding. Read with `ast` only, nothing imported; only a binding at the
module's top level, made once, counts (one under an `if`, a `try` or a handler may not run), and "once" is
rewrite.name_bindings' rule: a later `del`, loop target or `global` store is a second binding (att41 #6). So
must be each name it reads (the imported module, the local name), before it, and the definition it names, in its
own module. A store no binding statement shows (releases.namespace_stores: `globals()[...]`,
`setattr(sys.modules[__name__], ...)`, `exec`, `sa = setattr`, a `__dict__`, `sys.modules` written) or a star
import in either module, or a package `__init__` on the way that binds the submodule's name to anything but the
submodule itself (`planning = other`; `from . import planning` is the submodule: port45), may make the name
something else at run time (att43 #12): then it is no rename either. One re-export hop is followed (port44): the
declared module takes the old name from another module under that same name (`from .planning import size`) and
that module binds it by these same rules (`size = size_of`). A method renamed inside its class (`size = size_of`
in the class body, `scope: C.size`) is read by radpatch.releases.renamed_class, by rules of its own (port45)."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from radpatch import source_lines
from radpatch.prove.refusal import Cause
from radpatch.registry.model import Patch
from radpatch.releases import imported_from
from radpatch.releases.namespace_stores import _module_stores, dynamic
from radpatch.releases.results import ReleaseResult, first_failed
from radpatch.releases.wheels import Releases
from radpatch.rewrite.name_bindings import binding_sites

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Renamed:
    """`name` (a scope's top-level name) is bound in `binder` by `text` (line `line`) to `target` of `module`."""

    name: str
    module: str
    target: str
    binder: str  # the module whose binding keeps the old name
    line: int
    text: str

    def describe(self) -> str:
        now = f"{self.target} in {self.module}" if self.module == self.binder else f"{self.module}.{self.target}"
        return (
            f"{self.name} is now {now} (renamed; `{self.text}` in {self.binder}, line {self.line}, binds the old name)"
        )

    @property
    def hint(self) -> str:
        choice = "" if self.module == self.binder else f"a `modules:` choice of {self.module} and "
        return (
            f"the rewrites name the scope {self.name!r}: for the release, add {choice}a `versions:` variant "
            f"of each rewrite whose `scope:` is {self.target!r} (by hand)"
        )

    @property
    def said(self) -> str:
        """What a matrix cell says of it."""
        return f"{self.describe()}: {self.hint}"


def binding(source: bytes, qualname: str, module: str, package: bool = False) -> Renamed | None:
    """The top-level binding of `qualname`'s first name in `source` (module `module`) to a definition of
    another name, when the module does not define the name itself; None otherwise."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    name, body = qualname.split(".")[0], tree.body
    if not _only_statements_bind(tree, name):
        return None
    defined: dict[str, ast.stmt] = {n.name: n for n in body if isinstance(n, _DEFS) and _once(body, n.name, n)}
    site = _only_binding(body, name)
    if site is None or isinstance(site, _DEFS):
        return None  # defined here, bound (or deleted) more than once, or only in a block that may not run
    lines = source_lines.split(source.decode("utf-8", "replace"))
    text = lines[site.lineno - 1].strip() if site.lineno <= len(lines) else ""
    to = _target(site, name, body, module, package, defined)
    if to is None or to[1] == name:
        return None  # no alias of a definition of another name (`size = planning.size` is a plain move)
    return Renamed(name, to[0], to[1], module, site.lineno, text)


def reexported(source: bytes, qualname: str, module: str, package: bool = False) -> str | None:
    """The module `source` (module `module`) takes `qualname`'s first name from under that same name
    (`from .planning import size`, `size = planning.size`), bound once at top level by the same rules as
    `binding`: where to look for the rename one hop on (port44); None otherwise."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    name, body = qualname.split(".")[0], tree.body
    site = _only_binding(body, name) if _only_statements_bind(tree, name) else None
    if site is None or isinstance(site, _DEFS):
        return None
    to = _target(site, name, body, module, package, {})
    return to[0] if to is not None and to[1] == name and to[0] != module else None


def inits_clear(module: str, relpath_of: Callable[[str], str | None], read: Callable[[str], bytes | None]) -> bool:
    """No package `__init__` on the way to `module` binds the next part's name to anything but the
    submodule itself (`planning = other` makes `from pkg import planning` read `other`; `from . import
    planning` binds the submodule: port45), nor may (a star import, a namespace store, `sys.modules`
    written, a module `__getattr__`, which `from pkg import planning` asks first)."""
    parts = module.split(".")
    for n in range(1, len(parts)):
        package = ".".join(parts[:n])
        init = _parsed(relpath_of(package), read)
        if init is not None and (
            not all(_the_submodule(s, package, parts[n]) for s in binding_sites(init.body, parts[n], "module"))
            or not _only_statements_bind(init, parts[n])
            or any(isinstance(s, ast.FunctionDef) and s.name == "__getattr__" for s in init.body)  # lazy
        ):
            return False
    return True


def _the_submodule(site: ast.AST, package: str, name: str) -> bool:
    """`site` (in `package`'s `__init__`) binds `name` to the submodule `package.name` itself: `from .
    import name`, `from package import name`, `import package.name as name`, at any depth (each binds
    that same module object)."""
    if isinstance(site, ast.ImportFrom):
        return imported_from.absolute(site, package, True) == package and all(
            a.name == name for a in site.names if (a.asname or a.name) == name
        )
    if isinstance(site, ast.Import):
        return all(a.name == f"{package}.{name}" for a in site.names if a.asname == name) and not any(
            a.asname is None and a.name.split(".")[0] == name for a in site.names
        )
    return False


def resolved(found: Renamed, relpath_of: Callable[[str], str | None], read: Callable[[str], bytes | None]) -> bool:
    """The module the binding reads from is in the wheel and defines the target there (a def or class)."""
    tree = _parsed(relpath_of(found.module), read)
    if tree is None or not _only_statements_bind(tree, found.target):
        return False
    if not inits_clear(found.module, relpath_of, read):  # `pkg/__init__.py` binding `planning` wins
        return False
    return isinstance(_only_binding(tree.body, found.target), _DEFS)


def _parsed(rel: str | None, read: Callable[[str], bytes | None]) -> ast.Module | None:
    return parse_or_none(read(rel) if rel is not None else None)


def parse_or_none(data: bytes | None) -> ast.Module | None:
    """A module's tree, or None when there are no bytes or they do not parse (releases.renamed_refused too)."""
    if data is None:
        return None
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _only_statements_bind(tree: ast.Module, name: str, dynamic_too: bool = True) -> bool:
    """No star import and no store of `name` that no binding statement shows (`globals()[...]`,
    `setattr` of a module object): what binds `name` is what `binding_sites` finds."""
    starred = any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.walk(tree))
    return not starred and _module_stores(tree, name) is None and not (dynamic_too and dynamic(tree))


def _only_binding(body: list[ast.stmt], name: str) -> ast.stmt | None:
    """The top-level statement of `body` that is the module's only binding of `name`: the one site
    rewrite.name_bindings finds (assignments, imports, defs, `del`, loops, `global` stores in functions,
    at any depth), and it a statement of the top level (a def or class, an import, or an assignment
    whose target is the name itself); None when there is none, or more, or it is anything else."""
    sites = binding_sites(body, name, "module")
    if len(sites) != 1:
        return None
    site = sites[0]
    if isinstance(site, (*_DEFS, ast.Import, ast.ImportFrom)):
        return site if site in body else None
    return next((s for s in body if _targets(s) and site in _targets(s)), None)


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    """An assignment's whole targets (`x = ...`, `x: T = ...`); [] for any other statement."""
    if isinstance(stmt, ast.Assign):
        return stmt.targets
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return [stmt.target]
    return []


def _before(body: list[ast.stmt], name: str, site: ast.stmt) -> bool:
    """`name` has one binding in the module, a top-level statement before `site`."""
    first = _only_binding(body, name)
    return first is not None and first.lineno < site.lineno


def _once(body: list[ast.stmt], name: str, site: ast.stmt) -> bool:
    """`site` is the module's only binding of `name`."""
    return _only_binding(body, name) is site


def _bound_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return [node.target.id]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"]
    if isinstance(node, _DEFS):
        return [node.name]
    return []


def _target(
    site: ast.stmt, name: str, body: list[ast.stmt], module: str, package: bool, defined: dict[str, ast.stmt]
) -> tuple[str, str] | None:
    """(module, name) the binding `site` of `name` reads: an import's alias, `m.attr`, or a local name."""
    if isinstance(site, ast.ImportFrom):
        alias = next(a for a in site.names if (a.asname or a.name) == name)
        return imported_from.absolute(site, module, package), alias.name
    if not isinstance(site, ast.Assign | ast.AnnAssign) or len(_bound_names(site)) != 1:
        return None
    # a name the value reads counts only as the module's one binding of it, made before the alias
    bound = {k: v for k, v in imported_from.modules_bound(body, module, package).items() if _before(body, k, site)}
    got = imported_from.assigned_from(site, bound)
    if got is not None:
        return got
    value = site.value
    if isinstance(value, ast.Name) and value.id in defined and _before(body, value.id, site):  # `def size_of`
        return module, value.id
    if isinstance(value, ast.Name) and value.id in bound:  # `from .planning import size_of` then `size = size_of`
        home, _, attr = bound[value.id].rpartition(".")
        return (home, attr) if home else None
    return None


def told(patch: Patch, r: ReleaseResult, releases: Releases, requires: tuple[Patch, ...]) -> ReleaseResult:
    """`r` with its `match` failure saying where a renamed scope's code now is, when the module binds the old name."""
    from radpatch.releases import renamed_release

    rewrite = r.kind.rewrite or next((rw.id for rw in patch.rewrites if rw.file == r.kind.file), None)
    gone_from = (Cause.SCOPE_GONE, Cause.NO_MODULE, Cause.UNCOVERED)  # no module or choice: a backport's
    lost = r.kind.cause in gone_from and first_failed(r) in ("match", "module")
    if not lost or r.error is None or rewrite is None:
        return r
    file = r.kind.file or next((rw.file for rw in patch.rewrites if rw.id == rewrite), None)
    found = renamed_release.in_release(patch, file, rewrite, r.version, releases, requires) if file else None
    if found is None:  # an alias the rules refuse (in a class body or at module level): say why
        why = renamed_release.refused(patch, file, rewrite, r.version, releases, requires) if file else None
        return dataclasses.replace(r, error=f"{r.error}; {why}") if why else r
    gone = f"scope '{found.name}"
    said = f"moved: {found.describe()}"
    error = r.error.replace(gone, f"{said}; {gone}", 1) if gone in r.error else f"{r.error}; {said}"
    return dataclasses.replace(r, error=error)
