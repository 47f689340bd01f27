"""A series' sections and the files they patch: the options (-p, -d, --include/--exclude as
filterdiff reads them), the site directory as the series has left it so far (in memory, nothing
on disk changes), which file a section patches (refused where no entry can say it: a binary
patch, a link, a rename, a mode change alone, a file outside the site directory or not a .py
module), and what a section left out held, for its `left out:` line."""

from __future__ import annotations

import fnmatch
import os
import posixpath
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from radpatch.errors import RefusedError, SectionRefused
from radpatch.importing import exclude_word, paths, sections
from radpatch.install import editable, wheel_record
from radpatch.install.environment import linked_directory


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


class SeriesFiles:
    """The site directory as the series has left it so far (in memory)."""

    def __init__(self, site: Path) -> None:
        self.site = site
        self.text: dict[str, str | None] = {}

    def read(self, rel: str) -> str | None:
        return self.text[rel] if rel in self.text else self.installed(rel)

    def installed(self, rel: str) -> str | None:
        """The file as installed, before the series."""
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


def patched_file(
    label: str, section: sections.FilePatch, files: SeriesFiles, options: SeriesOptions
) -> tuple[str, str]:
    """(the file relative to the site directory, its name in the patch after -p: what --exclude matches)."""
    where = f"{label}:{section.header_line}"
    shown = section.shown
    leave_out = f"leave it out with {exclude_word.option(shown)} (and ship it another way)"
    if section.binary:
        raise SectionRefused(
            f"{where}: binary patch for {section.shown}: radpatch (like GNU patch) cannot apply it; radpatch "
            "rewrites Python source only",
            leave_out,
            shown,
        )
    special = {0o120000: "a symbolic link", 0o160000: "a git submodule (gitlink)"}
    kind = special.get(section.new_mode) or special.get(section.old_mode)
    if kind:
        raise SectionRefused(
            f"{where}: {section.shown} is {kind} in the patch (git mode "
            f"{section.new_mode or section.old_mode:o}); radpatch writes Python source, not links",
            leave_out,
            shown,
        )
    if section.rename:
        raise SectionRefused(
            f"{where}: a git rename of {section.old_name or '?'} to {section.shown}; radpatch cannot express "
            f"moving a module (it would delete {section.old_name or 'the old module'})",
            f"leave it out with {exclude_word.option(shown)} (and move the module another way)",
            shown,
        )
    if not section.hunks and not section.copy and section.old_missing < 2 and section.new_missing < 2:
        # a git section that neither creates, deletes nor copies a file and has no hunk: a mode change
        old, new = section.old_mode, section.new_mode
        if old and new and old != new:
            raise SectionRefused(
                f"{where}: {section.shown} changes only its mode ({old:o} -> {new:o}); radpatch cannot express "
                "a mode change",
                leave_out,
                shown,
            )
        raise SectionRefused(
            f"{where}: the git section of {section.shown} has no hunk and creates, deletes, copies or renames "
            "no file: there is no change to import",
            leave_out,
            shown,
        )
    if section.copy:  # the new name is the file patched (created); the old name the copy's source
        section = sections.FilePatch(
            None, section.new_name, None, section.hunks, 2, 0, section.header_line, True, written=section.written
        )
    try:
        resolved = paths.resolve(label, section, files.tree(options.directory), options.strip)
    except RefusedError:
        _refuse_editable(where, section, files, options)
        raise
    rel = posixpath.normpath(posixpath.join(options.directory, resolved.rel)) if options.directory else resolved.rel
    if rel.startswith("../") or rel == "..":
        raise RefusedError(f"{where}: {rel} is outside the site directory", "check -d and -p")
    if not rel.endswith(".py"):
        raise SectionRefused(
            f"{where}: {rel} is not a Python module; radpatch rewrites .py files only",
            f"leave it out with {exclude_word.option(resolved.rel)} (and ship it another way)",
            resolved.rel,
        )

    def recorded() -> list[str]:  # every distribution's RECORD paths: read only where a link is found
        return [r for record in files.site.glob("*.dist-info/RECORD") for r in wheel_record.rows(record)]

    link = files.site / rel if (files.site / rel).is_symlink() else linked_directory(files.site, rel, recorded)
    if link is not None:  # att60 F10: apply would refuse it, or write outside the install
        raise SectionRefused(
            f"{where}: {link} is a symbolic link: radpatch does not write through links",
            f"leave it out with {exclude_word.option(resolved.rel)} (and patch the file it points to another way)",
            resolved.rel,
        )
    odd = [part for part in rel.removesuffix(".py").split("/") if not part.isidentifier()]
    if odd:  # att59 F6: `toypkg/data-files/tool.py` has no dotted module name an entry could give
        raise SectionRefused(
            f"{where}: {rel} cannot be imported as a module ({odd[0]!r} is not a Python name), so no registry "
            "entry can name it; radpatch rewrites importable modules only",
            f"leave it out with {exclude_word.option(resolved.rel)} (and ship it another way)",
            resolved.rel,
        )
    other = other_spelling(files, rel) if files.read(rel) is None else None
    if other is not None:  # att60 F07: apply refused it as drifted, "someone else changed the file"
        mac = ", as macOS writes names" if _form(rel) == "NFD" else ""
        raise SectionRefused(
            f"{where}: the patch creates {rel}, but the install has {other}, the same name in another Unicode "
            f"form (the patch's in {_form(rel)}{mac}; the install's in {_form(other)}): Python imports both as "
            "one module",
            f"to change the installed module, make the patch from {other} as installed; else leave this file out "
            f"with {exclude_word.option(resolved.rel)}",
            resolved.rel,
        )
    return rel, resolved.rel


def other_spelling(files: SeriesFiles, rel: str) -> str | None:
    """The file there is (installed, or created earlier in the series) whose path is `rel` in another
    Unicode spelling (NFD where it is NFC): Python reads a module's name as NFKC, so the two would
    be one module, and GNU patch would create a second file no import finds. None when there is none."""
    key = unicodedata.normalize("NFKC", rel)
    for r, t in files.text.items():
        if t is not None and r != rel and unicodedata.normalize("NFKC", r) == key:
            return r
    here, found = files.site, []
    for part in rel.split("/"):
        if (here / part).exists() or not here.is_dir():
            name = part
        else:
            want = unicodedata.normalize("NFKC", part)
            try:
                names = sorted(os.listdir(here))
            except OSError:
                return None
            name = next((n for n in names if unicodedata.normalize("NFKC", n) == want), part)
        found.append(name)
        here = here / name
    other = "/".join(found)
    return other if other != rel and here.is_file() and files.read(other) is not None else None


def _form(name: str) -> str:
    return next((f for f in ("NFC", "NFD") if unicodedata.is_normalized(f, name)), "neither NFC nor NFD")


def _refuse_editable(at: str, section: sections.FilePatch, files: SeriesFiles, options: SeriesOptions) -> None:
    """A file patch cannot find because it is a module of an editable install (its code is in the
    source tree, not the site directory): refused as apply refuses it."""
    for name in section.names:
        if name:
            rel = posixpath.normpath(posixpath.join(options.directory, name))
            found = editable.owner([files.site], rel)
            if found is not None:
                exc = editable.refusal(found[0], found[1], rel)
                raise RefusedError(f"{at}: {exc.message}", exc.hint)


def copied_from(label: str, section: sections.FilePatch, files: SeriesFiles, options: SeriesOptions) -> str:
    """The existing module a git copy section copies (its old name, resolved as patch resolves it)."""
    source = sections.FilePatch(
        section.old_name, None, None, (), 0, 0, section.header_line, True, written=section.written
    )
    resolved = paths.resolve(label, source, files.tree(options.directory), options.strip)
    rel = posixpath.normpath(posixpath.join(options.directory, resolved.rel)) if options.directory else resolved.rel
    if not rel.endswith(".py"):
        raise SectionRefused(
            f"{label}:{section.header_line}: {rel} is not a Python module; radpatch rewrites .py files only",
            f"leave the copy out with {exclude_word.option(section.shown)} (and ship it another way)",
            section.shown,
        )
    return rel


def mode_left_out(section: sections.FilePatch, name: str) -> str:
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


def left_out_contents(section: sections.FilePatch) -> str:
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
