"""Read a patch file the way GNU patch 2.7 reads it: GNU diff and git diff/format-patch output.

Why a faithful reader: a team's series is proven by `patch -p1` in their Dockerfile, so an import
that reads it differently (another file, another hunk boundary, a lost `\\ No newline`) would
silently import something else. The rules mirrored here are GNU patch's (pch.c, util.c):

- anything before a header is preamble (mail headers, commit message, diffstat) and skipped;
- `--- OLD` / `+++ NEW` name the file (each alone too; `*** ` names the new one), `Index:` only when
  neither does, `diff --git a/X b/Y` with its extended header lines (index, modes, new/deleted file,
  rename, copy, binary); a context, normal or ed diff is looked for only after a header line;
- a name ends at the first white space unless a tab separates it from a date, or it is a C-quoted
  string; `/dev/null`, and a name with fewer slashes than `-p` strips, are no name at all;
- `-p N` strips N leading components (runs of slashes count once), no `-p` keeps the base name;
- a hunk `@@ -a,b +c,d @@` reads exactly b old and d new lines; a line that is empty or starts
  with a tab is context whose space was eaten; `\\ No newline at end of file` ends the line
  before it without a newline;
- `@@ -0,0` says the old file does not exist (for sure when its date is the epoch or it is
  /dev/null), `+0,0` the same of the new file.

Nothing here touches the file system: which file a section patches is decided in paths.py. The
records it reads into are importing.sections'; the names and modes of header lines, importing.header_names'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from radpatch.errors import UsageError
from radpatch.importing.header_names import fetch, mode, split_git, subject_of
from radpatch.importing.other_formats import ONE_PARENT as ONE_PARENT
from radpatch.importing.other_formats import combined, combined_said, other_format
from radpatch.importing.sections import FilePatch, Hunk, Line, PatchFile, lines_of

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? ?\+(\d+)(?:,(\d+))? ?@@(?: (.*))?$")
_EPOCH = ("1970-01-01", "1969-12-31")  # GNU diff -N dates a missing file at the epoch (any time zone)


class MalformedPatch(UsageError):
    """The patch file is not something GNU patch would read."""


@dataclass
class _Header:
    """The header being read for the next section (mutable while scanning, then frozen into FilePatch)."""

    start: int = 0
    old: str | None = None
    new: str | None = None
    index: str | None = None
    old_null: bool = False
    new_null: bool = False
    old_date: str = ""
    new_date: str = ""
    git: bool = False
    extended: bool = False
    old_missing: int = 0
    new_missing: int = 0
    rename: bool = False
    copy: bool = False
    binary: bool = False
    old_mode: int = 0
    new_mode: int = 0
    seen: bool = False  # any header line at all
    written: str = ""  # the last real name a header gave, unstripped


class _Reader:
    def __init__(self, label: str, text: str, strip: int | None) -> None:
        self.label = label
        self.lines = lines_of(text)
        self.strip = strip
        self.i = 0
        self.skipped: list[tuple[int, str]] = []  # combined diffs GNU skips: (line, file)

    def fail(
        self, line: int, what: str, hint: str = "check the patch file: GNU patch would reject it the same way"
    ) -> MalformedPatch:
        return MalformedPatch(f"{self.label}:{line}: {what}", hint)

    def read(self) -> tuple[FilePatch, ...]:
        out: list[FilePatch] = []
        while True:
            section = self._section()
            if section is None:
                return tuple(out)
            out.append(section)

    def _section(self) -> FilePatch | None:
        h = _Header()
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            s = raw.rstrip("\n").rstrip("\r")
            if s.startswith("diff --git "):
                if h.extended:
                    return self._freeze(h, ())  # a git section without hunks (mode change, rename, binary)
                h = _Header(start=self.i + 1, git=True, seen=True)
                h.old, h.new = split_git(s[11:], self.strip)
                h.written = split_git(s[11:], 0)[1] or h.written
            elif h.git and s.startswith("index "):
                m = re.match(r"index ([0-9a-f]+)\.\.([0-9a-f]+)(?:\s+(\S+))?$", s)
                if m:
                    h.old_missing = max(h.old_missing, _sha_missing(m.group(1)))
                    h.new_missing = max(h.new_missing, _sha_missing(m.group(2)))
                    if m.group(3):
                        h.old_mode = h.new_mode = mode(m.group(3))
                    h.extended = True
            elif h.git and s.startswith(("old mode ", "new mode ")):
                if s.startswith("old"):
                    h.old_mode = mode(s[9:])
                else:
                    h.new_mode = mode(s[9:])
                h.extended = True
            elif h.git and s.startswith("deleted file mode "):
                h.old_mode, h.new_missing, h.extended = mode(s[18:]), 2, True
            elif h.git and s.startswith("new file mode "):
                h.new_mode, h.old_missing, h.extended = mode(s[14:]), 2, True
            elif h.git and s.startswith(("rename from ", "rename to ")):
                h.rename = h.extended = True
            elif h.git and s.startswith(("copy from ", "copy to ")):
                h.copy = h.extended = True
            elif h.git and (
                s.startswith("GIT binary patch") or (s.startswith("Binary files ") and s.endswith(" differ"))
            ):
                h.binary = h.extended = True
                self.i += 1
                if s.startswith("GIT binary patch"):
                    self._skip_binary()
                return self._freeze(h, ())
            elif s.startswith("--- "):  # GNU: a name line whether or not `+++ ` follows it (issue 20)
                if not h.git and (not h.seen or self._plus_follows()):
                    h.start = self.i + 1
                h.seen = True
                name, null, date = fetch(s[4:], self.strip)
                if name is not None or null:
                    h.old = name if name is not None else h.old if h.git else None
                h.old_null, h.old_date = null, date
                h.written = fetch(s[4:], 0)[0] or h.written
            elif s.startswith("+++ ") or s.startswith("*** ") and not self._after_stars():  # GNU: *** names it too
                if not h.git and not h.seen:
                    h.start = self.i + 1
                h.seen = True
                name, null, date = fetch(s[4:], self.strip)
                if name is not None or null:
                    h.new = name if name is not None else h.new if h.git else None
                h.new_null, h.new_date = null, date
                h.written = fetch(s[4:], 0)[0] or h.written
            elif s.startswith("Index:"):
                if not h.seen:
                    h.start = self.i + 1
                name, _, _ = fetch(s[6:], self.strip)
                h.index = name
                h.written = h.written or fetch(s[6:], 0)[0] or ""
            elif s.startswith("@@ -") and (h.seen or h.index is not None):
                hunks = self._hunks()
                return self._freeze(h, hunks)
            elif h.seen and combined(s):  # GNU skips it (not `@@ -`): said, never guessed at
                self.skipped.append((self.i + 1, h.new or h.old or h.written or "?"))
            elif (kind := other_format(self.lines, self.i, h.seen or h.index is not None))[0]:  # att60 F02
                raise self.fail(  # GNU applies it; skipped, it would be lost
                    kind[1] + 1,
                    f"{kind[0]}, which GNU patch applies; radpatch imports unified diffs only",
                    "re-create it in the unified form (diff -u, git diff)"
                    + (
                        ", or convert it: filterdiff --format=unified FILE (patchutils)"
                        if "indented" not in kind[0]
                        else ""
                    ),
                )
            self.i += 1
        if h.extended:
            return self._freeze(h, ())
        return None

    def _after_stars(self) -> bool:
        return self.i > 0 and self.lines[self.i - 1].startswith("********")

    def _plus_follows(self) -> bool:
        return self.i + 1 < len(self.lines) and self.lines[self.i + 1].startswith("+++ ")

    def _skip_binary(self) -> None:
        while self.i < len(self.lines) and not self.lines[self.i].startswith(("diff --git ", "--- ")):
            self.i += 1

    def _freeze(self, h: _Header, hunks: tuple[Hunk, ...]) -> FilePatch:
        old_missing, new_missing = h.old_missing, h.new_missing
        if h.old_null:
            old_missing = 2
        if h.new_null:
            new_missing = 2
        if hunks:
            first = hunks[0]
            if first.old_start == 0 and old_missing < 2:
                old_missing = 2 if h.old_date.startswith(_EPOCH) else max(old_missing, 1)
            if first.new_start == 0 and new_missing < 2:
                new_missing = 2 if h.new_date.startswith(_EPOCH) else max(new_missing, 1)
        old = None if h.old_null and not h.git else h.old
        new = None if h.new_null and not h.git else h.new
        return FilePatch(
            old,
            new,
            h.index,
            hunks,
            old_missing,
            new_missing,
            h.start or self.i,
            h.git,
            h.rename,
            h.copy,
            h.binary,
            h.old_mode,
            h.new_mode,
            h.written,
        )

    def _hunks(self) -> tuple[Hunk, ...]:
        hunks: list[Hunk] = []
        while self.i < len(self.lines):
            s = self.lines[self.i].rstrip("\n").rstrip("\r")
            m = _HUNK.match(s)
            if not s.startswith("@@ -"):
                break
            if not m:
                raise self.fail(self.i + 1, f"malformed hunk header {s[:60]!r}")
            hunks.append(self._hunk(len(hunks) + 1, m))
        return tuple(hunks)

    def _hunk(self, number: int, m: re.Match[str]) -> Hunk:
        at = self.i + 1
        old_start, new_start = int(m.group(1)), int(m.group(3))
        old_count = 1 if m.group(2) is None else int(m.group(2))
        new_count = 1 if m.group(4) is None else int(m.group(4))
        self.i += 1
        lines: list[Line] = []
        ended: set[str] = set()  # the sides (old "-", new "+") a `\\ No newline` line has ended
        olds = news = 0
        while olds < old_count or news < new_count:
            if self.i >= len(self.lines):
                if old_count + new_count - olds - news < 3 and olds < old_count and news < new_count:
                    raw = " \n"  # patch assumes blank lines the mailer chopped off at the end
                else:
                    raise self.fail(
                        at,
                        f"unexpected end of file in hunk #{number} (it promises {old_count} old and "
                        f"{new_count} new lines)",
                    )
            else:
                raw = self.lines[self.i]
                self.i += 1
            if raw.startswith(("\t", "\n", "\r\n")):
                kind, text = " ", raw  # the leading space got eaten (mailers, editors)
            else:
                kind, text = raw[0], raw[1:]
            if kind == "=":
                kind = " "
            if kind == "-" or kind == " ":
                if olds >= old_count:
                    raise self.fail(self.i, f"malformed patch: hunk #{number} has more old lines than its header says")
                olds += 1
            if kind == "+" or kind == " ":
                if news >= new_count:
                    raise self.fail(self.i, f"malformed patch: hunk #{number} has more new lines than its header says")
                news += 1
            if kind not in (" ", "-", "+"):
                raise self.fail(self.i, f"malformed patch: unexpected line in hunk #{number}: {raw.rstrip()[:60]!r}")
            if kind in ended or (kind == " " and ended):  # att60 F11: GNU stops there, "malformed patch"
                raise self.fail(self.i, f"malformed patch: hunk #{number} goes on after `\\ No newline at end of file`")
            lines.append(Line(kind, text))  # type: ignore[arg-type]
            if self.i < len(self.lines) and self.lines[self.i].startswith("\\"):
                self.i += 1  # `\ No newline at end of file`: the line before has none, and ends its side(s)
                lines[-1] = Line(lines[-1].kind, lines[-1].text.rstrip("\n"))
                ended |= {"-", "+"} if kind == " " else {kind}
        if not any(ln.kind != " " for ln in lines):
            raise self.fail(at, f"malformed patch: hunk #{number} changes nothing")
        return Hunk(number, old_start, old_count, new_start, new_count, tuple(lines), at)


def _sha_missing(sha: str) -> int:
    return 2 if set(sha) == {"0"} else 0


def parse(label: str, data: bytes, strip: int | None) -> PatchFile:
    """Every file section of one patch file, in order. Bytes are read as UTF-8 (surrogates keep
    anything else byte for byte)."""
    text = data.decode("utf-8", "surrogateescape")
    if "\r\n" in text and text.count("\r\n") == text.count("\n"):
        text = text.replace("\r\n", "\n")  # patch strips the CRs of a CRLF patch (--binary aside)
    reader = _Reader(label, text, strip)
    files = reader.read()
    skipped = tuple(combined_said(label, line, name) for line, name in reader.skipped)
    if not files and skipped:  # GNU: "Only garbage was found in the patch input."
        raise MalformedPatch(f"{skipped[0]}, and the file has no other section (GNU: only garbage)", ONE_PARENT)
    if not files:
        raise MalformedPatch(
            f"{label}: no unified diff found (no `--- `/`+++ `/`@@` header)",
            "give a patch made by diff -u, git diff or git format-patch",
        )
    return PatchFile(label, subject_of(text), files, skipped)
