"""Import patch files together, in order, as GNU patch would apply them one after another.

Why a series: real deployments apply 10 to 50 patch files to one pinned install, later ones
changing files the earlier ones changed or created. Each patch is applied to the files as the
earlier ones left them (in memory; nothing on disk changes), its own before/after become its
entry's rewrites, and an entry that touches a file an earlier one touched (or created) requires
that earlier entry (the latest one per file).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import RadpatchError, RefusedError, SectionRefused
from radpatch.importing import depends, emit, exclude_word, hunks, sections, stacking, unified
from radpatch.importing.import_steps import DiffFile
from radpatch.importing.owners import Owners
from radpatch.importing.series_files import (
    SeriesFiles,
    SeriesOptions,
    copied_from,
    left_out_contents,
    mode_left_out,
    patched_file,
)
from radpatch.state import hashes
from radpatch.state.record import Store, sha256


@dataclass(frozen=True)
class Imported:
    """One patch file, applied: the files it changes (before/after as `patch` gives them)."""

    label: str
    subject: str
    changes: tuple[DiffFile, ...]
    requires: tuple[int, ...]  # indexes of earlier patches in the series
    said: tuple[
        str, ...
    ] = ()  # what `patch` would say of its hunks: offsets and fuzz ("Hunk #2 succeeded at 130 with fuzz 1.")
    left_out: tuple[str, ...] = ()  # sections --include/--exclude left out: "docs/conf.py (2 hunks)"
    not_imported: tuple[tuple[str, str], ...] = ()  # files `patch` changes that no entry can say: (name after -p, why)
    patched: tuple[tuple[str, str | None], ...] = ()  # every file `patch` changes, as it leaves it (imported or not)
    # entries radpatch applied that a file the patch changes carries (the diff was made on top of them)
    on_applied: tuple[str, ...] = ()


def apply_series(
    patches: list[tuple[str, bytes]], site: Path, options: SeriesOptions, owners: Owners
) -> list[Imported]:
    files = SeriesFiles(site)
    _refuse_every_left_out(patches, files, options)
    touched: dict[str, int] = {}  # file -> latest patch that changed it
    out: list[Imported] = []
    for n, (label, data) in enumerate(patches):
        parsed = unified.parse(label, data, options.strip)
        # a git copy copies its source as it was before this patch file (as GNU patch, which keeps each file's
        # original), not as an earlier section of the file left it (att60 F01)
        at_start = dict(files.text)
        firsts: dict[str, str | None] = {}
        shown: dict[str, str] = {}
        said = [f"{line}: skipped; {unified.ONE_PARENT}" for line in parsed.skipped]  # what GNU patch skips, said
        left_out: list[str] = []
        for section in parsed.files:
            if not options.keeps(section):
                left_out.append(f"{section.written or section.shown} ({left_out_contents(section)})")
                continue
            try:
                rel, name = patched_file(label, section, files, options)
            except RefusedError as exc:
                raise stacking.stacked_or(exc, label, data, section, patches[n + 1 :], options.strip) from None
            source = copied_from(label, section, files, options) if section.copy else None
            before = files.read(rel)
            if source is not None and before is not None:
                raise RefusedError(
                    f"{label}:{section.header_line}: {rel}: the patch copies {source} to it, but it exists already",
                    "the module exists in this install: is the patch applied already?",
                )
            copied = None if source is None else at_start[source] if source in at_start else files.installed(source)
            outcome = hunks.apply(section, copied if source is not None else before)
            if section.old_missing == 2 and before and outcome.failed:
                raise RefusedError(
                    f"{label}: {rel}: Patch attempted to create file {rel}, which already exists. Hunk #1 FAILED at 1.",
                    "the module exists in this install: is the patch applied already?",
                )
            if section.old_missing == 2 and not section.hunks and before is not None:
                raise RefusedError(
                    f"{label}:{section.header_line}: {rel}: the patch creates this file (empty), which already exists",
                    "the module exists in this install: is the patch applied already?",
                )
            if outcome.failed and not outcome.reversed_hint:
                failed = [section.hunks[r.number - 1] for r in outcome.failed]
                missing = stacking.missing_lines(failed, copied if source is not None else before)
                series = stacking.needs_earlier(label, data, missing, patches[n + 1 :], options.strip)
            else:
                series = ""
            _check(label, rel, section, outcome, series)
            said += [f"{rel}: {r.report()}" for r in outcome.results if r.report()]
            after = outcome.text
            if section.new_missing == 2 and after == "":
                raise RefusedError(
                    f"{label}:{section.header_line}: {rel}: the patch deletes this module; radpatch cannot "
                    "express deleting a module",
                    f"leave it out with {exclude_word.option(name)} (and delete the file another way)",
                )
            firsts.setdefault(rel, before)
            shown.setdefault(rel, name)
            files.text[rel] = after
            mode = mode_left_out(section, name)
            if mode:
                left_out.append(mode)
        changed = [DiffFile(rel, firsts[rel], files.text[rel], _owner_name(owners, rel), shown[rel]) for rel in firsts]
        unsaid = {c.rel: (c.name, why) for c in changed if (why := _unsayable(c))}
        changes = tuple(c for c in changed if c.rel not in unsaid)
        requires = tuple(sorted({touched[c.rel] for c in changes if c.rel in touched}))
        on_applied = _carried(site, [c for c in changes if c.rel not in touched and c.before is not None])
        for c in changes:
            touched[c.rel] = n
        out.append(
            Imported(
                label,
                parsed.subject,
                changes,
                requires,
                tuple(said),
                tuple(left_out),
                tuple(unsaid.values()),
                tuple((c.rel, c.after) for c in changed),
                on_applied,
            )
        )
    return _linked(out)


def _refuse_every_left_out(patches: list[tuple[str, bytes]], files: SeriesFiles, options: SeriesOptions) -> None:
    """Where several sections of the patches are of a kind no entry can say (a file that is not Python,
    a rename, a binary patch, a link, a mode change), one refusal names them all, with every
    --exclude to pass: not one run per section (att47 #9). One such section keeps its own refusal."""
    found: list[tuple[RadpatchError, str]] = []
    for label, data in patches:
        try:
            parsed = unified.parse(label, data, options.strip)
        except RadpatchError:
            return  # the series' own pass says what is wrong with the patch file
        for section in parsed.files:
            if not options.keeps(section):
                continue
            try:
                patched_file(label, section, files, options)
            except SectionRefused as exc:
                found.append((exc, exc.excluded))
            except RadpatchError:
                pass
    if len(found) > 1:
        first, names = found[0][0], list(dict.fromkeys(g for _, g in found))
        raise RefusedError(
            f"{first.message} (and {len(found) - 1} more section{'s' if len(found) > 2 else ''} no entry can say: "
            f"{', '.join(names[1:])})",
            f"leave them out with {' '.join(exclude_word.option(g) for g in names)} (and ship them another way)",
        )


def _carried(site: Path, changes: list[DiffFile]) -> tuple[str, ...]:
    """The entries radpatch applied that the installed files `changes` start from carry now (by their
    hashes, as status reads them): the patch was made on top of them, so its entry requires them, as a
    capture's does (att47 #4: written without, it failed on a fresh install with "not found")."""
    store = Store(site)
    out: dict[str, None] = {}
    for c in changes:
        data = (site / c.rel).read_bytes() if (site / c.rel).is_file() else None
        found = hashes.live(store, c.rel, sha256(data), data) if data is not None else None
        out.update(dict.fromkeys(link.patch for link in found[0]) if found else {})
    return tuple(out)


def _linked(entries: list[Imported]) -> list[Imported]:
    """The entries with what each needs to import added to its `requires` (importing.depends):
    the entry creating a module it imports, or adding a name it imports, earlier or later."""
    graph = {n: set(e.requires) for n, e in enumerate(entries)}
    for need in depends.needs([e.changes for e in entries]):
        if need.provider in graph[need.needs]:
            continue
        if depends.reaches(graph, need.provider, need.needs):
            user, provider = entries[need.needs].label, entries[need.provider].label
            gives = "creates" if need.created else "adds to its module"
            raise RefusedError(
                f"{user} imports {need.what}, which {provider} {gives}, but {provider} is applied on top of "
                f"{user}'s changes (it changes what {user} changed, directly or through other patches): "
                "neither entry can be applied without the other",
                f"combine the two patch files into one and import that in their place, or leave the import "
                f"out of {user} and put it in {provider}",
            )
        graph[need.needs].add(need.provider)
    return [
        dataclasses.replace(e, requires=tuple(sorted(graph[n]))) if graph[n] != set(e.requires) else e
        for n, e in enumerate(entries)
    ]


def _unsayable(change: DiffFile) -> str:
    """Why an entry cannot say the file's change although `patch` makes it, or "": its hunks give
    the same bytes back, or change only comments or layout (the code is the same). Such a file is
    not imported and said so; it does not sink the patch's other files."""
    if change.before is None or change.after is None:
        return ""
    if change.before == change.after:
        return f"no code change in {change.rel}: nothing to import (its hunks remove and add the same lines)"
    if emit.same_code(change.before, change.after):
        return (
            f"{change.rel}: the patch changes only comments or layout (the code is the same); radpatch rewrites "
            "code, so an entry could not say this change"
        )
    return ""


def _owner_name(owners: Owners, rel: str) -> str | None:
    owner = owners.of(rel)
    return owner.name if owner else None


def _check(label: str, rel: str, section: sections.FilePatch, outcome: hunks.Outcome, series: str = "") -> None:
    failed = outcome.failed
    if failed:
        lines = " ".join(r.report() for r in failed)
        total = len(outcome.results)
        tip = (
            "it applies reversed: is it applied already? `radpatch status` says if radpatch applied it "
            "(`radpatch revert NAME` undoes it); `radpatch restore FILE` puts a file back to the installed "
            "version's bytes; or leave this patch out"
            if outcome.reversed_hint
            else "the installed file differs from the one the patch was made for; "
            "check the installed version, and -p/-d"
        )
        if series and not outcome.reversed_hint:
            tip = f"{series}; otherwise {tip}"
        if any(r.misordered for r in failed):  # as patch says it, before its FAILED line
            lines = f"misordered hunks! output would be garbled; {lines}"
            tip = (
                "a file's hunks must come in the order of its lines, one change per place (patch refuses them too); "
                + ("reorder or merge them in the patch file")
            )
        hunks_said = f"{len(failed)} out of {total} hunk{'s' if total != 1 else ''}"
        if outcome.skipped:  # as patch says it with no terminal to answer its question
            raise RefusedError(
                f"{label}: {rel}: Reversed (or previously applied) patch detected! Skipping patch. "
                f"({hunks_said} ignored, as GNU patch ignores them)",
                "the installed file already has this change (upstream, or an earlier patch of the series): leave this "
                "patch out; `radpatch status` says if radpatch applied it, `radpatch restore FILE` puts back the "
                "installed version's bytes",
            )
        raise RefusedError(f"{label}: {rel}: {lines} ({hunks_said} FAILED)", tip)
    if section.new_missing == 2 and outcome.text:
        raise RefusedError(
            f"{label}: {rel}: Not deleting file {rel} as content differs from patch",
            "the installed file differs from the one the patch deletes",
        )
