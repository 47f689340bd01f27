"""A registry across releases: every entry verified on the same releases, one cell per entry and release.

`radpatch verify --all` (or several names) runs verify (radpatch.releases.verify) for each
entry over the same releases (SPEC, default: per distribution, from the lowest to the highest
release any of its entries supports) and reduces each result to what a maintainer of a patch queue asks at a bump:

  pass          every check passes
  obsolete      the release already contains the change (or the entry declares it `obsolete:`)
  moved         the scope is no longer where the entry looks; another module of the wheel defines it
                (radpatch.releases.moved found it by its code): named, and whether the rewrites prove there;
                also when no `modules:` choice covers the release and the latest choice's module still
                defines the scope (the choice's range can be extended); when several modules define it
                (a test double beside the new home, say), all are named and port leaves the entry alone;
                and a scope renamed whose old name the module binds to it (radpatch.releases.renamed):
                named with the binding, unproven (the rewrites' `scope:` needs the new name)
  no match      a rewrite does not match; the nearest candidate in the release is named
  out of range  outside the entry's `supported` range (and whether it would pass there, or where it moved)
  fail          another check fails (compile, names, placement, reverse, idempotent): named
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.prove.refusal import NOT_IN_EFFECT, Cause
from radpatch.registry.model import Patch
from radpatch.releases import modules, nearest_code, renamed, renamed_port, renamed_release, vouched_exec
from radpatch.releases import moved as search
from radpatch.releases.proof import NO_BASE
from radpatch.releases.resolved import gaps, stacked
from radpatch.releases.results import ReleaseResult, Report, first_failed
from radpatch.releases.verify import selects, verify
from radpatch.releases.wheels import Releases

PASS, OBSOLETE, MOVED, NO_MATCH, OUT, FAIL = "pass", "obsolete", "moved", "no match", "out of range", "fail"


@dataclass(frozen=True)
class Cell:
    version: Version
    kind: str  # one of PASS, OBSOLETE, MOVED, NO_MATCH, OUT, FAIL
    detail: str = ""  # moved: the module; no match: the nearest candidate; fail: the check; out: passes?
    module: str | None = None  # moved: the module now defining the scope
    proven: bool | None = None  # moved: the rewrites prove in that module
    file: str | None = None  # moved: the entry's `modules:` name
    old: str | None = None  # moved: the module the entry names (or its latest choice, when none covers it)
    # moved: the other modules that define the scope too; out: every one (ambiguous either way: port stops)
    also: tuple[str, ...] = ()
    passes: bool = False  # out: the entry would pass there all the same
    step: str = ""  # fail: the proof step that fails
    not_in_effect: bool = False  # the release holds the new code, which may not take effect (NOT_IN_EFFECT)
    requirement: str | None = None  # out, moved: the required entry that names no module there (port it first)
    # pass, out (pass): each `modules:` name no choice's `versions:` covers there, with the module apply
    # picks by its code (port extends that choice's range)
    uncovered: tuple[tuple[str, str], ...] = ()
    alias: renamed.Renamed | None = None  # moved: the scope renamed, its old name bound to it (port follows it)
    stale: tuple[str, ...] = ()  # the entry's `vouched_exec:` items that match nothing there, in words
    absent: tuple[int, ...] = ()  # the entry's `vouched_exec:` items whose file is not there (not stale)

    @property
    def short(self) -> str:
        if self.kind == OUT:
            if self.also and not self.module:
                return "out (moved: several)"
            return "out (pass)" if self.passes else f"out (moved: {self.module})" if self.module else "out"
        if self.kind == FAIL:
            return f"FAIL {self.step}"
        if self.kind == MOVED and not self.proven:
            return "moved (FAIL)"
        return self.kind

    def to_json(self) -> dict[str, object]:
        return {
            "version": str(self.version),
            "cell": self.kind,
            "detail": self.detail or None,
            "module": self.module,
            "proven": self.proven,
            "also": list(self.also) if self.also else None,
        }


@dataclass(frozen=True)
class Row:
    patch: Patch
    report: Report | None  # None: the entry could not be verified (error)
    cells: tuple[Cell, ...]
    error: RadpatchError | None = None


def upstream(patch: Patch) -> tuple[str, ...]:
    """The entry's `upstream:` links (the PRs or issues that make it obsolete)."""
    return patch.upstream


def span(patches: list[Patch], releases: Releases) -> dict[str, SpecifierSet]:
    """Per distribution: from the lowest to the highest final release any of its entries supports,
    the one range each of them is verified over."""
    bounds: dict[str, tuple[Version, Version]] = {}
    for p in patches:
        try:
            listing = releases.versions(p.distribution, SpecifierSet()).versions
        except RadpatchError:
            continue  # its row says why
        mine = [v for v in listing if not v.is_prerelease and selects(p.supported, v)]
        if mine:
            low, high = bounds.get(p.distribution, (mine[0], mine[-1]))
            bounds[p.distribution] = (min(low, mine[0]), max(high, mine[-1]))
    return {dist: SpecifierSet(f">={low},<={high}") for dist, (low, high) in bounds.items()}


def rows(
    patches: list[Patch],
    spec: SpecifierSet | None,
    releases: Releases,
    stream: TextIO | None = None,
    requires: Callable[[Patch], tuple[Patch, ...]] | None = None,
    python: tuple[int, int] | None = None,
) -> list[Row]:
    """`requires(p)`: the entries p requires, in the order apply runs them (each is proven on what they leave)."""
    spans = span(patches, releases) if spec is None else {}
    out = []
    for p in patches:
        wanted = spec if spec is not None else spans.get(p.distribution, p.supported)
        try:
            below = requires(p) if requires is not None else ()
            report = verify(
                p, wanted, releases, probe=False, stream=stream or sys.stderr, requires=below, python=python
            )
        except RadpatchError as exc:  # e.g. no release of its distribution in SPEC: one row says so
            out.append(Row(p, None, (), exc))
            continue
        out.append(Row(p, report, tuple(cell(p, r, releases, requires=below) for r in report.results)))
    return out


def cell(
    patch: Patch, r: ReleaseResult, releases: Releases, anywhere: bool = False, requires: tuple[Patch, ...] = ()
) -> Cell:
    """The cell of one release (_cell), with the `vouched_exec:` items matching nothing there (stale) or not there."""
    said = tuple(vouched_exec.stale_words(patch.vouched_exec, r.version, i, why) for i, why in r.stale)
    return dataclasses.replace(_cell(patch, r, releases, anywhere, requires), stale=said, absent=r.absent)


def _cell(
    patch: Patch, r: ReleaseResult, releases: Releases, anywhere: bool = False, requires: tuple[Patch, ...] = ()
) -> Cell:
    """The cell of one release; `anywhere`: classify releases outside the range as if inside (port).
    `requires`: the entries it requires, in apply's order: a moved module is proven, and the nearest
    candidate read, on what they leave of the release's files, as verify proves."""
    if r.obsolete or r.note:
        links = upstream(patch)
        why = "declared `obsolete:`" if r.note else "the release already contains the change"
        return Cell(r.version, OBSOLETE, why + (f" (upstream: {', '.join(links)})" if links else ""))
    if not r.in_range and not anywhere:
        held = r.kind.cause is Cause.NOT_IN_EFFECT
        why = "passes" if r.ok else f"{first_failed(r)} fails" + (f": {NOT_IN_EFFECT}" if held else "")
        out = Cell(
            r.version,
            OUT,
            why,
            passes=r.ok,
            not_in_effect=held,
            uncovered=gaps(patch, r.version, r.modules) if r.ok else (),
        )
        if r.ok or first_failed(r) not in ("module", "match") or not search.scope_gone(r.kind):
            return out
        to = _moved(patch, r, releases, requires)  # port would carry it: say where to
        if isinstance(to, search.Moved) and to.proven and to.module != to.old and not to.also:
            detail = f"{out.detail}; moved: {to.old} -> {to.module} (the rewrites prove there)"
            return dataclasses.replace(out, detail=detail, module=to.module, proven=True, file=to.file, old=to.old)
        if isinstance(to, search.Moved) and to.obsolete and not to.also:  # nothing to port there
            detail = f"{out.detail}; moved: {to.old} -> {to.module}, which already contains the change"
            return dataclasses.replace(out, detail=detail)
        if isinstance(to, search.Moved) and to.requirement is not None and not to.also:  # port it first
            detail = (
                f"{out.detail}; moved: {to.old} -> {to.module}, where the rewrites do not prove: {to.error}; "
                f"run `radpatch port {to.requirement} --to {r.version}` first, then port this entry"
            )
            return dataclasses.replace(out, detail=detail, requirement=to.requirement)
        if isinstance(to, search.Moved) and to.also:  # port would leave it: say why
            several = (to.module, *to.also)
            detail = f"{out.detail}; the scope is now defined in several modules ({', '.join(several)}): edit by hand"
            return dataclasses.replace(out, detail=detail, also=several)
        alias = _renamed(patch, r, releases, requires) if not isinstance(to, search.Moved) else None
        if not isinstance(alias, renamed.Renamed) or (file := _file_of(patch, r)) is None:
            return out
        got = renamed_port.follow(patch, file, alias, r.version, releases, requires)  # port would follow it
        said = f"{out.detail}; moved: {renamed_port.said(alias, got)}"
        return dataclasses.replace(out, detail=said, module=alias.module if got.proven else None)
    if r.ok:
        picked = gaps(patch, r.version, r.modules) if r.ok else ()
        said = "; ".join(f"no `modules:` choice of {f!r} covers it: apply picks {m} by its code" for f, m in picked)
        return Cell(r.version, PASS, said, uncovered=picked)
    failed = first_failed(r)
    unsure = ""  # what the search for a moved scope could not rule out
    where: search.Moved | search.NoMove | None = None
    if failed in ("module", "match") and search.scope_gone(r.kind):
        where = _moved(patch, r, releases, requires)
        if isinstance(where, search.NoMove):
            unsure = where.describe()
        elif where is not None and where.obsolete and not where.also:  # moved, and upstream took the change there
            took = f"moved: {where.old} -> {where.module}, which already contains the change"
            return Cell(r.version, OBSOLETE, took, where.module, False, where.file, where.old)
        elif where is not None:
            how = "the rewrites prove there" if where.proven else f"the rewrites do not prove there: {where.error}"
            if where.module == where.old:  # no choice of `modules:` covers the release; the latest still holds it
                what = f"no `modules:` choice covers it; {where.old} still defines the scope ({how})"
            else:
                what = f"{where.old} -> {where.module} ({how})"
            if where.also:
                what += (
                    f"; {', '.join(where.also)} also define(s) the scope: "
                    "which one the program uses cannot be told from the code (write the choice by hand)"
                )
            return Cell(r.version, MOVED, what, where.module, where.proven, where.file, where.old, where.also)
    alias = _renamed(patch, r, releases, requires) if not isinstance(where, search.Moved) else None
    file = _file_of(patch, r)
    if isinstance(alias, renamed.Renamed) and file:  # the old name bound to the code under a new name: port follows
        got = renamed_port.follow(patch, file, alias, r.version, releases, requires)
        said = renamed_port.said(alias, got)
        return Cell(r.version, MOVED, said, alias.module, got.proven, file, alias.binder, alias=alias)
    if isinstance(alias, str):  # an alias (in a class body, at module level, a backport's) not followed: why
        unsure = f"{unsure}; {alias}" if unsure else alias
    if failed == "match" and r.kind.cause is Cause.OTHER_CODE:  # the nearest candidate is in its words
        return Cell(r.version, NO_MATCH, (r.error or "").removeprefix("match: ").splitlines()[0])
    if failed == "match":
        if isinstance(where, search.NoMove) and where.complete:  # where each scope is: not a namesake by name
            return Cell(r.version, NO_MATCH, unsure)
        near = _nearest(patch, r, releases, requires)
        near = f"{near}; {NO_BASE}" if r.kind.cause is Cause.NO_BASE else near  # conservatively: no base was read
        return Cell(r.version, NO_MATCH, f"{near}; {unsure}" if unsure else near)
    why = r.error or ""
    why = why if why.startswith(f"{failed}: ") else f"{failed}: {why}"  # the words only: the step is typed
    return Cell(r.version, FAIL, f"{why}; {unsure}" if unsure else why, step=failed or "")


def _file_of(patch: Patch, r: ReleaseResult) -> str | None:
    """The `modules:` name the failure concerns: the one no choice covers, whose module the wheel lacks, or
    whose rewrite does not match."""
    if r.kind.file is not None:
        return r.kind.file
    rewrite = r.kind.rewrite
    return next((rw.file for rw in patch.rewrites if rw.id == rewrite), None) if rewrite is not None else None


def _renamed(
    patch: Patch, r: ReleaseResult, releases: Releases, requires: tuple[Patch, ...]
) -> renamed.Renamed | str | None:
    """A scope gone from its module whose old name is bound to a definition of a new name: moved (renamed);
    why not, where the rules refuse such an alias."""
    file = _file_of(patch, r)
    gone = r.kind.cause in (Cause.SCOPE_GONE, Cause.NO_MODULE, Cause.UNCOVERED)  # no module: a backport's
    if first_failed(r) not in ("match", "module") or not gone or file is None:
        return None
    rewrite = r.kind.rewrite or next((rw.id for rw in patch.rewrites if rw.file == file), None)  # no module: its first
    return renamed_release.judged(patch, file, rewrite, r.version, releases, requires)  # a backport's too


def _moved(
    patch: Patch, r: ReleaseResult, releases: Releases, requires: tuple[Patch, ...]
) -> search.Moved | search.NoMove | None:
    file = _file_of(patch, r)
    if file is None:
        return None
    try:
        return search.find_moved(patch, file, r.version, releases, requires)
    except RadpatchError:
        return None  # the index cannot be read now: the cell stays a failure


def _nearest(patch: Patch, r: ReleaseResult, releases: Releases, requires: tuple[Patch, ...]) -> str:
    rewrite = r.kind.rewrite
    file = _file_of(patch, r)
    first = (r.error or "").splitlines()[0]
    if rewrite is None or file is None:
        return first
    choice = patch.module(file).module_for(r.version)
    if choice is None:
        return first
    try:
        release = releases.get(patch.distribution, r.version, modules.needs((*requires, patch)))
        data = stacked(requires, patch, file, r.version, release)
    except RadpatchError:
        data = None
    near = nearest_code.nearest(patch, rewrite, choice.module, data) if data is not None else None
    if near is None:
        return f"rewrite {rewrite!r}: nothing similar in {choice.module}"
    return f"rewrite {rewrite!r}: nearest candidate {near.describe()}"


# --- rendering -----------------------------------------------------------------------------------
