"""What a patch file says, as importing.unified reads it: per file section, the names its headers
give and its hunks (each hunk's lines as `patch` reads them), and what git's extended header says
(new, deleted, renamed or copied file, modes, binary). Plain records: nothing here reads a patch
or touches the file system (importing.unified reads; importing.paths decides the file; importing.hunks
applies the hunks)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal[" ", "-", "+"]


@dataclass(frozen=True)
class Line:
    kind: Kind
    text: str  # with its newline, unless `\ No newline at end of file` followed it


@dataclass(frozen=True)
class Hunk:
    number: int  # 1-based within its file section, as patch counts them
    old_start: int  # as written in the header (0 for an empty old range)
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[Line, ...]
    patch_line: int  # line of the `@@` header in the patch file

    @property
    def first(self) -> int:
        """The old line the hunk starts at, as patch uses it: an empty range appends after old_start."""
        return self.old_start + (1 if self.old_count == 0 else 0)

    @property
    def pattern(self) -> tuple[str, ...]:
        return tuple(ln.text for ln in self.lines if ln.kind != "+")

    @property
    def replacement(self) -> tuple[str, ...]:
        return tuple(ln.text for ln in self.lines if ln.kind != "-")

    @property
    def prefix_context(self) -> int:
        n = 0
        for ln in self.lines:
            if ln.kind != " ":
                break
            n += 1
        return n

    @property
    def suffix_context(self) -> int:
        n = 0
        for ln in reversed(self.lines):
            if ln.kind != " ":
                break
            n += 1
        return n


@dataclass(frozen=True)
class FilePatch:
    """One file's section of a patch file: the names it gives and its hunks."""

    old_name: str | None  # after -p stripping; None: /dev/null, absent, or too few components
    new_name: str | None
    index_name: str | None  # from `Index:`, used only when neither old nor new gives a name
    hunks: tuple[Hunk, ...]
    old_missing: int  # 0: exists; 1: the hunk says so (@@ -0,0); 2: for sure (/dev/null, epoch, new file mode)
    new_missing: int  # same for the result: 2 means patch deletes the file
    header_line: int  # first header line of the section in the patch file (1-based)
    git: bool = False
    rename: bool = False
    copy: bool = False
    binary: bool = False
    old_mode: int = 0
    new_mode: int = 0
    written: str = ""  # the name as the patch writes it, before -p (for messages about the section)

    @property
    def names(self) -> tuple[str | None, str | None, str | None]:
        """Candidate names in patch's order (old, new, index); index only when neither other is given."""
        index = self.index_name if self.old_name is None and self.new_name is None else None
        return self.old_name, self.new_name, index

    @property
    def shown(self) -> str:
        """The name to show in messages."""
        return next((n for n in (self.new_name, self.old_name, self.index_name) if n), "?")


@dataclass(frozen=True)
class PatchFile:
    label: str  # the path as the user gave it, for messages
    subject: str  # format-patch's Subject (without [PATCH n/m]), or ""
    files: tuple[FilePatch, ...]
    skipped: tuple[str, ...] = ()  # what GNU patch skips that could matter (a combined diff), one line each


def lines_of(text: str) -> list[str]:
    """`text`'s lines as patch reads them, each with its newline: split at "\n" only. A form feed,
    "\r" alone, U+2028 and the like are characters of a line to patch (str.splitlines would end a
    line there: att47 #3)."""
    lines = text.split("\n")
    out = [ln + "\n" for ln in lines[:-1]]
    return [*out, lines[-1]] if lines[-1] else out
