"""A backport across a rename (issue 23, port45): the entry names the new name (`scope: size_of`), the
release ported to is older and has the old one (`def size`), and the entry's own first release after
it keeps the old name by an alias (`size = size_of` beside `def size_of`, or `size = size_of` in
`class C:` for `C.size_of`), by the rules of radpatch.releases.renamed and renamed_class. That alias
is the evidence of the rename: port writes a variant of each rewrite of the scope under the old name
for the releases before it (`versions: "<B"`, B that release; the rewrite as written gets `>=B`),
where the rewrites prove there (radpatch.releases.renamed_port). The older release's declared module
must define the old name itself (a def or class, bound once, at top level or in the class body), and
nothing there may rebind it (the same rules: a store no statement shows, or for a method what
renamed_class.rebinds finds in its class)."""

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

    def describe(self) -> str:
        return (
            f"{self.name} was {self.target} in {self.module} before {self.back} (renamed; `{self.text}` in "
            f"{self.binder} of {self.back}, line {self.line}, keeps the old name)"
        )

    @property
    def hint(self) -> str:
        return (
            f"the rewrites name the scope {self.name!r}: for the releases before {self.back}, add a `versions:` "
            f"variant of each rewrite whose `scope:` is {self.target!r} (by hand)"
        )


def older(
    patch: Patch, file: str, rewrite: str | None, version: Version, releases: Releases, requires: tuple[Patch, ...]
) -> Backported | None:
    """The rename `version` is older than, read off the entry's first claimed release after it; None
    when there is none, or the older release's module does not define the old name."""
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
    if new is None or old is None:
        return None
    found = _alias_of(new, rw.op.scope_name(), choice.module)
    if found is None or not _defines(old, found.name):
        return None
    return Backported(found.target, found.module, found.name, found.binder, found.line, found.text, back)


def _alias_of(source: bytes, scope: str, module: str) -> renamed.Renamed | None:
    """The alias in `source` that keeps another name bound to `scope`'s definition (`size = size_of`
    for `size_of`, `size = size_of` in `class C:` for `C.size_of`), by the renamed rules; None else."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    parts = scope.split(".")
    body, prefix = tree.body, ""
    if len(parts) > 1:
        cls = renamed._only_binding(tree.body, parts[0])
        body, prefix = (cls.body, parts[0] + ".") if isinstance(cls, ast.ClassDef) else ([], "")
    new = parts[1] if prefix else parts[0]
    for stmt in body:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id == new):
            continue
        for t in stmt.targets:
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
    for name in outer:
        cls = renamed._only_binding(body, name)
        if not isinstance(cls, ast.ClassDef):
            return False
        body = cls.body
    if isinstance(cls, ast.ClassDef) and renamed_class.rebinds(tree, cls, last) is not None:
        return False  # the older release's class may rebind the old name (a decorator, a store...)
    sites = binding_sites(body, last, "class" if outer else "module")
    return len(sites) == 1 and isinstance(sites[0], _DEFS) and sites[0] in body
