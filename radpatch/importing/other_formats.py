"""Sections of a patch file in a form GNU patch applies and radpatch does not read (att60 F02): a
context diff (`*** a` / `--- b`), a normal diff (`6c6` with `<`/`>` lines), an ed script (`6c`, its
text, `.`) and a unified diff indented as a mail or a web page quotes it (GNU: "Patch is indented 2
spaces."). Skipped as preamble, such a section would be lost while GNU patch changes its file: the
reader (importing.unified) refuses at the first line of one instead.

Told apart from the prose a patch file may hold (a commit message) as GNU patch's intuit_diff_type
tells them: by a command line and what follows it, never by the command line alone."""

from __future__ import annotations

import re
from collections.abc import Sequence

_NORMAL = re.compile(r"^\d+(?:,\d+)?[acd]\d+(?:,\d+)?$")
_ED = re.compile(r"^\d+(?:,\d+)?([acd])$")
_INDENTED = re.compile(r"^([ \t]+)--- \S")


def other_format(lines: Sequence[str], i: int) -> str:
    """What section of another form starts at `lines[i]`: its kind in words, or "" where none does."""
    s = lines[i].rstrip("\r\n")
    after = lines[i + 1].rstrip("\r\n") if i + 1 < len(lines) else None
    if s.startswith("*** ") and after is not None and after.startswith("--- "):
        return "a context diff (*** / ---)"
    if _NORMAL.match(s) and after is not None and after.startswith(("< ", "> ")):
        return f"a normal diff (`{s}` with `<`/`>` lines)"
    ed = _ED.match(s)
    if ed and (ed.group(1) == "d" and _ed_follows(after) or ed.group(1) != "d" and _ed_text_ends(lines, i + 1)):
        return f"an ed script (`{s}`)"
    indented = _INDENTED.match(s)
    if indented and after is not None and after.startswith(indented.group(1) + "+++ "):
        return f"a unified diff indented by {len(indented.group(1))} characters (as a mail or a web page quotes it)"
    return ""


def _ed_follows(line: str | None) -> bool:
    """A `d` command is an ed script's when another command, or the script's end, follows it."""
    return line is None or line == "." or bool(_ED.match(line) or _NORMAL.match(line))


def _ed_text_ends(lines: Sequence[str], start: int) -> bool:
    """An `a` or `c` command's text ends with a line holding `.` alone."""
    return any(line.rstrip("\r\n") == "." for line in lines[start : start + 10_000])
