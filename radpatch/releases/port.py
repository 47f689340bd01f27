"""Port an entry to new releases: what a patch-queue maintainer does at a bump, done from the wheels.

For the releases asked for (`--to VERSION|SPEC`), verify proves the entry as it is and
each release gets a cell (radpatch.releases.matrix):

- every rewrite proves: the release is claimed by widening `supported:` (an upper bound `<X` moves
  to the next minor release after it, keeping X's number of components, so `<0.34` becomes `<0.35`,
  unless the index lists a release in between that was not proven: then `<=` the release;
  `<=X` and `>=X` move to the release; `==X` becomes `>=low,<=high`; `~=X`, `==X.*` and `===X` are
  read as PEP 440 reads them, `~=0.32.0` as `>=0.32.0,<0.33`, then widened so);
- the scope moved to another module (found by its code, radpatch.releases.moved) and the rewrites
  prove there: the module variant is added (`modules:` gets `{versions: ">=V", module: NEW}` and the
  choice it replaces ends at V; for a backport to older releases than the entry claims, the new
  choice is `<B` and goes first, B the first release after them, and the old choice starts at B);
  when no choice covers the release and the latest choice's module still holds the scope, that
  choice's `versions:` is widened instead (as `supported:` is);
- a gap between a `modules:` list's choices, where apply picks a choice by its code (the cell
  passes and names it): that choice's `versions:` is widened over the release, unless that takes in
  releases another choice holds: then the module gets a choice of its own for the release
  (radpatch.releases.port_choices); a release the widened `supported:` newly claims that no choice
  covers is not written;
- a rewrite no longer matches (or another check fails, or the release already contains the change):
  the nearest candidate is shown and the entry is left alone, whatever the other releases say.

The edit is made on the file's text at the nodes' marks (radpatch.releases.yamledit): comments and
layout stay. Before anything is written the edited entry is loaded and proven again over its whole
new `supported` range; an edit that does not prove is never written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.errors import EnvironmentProblem, RadpatchError, UsageError
from radpatch.registry import loader
from radpatch.registry.model import Patch
from radpatch.releases import dropped, matrix, port_choices, port_edits, renamed_port, yamledit
from radpatch.releases.port_failures import short
from radpatch.releases.port_write import write as write
from radpatch.releases.resolved import gaps
from radpatch.releases.verify import selects, verify
from radpatch.releases.wheels import Releases
from radpatch.state.recorded_diffs import text_diff


def claimable(c: matrix.Cell) -> bool:
    """port may claim the release: it passes, or the scope moved to one module where the rewrites prove."""
    return c.kind == matrix.PASS or (c.kind == matrix.MOVED and bool(c.proven) and not c.also)


def _kind(c: matrix.Cell) -> str:
    return f"moved to several modules ({', '.join((c.module or '', *c.also))})" if c.also else c.kind


@dataclass(frozen=True)
class Port:
    patch: Patch
    cells: tuple[matrix.Cell, ...]
    before: str
    after: str | None  # None: the entry is left alone
    changes: tuple[str, ...]  # what the edit does, one line each
    why: str = ""  # why it is left alone
    settled: bool = False  # left alone because there is nothing to do (every release already claimed)
    requires: tuple[Patch, ...] = ()  # the entries it requires: proven on what they leave
    new_range: str | None = None  # the widened `supported:` the edit writes (None: the edit leaves it as it is)
    had: tuple[Version, ...] = ()  # the listed releases the entry claimed before the edit
    # the edited nodes that are a YAML anchor another key uses as an alias, in words: the edit changes both
    shared: tuple[str, ...] = ()

    @property
    def range_after(self) -> str:
        """The entry's `supported:` range once edited: the widened one, else the entry's own."""
        return self.new_range if self.new_range is not None else self.patch.range

    @property
    def diff(self) -> str:
        if self.after is None or self.after == self.before:
            return ""
        return "".join(text_diff(self.before, self.after, self.patch.source.name))


def plan(
    patch: Patch,
    wanted: SpecifierSet,
    releases: Releases,
    stream: TextIO | None = None,
    requires: tuple[Patch, ...] = (),
) -> Port:
    """`requires`: the entries `patch` requires, in the order apply runs them (verify stacks them).
    A rewrite with its own `versions:` that the releases asked for would drop (radpatch.releases.dropped)
    is proven there too: its `versions:` is widened with `supported:`, or the entry is left alone, naming it."""
    listed = releases.versions(patch.distribution, SpecifierSet()).versions
    lost = dropped.lost(patch, [v for v in listed if selects(wanted, v)], listed)
    proving = dropped.carried(patch, lost, listed)
    report = verify(proving, wanted, releases, probe=False, stream=stream, requires=requires)
    cells = tuple(matrix.cell(proving, r, releases, anywhere=True, requires=requires) for r in report.results)
    try:
        before = patch.source.read_bytes().decode("utf-8")  # as is: CRLF files stay CRLF
    except UnicodeDecodeError:  # the loader also reads UTF-16 (with its BOM); port edits UTF-8 text only
        raise UsageError(
            f"{patch.source}: not UTF-8 text: port edits a registry file's text in place",
            "save it as UTF-8 (the registry loads it the same), then port again",
        ) from None
    except OSError as exc:
        raise EnvironmentProblem(f"{patch.source}: cannot be read ({exc.strerror})", "check the file") from None
    blocked = [c for c in cells if not claimable(c)]
    # releases that already contain the change are no releases to port to: the others asked for still
    # are (a bump to `>=2.2` where 2.2 moved and 3.0 took the change ports 2.2 and says so of 3.0)
    obsolete = [c for c in blocked if c.kind == matrix.OBSOLETE]
    rest = tuple(c for c in cells if c not in obsolete)
    if blocked and len(obsolete) == len(blocked) and not _new(patch, rest):
        at = ", ".join(str(c.version) for c in blocked)
        if all(c.detail.startswith("declared") for c in blocked):  # the entry says so: nothing was read
            why = (
                f"the entry declares {at} obsolete (`obsolete: {patch.obsolete}`): nothing to port there; "
                "port to the others only"
            )
            return Port(patch, cells, before, None, (), why, True)
        why = (
            f"{at} already contain{'s' if len(blocked) == 1 else ''} the change (obsolete there): nothing to port; "
            "retire the entry for those releases (`obsolete:`, or narrow `supported:`), or keep it as it is"
        )
        return Port(patch, cells, before, None, (), why, True)
    if len(obsolete) != len(blocked):
        why = "not every release asked for proves (" + ", ".join(f"{c.version}: {_kind(c)}" for c in blocked) + ")"
        if lost:
            why += "; proven with " + "; ".join(
                f"the `versions:` of rewrite {rid!r} widened to {', '.join(map(str, vs))} (as written, not run there)"
                for rid, vs in lost.items()
            )
        return Port(patch, cells, before, None, (), why + _own_fails(proving, cells, releases, requires, stream))
    if not _new(patch, rest):
        return Port(patch, cells, before, None, (), "every release asked for is already claimed and proves", True)
    try:
        root = yamledit.compose(before)
    except (yaml.YAMLError, ValueError) as exc:
        raise UsageError(f"{patch.source}: cannot be edited in place: {exc}", "fix the YAML, then port again")
    edits: list[yamledit.Edit] = []
    changes: list[str] = [f"{c.version}: already contains the change (obsolete there): not claimed" for c in obsolete]
    new_range: str | None = None
    claimed = [c.version for c in rest]
    for rid, vs in lost.items():
        if any(v in claimed for v in vs):
            edit, change = port_edits.widen_rewrite(before, root, patch, rid, [v for v in vs if v in claimed], listed)
            edits.append(edit)
            changes.append(change)
    if not all(patch.supported.contains(v, prereleases=True) for v in claimed):
        text = port_edits.excluding(port_edits.widen(patch.range, claimed, listed), wanted, listed, patch.supported)
        text = port_edits.unproven_prereleases(text, claimed, listed, patch.supported)
        node = yamledit.get(root, "supported")
        if node is None:
            raise UsageError(f"{patch.source}: no `supported:` to widen", "add one, then port again")
        edits.append(yamledit.set_scalar(before, node, text))
        changes.append(f"supported: {patch.range} -> {text}")
        new_range = text
    known = listed
    by_file: dict[str, list[matrix.Cell]] = {}
    for c in rest:
        if c.kind == matrix.MOVED and c.file is not None and c.alias is None:
            by_file.setdefault(c.file, []).append(c)
    renames = [(c.version, c.file or "", c.alias) for c in rest if c.alias is not None]
    if renames:  # a scope renamed, its old name bound to it: a variant under the new name (renamed_port)
        got = renamed_port.ported(before, root, patch, renames, [c.version for c in rest if c.alias is None])
        if isinstance(got, str):
            return Port(patch, cells, before, None, (), got)
        edits += got[0]
        changes += got[1]
    # per `modules:` name, the releases each module gets where no choice covers them: a gap apply
    # decides by its code, or a release whose scope the latest choice's module still holds
    picked: dict[str, dict[str, list[Version]]] = {}
    for c in rest:
        for file, module in c.uncovered:
            picked.setdefault(file, {}).setdefault(module, []).append(c.version)
    for file, moved in by_file.items():
        for c in moved:
            if c.module == c.old:
                picked.setdefault(file, {}).setdefault(c.module or "", []).append(c.version)
    for file, per_module in picked.items():
        more, said = port_choices.extend(before, root, patch, file, per_module, known)
        edits += more
        changes += said
    for file, moved in by_file.items():
        other = [c for c in moved if c.module != c.old]
        if not other:
            continue
        module = other[0].module or ""
        if any(c.module != module for c in other):
            return Port(patch, cells, before, None, (), f"{file}: the scope moved to several modules: edit by hand")
        low, high = min(c.version for c in other), max(c.version for c in other)
        claimed = [k for k in known if not k.is_prerelease and patch.supported.contains(k, prereleases=True)]
        if claimed and high < min(claimed):  # a backport: the older releases asked for used another module
            bound = min(k for k in known if k > high and not k.is_prerelease)  # the old module's first release
            move = port_edits.Move(f"<{bound}", f">={bound}", high, first=True)
            stay = [c.version for c in rest if c not in other and c.version <= high]
            side = f"releases before {high}"
        else:
            move = port_edits.Move(f">={low}", f"<{low}", low, first=False)
            stay = [c.version for c in rest if c not in other and c.version >= low]
            side = f"releases after {low}"
        if stay:
            return Port(patch, cells, before, None, (), f"{file}: {side} still use the old module: edit by hand")
        edits += port_edits.add_choice(before, root, patch, file, module, move)
        changes.append(f"modules.{file}: {module} for {move.new}")
    if "\r\n" in before:  # a CRLF file gets CRLF lines
        edits = [yamledit.Edit(e.start, e.end, e.text.replace("\n", "\r\n")) for e in edits]
    # one node reached twice (an alias `versions: *range` of `supported: &range ...`) is edited once
    edits = list(dict.fromkeys(edits))
    try:
        after = yamledit.apply(before, edits)
    except ValueError:  # the same text edited two ways: two keys share one anchor with different needs
        raise UsageError(
            f"{patch.source}: two ranges port would change differently are one node (an anchor and its alias)",
            "write them apart, then port again",
        ) from None
    had = tuple(k for k in known if not k.is_prerelease and patch.supported.contains(k, prereleases=True))
    shared = yamledit.shared(before, root, edits)
    changed = tuple(changes)
    return Port(patch, cells, before, after, changed, requires=requires, new_range=new_range, had=had, shared=shared)


def _new(patch: Patch, cells: tuple[matrix.Cell, ...]) -> bool:
    """A release of `cells` the entry does not claim yet, or whose scope moved: the edit has work."""
    return any(c.kind == matrix.MOVED or c.uncovered or not patch.supported.contains(c.version, True) for c in cells)


def _own_fails(
    patch: Patch,
    cells: tuple[matrix.Cell, ...],
    releases: Releases,
    requires: tuple[Patch, ...],
    stream: TextIO | None,
) -> str:
    """When no release asked for is one the entry claims: whether it proves on its own release nearest
    them. A nearest candidate on a new release says little of an entry that fails where it was written:
    "" when it proves there (or the entry claims no listed release), else that release and why."""
    asked = [c.version for c in cells]
    if not asked or any(patch.supported.contains(v, prereleases=True) for v in asked):
        return ""
    listed = releases.versions(patch.distribution, patch.supported).versions
    own = [v for v in listed if not v.is_prerelease and patch.supported.contains(v, prereleases=True)]
    if not own:
        return ""
    below = [v for v in own if v < asked[0]]
    at = below[-1] if below else own[0]
    try:
        report = verify(patch, SpecifierSet(f"=={at}"), releases, probe=False, stream=stream, requires=requires)
        failing = report.failing
    except RadpatchError:  # it cannot be read now: the cells above say what is known
        return ""
    if not failing:
        return ""
    return (
        f"; it does not prove on its own release {at} either ({short(failing[0].error or 'fails', 120)}): "
        f"fix the entry there first (`radpatch verify {patch.name} --versions =={at}`)"
    )


def edited(port: Port) -> Patch:
    """The edited entry, loaded from its text as the registry file it will become (payload paths
    resolve and errors name that file; nothing is written, so --dry-run proves too and a read-only
    registry is no internal error)."""
    assert port.after is not None
    return loader.load_bytes(port.patch.source, port.after.encode("utf-8"))


def prove_edit(port: Port, releases: Releases, stream: TextIO | None = None) -> list[tuple[Version | None, str]]:
    """Prove the edited entry over its whole new `supported` range: the releases that fail, with why
    (no version: the edit itself cannot be loaded or verified)."""
    try:
        entry = edited(port)
        report = verify(entry, entry.supported, releases, probe=False, stream=stream, requires=port.requires)
    except RadpatchError as exc:
        return [(None, exc.message)]
    failing: list[tuple[Version | None, str]] = [(r.version, r.error or "fails") for r in report.failing]
    # a release the edit newly claims must be decided by the YAML: one no choice covers (apply would
    # pick a module by its code) was neither asked for nor given a choice
    bad = {v for v, _ in failing}
    for r in report.results:
        if r.ok and r.in_range and r.version not in port.had and r.version not in bad:
            for file, module in gaps(entry, r.version, r.modules):
                failing.append((r.version, f"module: no `modules: {file}:` choice covers {r.version} ({module})"))
    return failing


def in_series(patches: list[Patch], load: Callable[[str], Patch]) -> list[Patch]:
    """The named entries in the order apply runs them (an entry after those it requires): a requirement
    ported in the same command is ported first, and the entries after it are proven on its edit."""
    from radpatch.registry import series

    named = {p.name for p in patches}
    return [p for p in series.with_requirements(patches, load) if p.name in named]
