"""A rename read off one release (issue 23): the release's declared module, as the entry's requirements
leave it, is read for a class-body alias (radpatch.releases.renamed_class, nested classes too), a
module-level alias or one re-export hop on (radpatch.releases.renamed), and both at once: the class
renamed by a module-level alias (`Old = New`) and the method inside it (`size = size_of` in `class
New:`), `Old.size` -> `New.size_of` (port47). What the rules refuse is said (`refused`, the words of
renamed_class or radpatch.releases.renamed_refused).

A rename found is followed only where no other module of the distribution's package may rebind it
(port47): no store or `del` of the attribute the old name is (`.size` for a method, anywhere, as within
its module, and a nested class's name; `core.size`, `planning.size_of` for the old and new top-level
names: an object named as their modules), no `setattr`/`delattr`
that may name it on such an object, in any `.py` file the wheel's RECORD lists under the declared
module's top-level package. Where the package has more of them than verify reads (package_files.MAX_FILES,
as vLLM's), only those radpatch.releases.store_index says may hold such a store are read (port49); where
even those cannot be told or read, no rename is followed and the cell says so. What another module does
through a computed `setattr` on an object this cannot name is not read there. An `exec` or `eval` there
of a string literal is read as code (radpatch.releases.exec_code: it refuses where that code may store the
name); of other code it refuses, naming every such call, unless the entry vouches for the call where it
stands, as the names it passes are bound (`vouched_exec:`, radpatch.releases.exec_sites; exec51, att52 #3)."""

from __future__ import annotations

import ast
import dataclasses

from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.registry.model import Patch, VouchedExec
from radpatch.releases import (
    exec_code,
    exec_sites,
    imported_from,
    package_files,
    renamed,
    renamed_back,
    renamed_class,
    renamed_refused,
    store_index,
    vouched_exec,
)
from radpatch.releases.moved import module_of
from radpatch.releases.renamed import Renamed
from radpatch.releases.search_order import wheel_modules
from radpatch.releases.wheel_records import Release
from radpatch.releases.wheels import Releases


def in_release(
    patch: Patch, file: str, rewrite: str | None, version: Version, releases: Releases, requires: tuple[Patch, ...]
) -> Renamed | None:
    """The rename on the release's declared module for `file` (a `modules:` name), its target found
    defined in the wheel; None when there is none, the rules refuse it, or it cannot be read."""
    got = judged(patch, file, rewrite, version, releases, requires)
    return got if isinstance(got, Renamed) else None


def refused(
    patch: Patch, file: str, rewrite: str | None, version: Version, releases: Releases, requires: tuple[Patch, ...]
) -> str | None:
    """Why an alias of the scope's old name on the release is not followed as a rename; None when there is none."""
    got = judged(patch, file, rewrite, version, releases, requires)
    return got if isinstance(got, str) else None


def judged(
    patch: Patch, file: str, rewrite: str | None, version: Version, releases: Releases, requires: tuple[Patch, ...]
) -> Renamed | str | None:
    """The rename on the release (or, the release older, the backport across one: renamed_back), or why not."""
    got = _forward(patch, file, rewrite, version, releases, requires)
    back = renamed_back.older(patch, file, rewrite, version, releases, requires) if got is None else None
    if back is None or isinstance(back, str):
        return got if back is None else back
    try:  # the old name in the older release: no other module of its package may store it either
        release = releases.get(patch.distribution, version, frozenset())
        names = {rel for rel, _ in wheel_modules(release)}
        old = Renamed(back.target, back.module, back.name, back.module, back.line, back.text)
        why = _elsewhere(
            releases,
            release,
            old,
            back.target,
            imported_from.relpath_of(back.module, names) or "",
            _where(names),
            _reader(releases, patch.distribution, version),
            patch.vouched_exec,
        )
    except RadpatchError:
        return None
    return why or back


def _reader(releases: Releases, dist: str, version: Version) -> renamed_refused.Read:
    def read(rel: str) -> bytes | None:
        try:
            return releases.get(dist, version, frozenset([rel])).read(rel)
        except RadpatchError:
            return None

    return read


def _where(names: set[str]) -> renamed_refused.Where:
    return lambda m: imported_from.relpath_of(m, names)


def _forward(
    patch: Patch, file: str, rewrite: str | None, version: Version, releases: Releases, requires: tuple[Patch, ...]
) -> Renamed | str | None:
    from radpatch.releases import modules
    from radpatch.releases.resolved import stacked

    choice = patch.module(file).module_for(version)
    rw = next((r for r in patch.rewrites if r.id == rewrite), None)
    if choice is None or rw is None or rw.op.scope_name() == "<module>":
        return None
    scope = rw.op.scope_name()
    try:
        release = releases.get(patch.distribution, version, modules.needs((*requires, patch)))
        data = stacked(requires, patch, file, version, release)
        names = {rel for rel, _ in wheel_modules(release)}
    except RadpatchError:
        return None
    if data is None:
        return None
    mine = next((n for n in names if module_of(n) == choice.module), "")
    read, relpath_of = _reader(releases, patch.distribution, version), _where(names)

    found: Renamed | str | None = renamed_class.found(data, scope, choice.module)  # `size = size_of` in a class
    if found is None:
        found = _module_level(data, scope, choice.module, mine, relpath_of, read)
    if isinstance(found, Renamed) and "." not in found.name and "." in scope:  # `Old = New`: the method too?
        found = _and_method(found, scope, relpath_of, read)
    if not isinstance(found, Renamed):
        return found
    try:
        return _elsewhere(releases, release, found, scope, mine, relpath_of, read, patch.vouched_exec) or found
    except RadpatchError:
        return None


def _module_level(
    data: bytes, scope: str, module: str, rel: str, relpath_of: renamed_refused.Where, read: renamed_refused.Read
) -> Renamed | str | None:
    """The module-level alias (or one re-export hop on) that renamed's rules follow; else why not."""
    package = rel.endswith("/__init__.py")
    found = renamed.binding(data, scope, module, package)
    hop = renamed.reexported(data, scope, module, package) if not found else None
    there = relpath_of(hop) if hop else None
    more = read(there) if there and renamed.inits_clear(hop or "", relpath_of, read) else None
    if hop and there and more is not None:  # one re-export hop: the alias lives in the module it imports from
        found = renamed.binding(more, scope, hop, there.endswith("/__init__.py"))
    if found is not None and renamed.resolved(found, relpath_of, read):
        return found
    return renamed_refused.why(data, scope, module, rel, relpath_of, read)


def _and_method(
    found: Renamed, scope: str, relpath_of: renamed_refused.Where, read: renamed_refused.Read
) -> Renamed | str:
    """The class renamed at module level (`Old = New`) whose body renames the method too (`size = size_of`):
    `Old.size` is `New.size_of`; the class rename alone where `New` defines the method itself."""
    rel = relpath_of(found.module)
    source = read(rel) if rel is not None else None
    rest = scope[len(found.name) :]
    inner = renamed_class.found(source, found.target + rest, found.module) if source is not None else None
    if not isinstance(inner, Renamed):
        return inner if isinstance(inner, str) else found
    cls = inner.target.rpartition(".")[0]
    text = f"{inner.text}` in class {cls} of {found.module} (line {inner.line}) with `{found.text}"
    name = found.name + inner.name[len(found.target) :]
    return dataclasses.replace(inner, name=name, binder=found.binder, line=found.line, text=text)


def _elsewhere(
    releases: Releases,
    release: Release,
    found: Renamed,
    scope: str,
    rel: str,
    relpath_of: renamed_refused.Where,
    read: renamed_refused.Read,
    vouched: tuple[VouchedExec, ...] = (),
) -> str | None:
    """Why another module of the package may rebind the renamed name: its store at file:line; None when none
    may. `scope`: the old qualified name; its parts after the first (a method, a nested class) are read as
    stored on any object, the old and new top-level names on an object named as their modules."""
    tops = frozenset([rel.split("/")[0]]) if "/" in rel else frozenset()
    listed = package_files.members(release, tops) if tops else frozenset()
    head = f"{found.name} -> {found.target} is not followed as a rename"
    anywhere, named = scope.split(".")[1:], [found.name.split(".")[0], found.target.split(".")[0]]
    if listed is None:  # more than package_files.MAX_FILES: only those its store index says may store a name
        got = store_index.candidates(releases, release, tops, [*anywhere, *named])
        if isinstance(got, str):
            return f"{head}: a store from another module of the package cannot be ruled out ({got})"
        listed = got
    method = "." in found.name  # a method: the in-class rules read its module
    own = {relpath_of(found.module)} if method else {relpath_of(found.binder)}  # where the in-module rules read
    homes = (found.binder, found.module)
    unread: list[tuple[exec_sites.Site, str]] = []  # exec/eval of code that is no literal, not vouched for
    mine = {r for r in own if r is not None}  # there only the code exec runs (it may store into any namespace)
    for other in sorted(listed | mine):
        tree = renamed.parse_or_none(read(other))
        if tree is None:
            continue
        bound = imported_from.modules_bound(tree.body, module_of(other), other.endswith("/__init__.py"))
        holders = {m.rpartition(".")[2] for m in homes} | {n for n, m in bound.items() if m in homes}
        for node in ast.walk(tree):
            if other in mine and not (isinstance(node, ast.Call) and exec_code.runs_code(node)):
                continue
            hit = next((h for a in anywhere if (h := _store(node, a, None))), "")
            hit = hit or next((h for a in named if (h := _store(node, a, holders))), "")
            if hit:
                return f"{head}: {other}:{getattr(node, 'lineno', 0)} {hit} (another module of the package)"
        for site in exec_sites.sites(other, tree):  # vouched for where it stands, as its names are bound
            if not exec_sites.covered(site, vouched):
                unread.append((site, exec_sites.changed(site, vouched)))
    return vouched_exec.refusal(head, unread, [*anywhere, *named], bool(vouched)) if unread else None


def _store(node: ast.AST, attr: str, holders: set[str] | None) -> str:
    """`node` stores or deletes the attribute `attr` (on an object named as one of `holders`, a module's
    last name, when given: `core.size = ...`), or is a setattr-like call that may name it; words or ""."""
    if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, ast.Store | ast.Del):
        if holders is None or _named(node.value, holders):
            return f"stores `{ast.unparse(node)}`"
    if isinstance(node, ast.Call):
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        target = node.args[0] if node.args else None
        if exec_code.runs_code(node):  # literal code is read as code; other code: _elsewhere's vouched sites
            text = exec_code.code_of(node)
            said = exec_code.may_store(text, [attr]) if text is not None else None
            return f"calls `{called}`, whose code may store `{attr}`" if said else ""
        if called in ("setattr", "delattr", "__setattr__", "__delattr__") and renamed_class._may_name(node, attr):
            if holders is None or (target is not None and _named(target, holders)):
                return f"calls `{called}`, which may store `{attr}`"
    return ""


def _named(node: ast.expr, holders: set[str]) -> bool:
    """`node` may be one of the modules `holders` names: a name or dotted name ending in one, or what
    `sys.modules[...]` or a call gives."""
    if isinstance(node, ast.Name):
        return node.id in holders
    if isinstance(node, ast.Attribute):
        return node.attr in holders
    return isinstance(node, ast.Subscript | ast.Call)
