"""Import patch files together, in order, as GNU patch would apply them one after another.

Why a series: real deployments apply 10 to 50 patch files to one pinned install, later ones
changing files the earlier ones changed or created. Each patch is applied to the files as the
earlier ones left them (in memory; nothing on disk changes), its own before/after become its
entry's rewrites, and an entry that touches a file an earlier one touched (or created) requires
that earlier entry (the latest one per file).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.importing import depends, emit, hunks, paths, sections, stacking, unified
from radpatch.importing.import_steps import DiffFile
from radpatch.importing.owners import Owners


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


@dataclass(frozen=True)
class SeriesOptions:
    strip: int | None  # -p (None: as patch without -p, the base name)
    directory: str  # -d, relative to the site directory ("" for the site directory itself)
    include: tuple[str, ...] = field(default=())  # globs: only sections naming a matching file
    exclude: tuple[str, ...] = field(default=())  # globs: sections naming a matching file are left out

    def keeps(self, section: sections.FilePatch) -> bool:
        """Whether the section is imported: as filterdiff -i/-x decide, on the names after -p
        (fnmatch: `*` crosses `/`); a section with no name left after -p matches no glob."""
        names = [n for n in section.names if n]
        if any(fnmatch.fnmatchcase(n, g) for n in names for g in self.exclude):
            return False
        return not self.include or any(fnmatch.fnmatchcase(n, g) for n in names for g in self.include)


class _Files:
    """The site directory as the series has left it so far (in memory)."""

    def __init__(self, site: Path) -> None:
        self.site = site
        self.text: dict[str, str | None] = {}

    def read(self, rel: str) -> str | None:
        if rel in self.text:
            return self.text[rel]
        path = self.site / rel
        if not path.is_file():
            return None
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise RefusedError(f"cannot read {path}: {exc.strerror}", "check the file's permissions")
        return data.decode("utf-8", "surrogateescape")

    def tree(self, directory: str) -> paths.Disk:
        prefix = f"{directory}/" if directory else ""
        created = frozenset(r[len(prefix) :] for r, t in self.text.items() if t is not None and r.startswith(prefix))
        deleted = frozenset(r[len(prefix) :] for r, t in self.text.items() if t is None and r.startswith(prefix))
        return paths.Disk(self.site / directory if directory else self.site, created, deleted)


def apply_series(
    patches: list[tuple[str, bytes]], site: Path, options: SeriesOptions, owners: Owners
) -> list[Imported]:
    files = _Files(site)
    touched: dict[str, int] = {}  # file -> latest patch that changed it
    out: list[Imported] = []
    for n, (label, data) in enumerate(patches):
        parsed = unified.parse(label, data, options.strip)
        firsts: dict[str, str | None] = {}
        shown: dict[str, str] = {}
        said: list[str] = []
        left_out: list[str] = []
        for section in parsed.files:
            if not options.keeps(section):
                left_out.append(f"{section.written or section.shown} ({_what(section)})")
                continue
            try:
                rel, name = _patched_file(label, section, files, options)
            except RefusedError as exc:
                raise _stacked_or(exc, label, data, section, patches[n + 1 :], options.strip) from None
            source = _copied_from(label, section, files, options) if section.copy else None
            before = files.read(rel)
            if source is not None and before is not None:
                raise RefusedError(
                    f"{label}:{section.header_line}: {rel}: the patch copies {source} to it, but it exists already",
                    "the module exists in this install: is the patch applied already?",
                )
            outcome = hunks.apply(section, files.read(source) if source is not None else before)
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
                missing = stacking.missing_lines(failed, files.read(source) if source is not None else before)
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
                    f"leave it out with --exclude '{name}' (and delete the file another way)",
                )
            firsts.setdefault(rel, before)
            shown.setdefault(rel, name)
            files.text[rel] = after
            mode = _mode_left_out(section, name)
            if mode:
                left_out.append(mode)
        changed = [DiffFile(rel, firsts[rel], files.text[rel], _owner_name(owners, rel), shown[rel]) for rel in firsts]
        unsaid = {c.rel: (c.name, why) for c in changed if (why := _unsayable(c))}
        changes = tuple(c for c in changed if c.rel not in unsaid)
        requires = tuple(sorted({touched[c.rel] for c in changes if c.rel in touched}))
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
            )
        )
    return _linked(out)


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


def _what(section: sections.FilePatch) -> str:
    """What a section left out holds, for its `left out:` line: its hunks, or what its git header says."""
    count = len(section.hunks)
    said = [f"{count} hunk{'s' if count != 1 else ''}"] if count else []
    if section.binary:
        said.insert(0, "a binary patch")
    elif section.rename or section.copy:
        said.insert(0, "a rename" if section.rename else "a copy")
    elif section.old_missing == 2 and not count:
        said.append("an empty new file")
    elif section.new_missing == 2 and not count:
        said.append("an empty file deleted")
    elif section.old_mode and section.new_mode and section.old_mode != section.new_mode:
        said.append(f"mode {section.old_mode:o} -> {section.new_mode:o}")
    return ", ".join(said) or "no hunks"


def _copied_from(label: str, section: sections.FilePatch, files: _Files, options: SeriesOptions) -> str:
    """The existing module a git copy section copies (its old name, resolved as patch resolves it)."""
    source = sections.FilePatch(
        section.old_name, None, None, (), 0, 0, section.header_line, True, written=section.written
    )
    resolved = paths.resolve(label, source, files.tree(options.directory), options.strip)
    rel = posixpath.normpath(posixpath.join(options.directory, resolved.rel)) if options.directory else resolved.rel
    if not rel.endswith(".py"):
        raise RefusedError(
            f"{label}:{section.header_line}: {rel} is not a Python module; radpatch rewrites .py files only",
            f"leave the copy out with --exclude '{section.shown}' (and ship it another way)",
        )
    return rel


def _mode_left_out(section: sections.FilePatch, name: str) -> str:
    """What a section with content says of modes that an entry cannot carry (radpatch writes
    source, not file modes): a new mode, or a new file's executable mode; "" when none."""
    if section.new_missing == 2:
        return ""
    old, new = section.old_mode, section.new_mode
    if section.old_missing == 2 or section.copy:
        return f"the mode {new:o} of {name} (radpatch does not set file modes)" if new & 0o111 else ""
    if old and new and old != new:
        return f"the mode change {old:o} -> {new:o} of {name} (radpatch does not set file modes)"
    return ""


def _owner_name(owners: Owners, rel: str) -> str | None:
    owner = owners.of(rel)
    return owner.name if owner else None


def _patched_file(label: str, section: sections.FilePatch, files: _Files, options: SeriesOptions) -> tuple[str, str]:
    """(the file relative to the site directory, its name in the patch after -p: what --exclude matches)."""
    where = f"{label}:{section.header_line}"
    leave_out = f"leave it out with --exclude '{section.shown}' (and ship it another way)"
    if section.binary:
        raise RefusedError(
            f"{where}: binary patch for {section.shown}: radpatch (like GNU patch) cannot apply it; radpatch "
            "rewrites Python source only",
            leave_out,
        )
    special = {0o120000: "a symbolic link", 0o160000: "a git submodule (gitlink)"}
    kind = special.get(section.new_mode) or special.get(section.old_mode)
    if kind:
        raise RefusedError(
            f"{where}: {section.shown} is {kind} in the patch (git mode "
            f"{section.new_mode or section.old_mode:o}); radpatch writes Python source, not links",
            leave_out,
        )
    if section.rename:
        raise RefusedError(
            f"{where}: a git rename of {section.old_name or '?'} to {section.shown}; radpatch cannot express "
            f"moving a module (it would delete {section.old_name or 'the old module'})",
            f"leave it out with --exclude '{section.shown}' (and move the module another way)",
        )
    if not section.hunks and not section.copy and section.old_missing < 2 and section.new_missing < 2:
        # a git section that neither creates, deletes nor copies a file and has no hunk: a mode change
        old, new = section.old_mode, section.new_mode
        if old and new and old != new:
            raise RefusedError(
                f"{where}: {section.shown} changes only its mode ({old:o} -> {new:o}); radpatch cannot express "
                "a mode change",
                leave_out,
            )
        raise RefusedError(
            f"{where}: the git section of {section.shown} has no hunk and creates, deletes, copies or renames "
            "no file: there is no change to import",
            leave_out,
        )
    if section.copy:  # the new name is the file patched (created); the old name the copy's source
        section = sections.FilePatch(
            None, section.new_name, None, section.hunks, 2, 0, section.header_line, True, written=section.written
        )
    resolved = paths.resolve(label, section, files.tree(options.directory), options.strip)
    rel = posixpath.normpath(posixpath.join(options.directory, resolved.rel)) if options.directory else resolved.rel
    if rel.startswith("../") or rel == "..":
        raise RefusedError(f"{where}: {rel} is outside the site directory", "check -d and -p")
    if not rel.endswith(".py"):
        raise RefusedError(
            f"{where}: {rel} is not a Python module; radpatch rewrites .py files only",
            f"leave it out with --exclude '{resolved.rel}' (and ship it another way)",
        )
    return rel, resolved.rel


def _stacked_or(
    exc: RefusedError,
    label: str,
    data: bytes,
    section: sections.FilePatch,
    later: list[tuple[str, bytes]],
    strip: int | None,
) -> RefusedError:
    """A file to patch that is not there: when a patch given after this one creates it, or this one
    is numbered as a later patch of a series, the hint says it seems to need the earlier patches."""
    if "can't find file to patch" not in exc.message or exc.hint.startswith(paths.FOUND_WITH):
        return exc  # not a missing file, or one another -p finds: that is the hint
    other = next((o for n in section.names if n and (o := stacking.creates(n, later, strip))), "")
    series = stacking.first(other, label, "it creates the file") if other else ""
    series = series or (stacking.SERIES if stacking.later_of_series(label, data) else "")
    return RefusedError(exc.message, f"{series}; else: {exc.hint}") if series else exc


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
        raise RefusedError(
            f"{label}: {rel}: {lines} ({len(failed)} out of {total} hunk{'s' if total != 1 else ''} FAILED)", tip
        )
    if section.new_missing == 2 and outcome.text:
        raise RefusedError(
            f"{label}: {rel}: Not deleting file {rel} as content differs from patch",
            "the installed file differs from the one the patch deletes",
        )
