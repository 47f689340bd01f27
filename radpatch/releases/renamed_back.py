"""A backport across a rename (issue 23, port45): the entry names the new name (`scope: size_of`), the
release ported to is older and has the old one (`def size`), and the entry's own first release after
it keeps the old name by an alias (`size = size_of` beside `def size_of`, or `size = size_of` in
`class C:` for `C.size_of`), by the rules of radpatch.releases.renamed and renamed_class. That alias
is the evidence of the rename: port writes a variant of each rewrite of the scope under the old name
for the releases before it (`versions: "<B"`, B that release; the rewrite as written gets `>=B`),
where the rewrites prove there (radpatch.releases.renamed_port). The older release's declared module
must define the old name itself (a def or class, bound once, at top level or in the class body), and
nothing there may rebind it (the same rules: a store no statement shows, or for a method what
renamed_class.rebinds finds in its class). Where the older release has the old name in another module
(port47: no file of the entry's module there, or it lacks the name), the evidence is an alias in that
module of the entry's release (`from .planning import size_of as size` in core.py), found among the
package's modules (package_files' bound), one module only: port gives it a `modules:` choice for `<B`.
For an entry with `requires:` too (port49), unless a requirement changes that module or its rewrites name
the old or the new name (the wheel's text is read, not what the requirement leaves): then why not."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.registry.model import Patch
from radpatch.releases import renamed, renamed_class
from radpatch.releases.wheels import Releases
from radpatch.rewrite.name_bindings import binding_sites

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Backported(renamed.Renamed):
    """`name` (the scope the entry names) was `target` before `back`, whose module keeps `target` bound to it."""

    back: Version = Version("0")
    declared: str = ""  # the entry's module for `back`, where the old name's home is another (a `modules:` choice)

    def describe(self) -> str:
        return (
            f"{self.name} was {self.target} in {self.module} before {self.back} (renamed; `{self.text}` in "
            f"{self.binder} of {self.back}, line {self.line}, keeps the old name)"
        )

    @property
    def hint(self) -> str:
        choice = f"a `modules:` choice of {self.module} and " if self.declared else ""
        return (
            f"the rewrites name the scope {self.name!r}: for the releases before {self.back}, add {choice}a "
            f"`versions:` variant of each rewrite whose `scope:` is {self.target!r} (by hand)"
        )


def older(
    patch: Patch, file: str, rewrite: str | None, version: Version, releases: Releases, requires: tuple[Patch, ...]
) -> Backported | str | None:
    """The rename `version` is older than, read off the entry's first claimed release after it; None
    when there is none, or the older release's module does not define the old name; why not, where the
    old name's home is another module one of `requires` changes (its text as they leave it is not read)."""
    from radpatch.releases import modules
    from radpatch.releases.resolved import stacked

    rw = next((r for r in patch.rewrites if r.id == rewrite), None)
    if rw is None or rw.op.scope_name() == "<module>":
        return None
    try:
        listed = releases.versions(patch.distribution, SpecifierSet()).versions
        after = [v for v in listed if v > version and not v.is_prerelease and patch.supported.contains(v, True)]
        if not after:
            return None
        back = after[0]
        choice, here = patch.module(file).module_for(back), patch.module(file).module_for(version)
        if choice is None or (here is not None and here.module != choice.module):
            return None
        needs = modules.needs((*requires, patch))
        new = stacked(requires, patch, file, back, releases.get(patch.distribution, back, needs))
        old = stacked(requires, patch, file, version, releases.get(patch.distribution, version, needs))
    except RadpatchError:
        return None
    if new is None:
        return None
    found = _alias_of(new, rw.op.scope_name(), choice.module) if old is not None else None
    if found is not None and old is not None and _defines(old, found.name):
        return Backported(found.target, found.module, found.name, found.binder, found.line, found.text, back)
    try:  # the old name kept in another module (`from .planning import size_of as size` in core.py): port47
        got = _from_another(patch, rw.op.scope_name(), choice.module, version, back, releases)
    except RadpatchError:
        return None
    # another module is read as the wheel has it: right where no requirement changes the one found (port49)
    by = _changed_by(requires, got, rw.op.scope_name().split(".")[0]) if got is not None else None
    if got is not None and by is not None:
        return (
            f"{got.name} was {got.target} in {got.module} before {back}, but {got.module} is not read as the "
            f"entry's requirement {by} leaves it: write the `modules:` choice and the variant by hand"
        )
    return got


def _changed_by(requires: tuple[Patch, ...], got: Backported, first: str) -> str | None:
    """The requirement whose edits may change what the search read: one that changes the old name's home,
    or whose rewrites' text names the old or the new name (an alias it may add or take away elsewhere)."""
    from radpatch.releases import modules, package_files

    base = got.module.replace(".", "/")
    homes, words = {f"{base}.py", f"{base}/__init__.py"}, (first, got.target.split(".")[0])
    for p in requires:
        texts = [t for rw in p.rewrites for t in package_files._texts(rw.op)]
        if modules.needs((p,)) & homes or any(w in t for t in texts for w in words):
            return p.name
    return None


def _from_another(
    patch: Patch, scope: str, module: str, version: Version, back: Version, releases: Releases
) -> Backported | None:
    """The one other module of the package that, in `back`, binds another name to `scope`'s definition in
    `module` by renamed's rules, and in `version` defines that name itself: the old name's home before
    `back` (a `modules:` choice of its own). None when there is none, or more than one."""
    from radpatch.releases import package_files
    from radpatch.releases.imported_from import relpath_of
    from radpatch.releases.moved import module_of
    from radpatch.releases.search_order import wheel_modules

    newer = releases.get(patch.distribution, back, frozenset())
    names = {n for n, _ in wheel_modules(newer)}
    rel = relpath_of(module, names)
    listed = package_files.members(newer, frozenset([rel.split("/")[0]])) if rel and "/" in rel else None
    if rel is None or listed is None:  # a package over package_files.MAX_FILES is not searched
        return None

    def read(v: Version, member: str) -> bytes | None:
        return releases.get(patch.distribution, v, frozenset([member])).read(member)

    first, rest = scope.split(".")[0], scope[len(scope.split(".")[0]) :]
    hits: list[Backported] = []
    for other in sorted(listed - {rel}):
        data = read(back, other)
        tree = _parse(data)
        for name in {n for stmt in (tree.body if tree else []) for n in _bound(stmt, first)}:
            got = renamed.binding(data or b"", name, module_of(other), other.endswith("/__init__.py"))
            if got is None or (got.module, got.target) != (module, first):
                continue
            if not renamed.resolved(got, lambda m: relpath_of(m, names), lambda m: read(back, m)):
                continue
            older = read(version, other)
            if older is not None and _defines(older, name + rest):
                hits.append(Backported(scope, got.binder, name + rest, got.binder, got.line, got.text, back, module))
    return hits[0] if len(hits) == 1 else None  # two modules keep it: which one the old release ran is not told


def _parse(data: bytes | None) -> ast.Module | None:
    try:
        return ast.parse(data) if data is not None else None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _bound(stmt: ast.stmt, new: str) -> list[str]:
    """The names a top-level assignment or import binds that reads `new` (`from .planning import new as
    old`, `old = planning.new`, `old = new`): what may be an alias of `new`'s definition."""
    if isinstance(stmt, ast.ImportFrom) and any(a.name == new for a in stmt.names):
        return renamed._bound_names(stmt)
    value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
    if (isinstance(value, ast.Name) and value.id == new) or (isinstance(value, ast.Attribute) and value.attr == new):
        return renamed._bound_names(stmt)
    return []


def _alias_of(source: bytes, scope: str, module: str) -> renamed.Renamed | None:
    """The alias in `source` that keeps another name bound to `scope`'s definition (`size = size_of`
    for `size_of`, `size = size_of` in `class C:` for `C.size_of`), by the renamed rules; None else."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    *outer, new = scope.split(".")
    body, prefix = tree.body, ""
    for name in outer:  # down the classes (`Outer.Inner.size_of`), each bound once in the one above
        sites = binding_sites(body, name, "class" if prefix else "module")
        cls = sites[0] if len(sites) == 1 and sites[0] in body else None
        body, prefix = (cls.body, prefix + name + ".") if isinstance(cls, ast.ClassDef) else ([], "")
        if not prefix:
            return None
    for stmt in body:  # `size = size_of`, or annotated `size: T = size_of`
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        if not (isinstance(value, ast.Name) and value.id == new):
            continue
        for t in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:  # type: ignore[attr-defined]
            if not isinstance(t, ast.Name):
                continue
            got = (
                renamed_class.found(source, prefix + t.id, module) if prefix else renamed.binding(source, t.id, module)
            )
            if isinstance(got, renamed.Renamed) and got.target == prefix + new and got.module == module:
                return got
    return None


def _defines(source: bytes, qualname: str) -> bool:
    """`source` defines `qualname` (`size`, or `C.size`) once, as a def or class at its level."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    body: list[ast.stmt] = tree.body
    *outer, last = qualname.split(".")
    if not renamed._only_statements_bind(tree, qualname.split(".")[0]):  # a store no statement shows
        return False
    cls: ast.stmt | None = None
    chain: list[ast.ClassDef] = []
    for name in outer:
        cls = renamed._only_binding(body, name)
        if not isinstance(cls, ast.ClassDef):
            return False
        chain.append(cls)
        body = cls.body
    if chain and renamed_class.rebinds(tree, chain[-1], last, tuple(chain[:-1])) is not None:
        return False  # the older release's class may rebind the old name (a decorator, a store...)
    sites = binding_sites(body, last, "class" if outer else "module")
    return len(sites) == 1 and isinstance(sites[0], _DEFS) and sites[0] in body
