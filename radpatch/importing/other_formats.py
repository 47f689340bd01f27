"""Sections of a patch file in a form GNU patch applies and radpatch does not read (att60 F02): a
context diff (`*** a` / `--- b`), a normal diff (`6c6` with `<`/`>` lines), an ed script (`6c`, its
text, `.`) and a unified diff indented as a mail or a web page quotes it (GNU: "Patch is indented 2
spaces."). Skipped as preamble, such a section would be lost while GNU patch changes its file: the
reader (importing.unified) refuses at the first line of one instead.

Told apart from the prose a patch file may hold (a commit message) as GNU patch's intuit_diff_type
tells them: by a command line and what follows it, never by the command line alone, and (context,
normal, ed) only once a header line (`--- `, `+++ `, `*** `, `Index:`) was read since the last
section: before one, GNU skips them as preamble (`need_header`). A context diff is its hunk's
`***************` line followed by `*** N,M`, not a `*** ` line followed by `--- ` (mail prose has
those: issue 20). And a git combined diff (`@@@`, a merge's) which GNU skips as text it does not know."""

from __future__ import annotations

import re
from collections.abc import Sequence

_NORMAL = re.compile(r"^\d+(?:,\d+)?[acd]\d+(?:,\d+)?$")
_ED = re.compile(r"^\d+(?:,\d+)?([acd])$")
_INDENTED = re.compile(r"^([ \t]+)--- \S")
_COMBINED = re.compile(r"^(@@@+)(?: -\d+(?:,\d+)?)+ \+\d+(?:,\d+)? \1(?: |$)")


def other_format(lines: Sequence[str], i: int, named: bool) -> tuple[str, int]:
    """What section of another form `lines[i]` shows: its kind in words and the index of its first
    line, or ("", i) where none does. `named`: a header line was read since the last section."""
    s = lines[i].rstrip("\r\n")
    after = lines[i + 1].rstrip("\r\n") if i + 1 < len(lines) else None
    if named and s.startswith("********") and after is not None and after.startswith("*** "):
        header = i >= 2 and lines[i - 2].startswith("*** ") and lines[i - 1].startswith("--- ")
        return "a context diff (*** / ---)", i - 2 if header else i
    if named and _NORMAL.match(s) and after is not None and after.startswith(("< ", "> ")):
        return f"a normal diff (`{s}` with `<`/`>` lines)", i
    ed = _ED.match(s)
    if (
        named
        and ed
        and (ed.group(1) == "d" and _ed_follows(after) or ed.group(1) != "d" and _ed_text_ends(lines, i + 1))
    ):
        return f"an ed script (`{s}`)", i
    indented = _INDENTED.match(s)
    hunk = lines[i + 2] if i + 2 < len(lines) else ""
    if indented and after is not None and after.startswith(indented.group(1) + "+++ "):
        if hunk.startswith(indented.group(1) + "@@ -"):  # GNU finds it by its hunk, the names alone are prose
            return (
                f"a unified diff indented by {len(indented.group(1))} characters (as a mail or a web page quotes it)",
                i,
            )
    return "", i


def combined(line: str) -> bool:
    """Whether the line is a combined diff's hunk header (`@@@ -1,4 -1,4 +1,5 @@@`: git's diff of a merge
    against its parents), which GNU patch does not read as a hunk (it is not `@@ -`)."""
    return bool(_COMBINED.match(line))


ONE_PARENT = (
    "to import the merge's change, give its diff against one parent: git diff M^1 M (git show -m --first-parent M)"
)


def combined_said(label: str, line: int, name: str) -> str:
    """The line that says a combined diff of a file was skipped, as GNU patch skips it."""
    return (
        f"{label}:{line}: {name}: a combined diff (`@@@`, git's diff of a merge against its parents), which GNU "
        "patch does not apply"
    )


def _ed_follows(line: str | None) -> bool:
    """A `d` command is an ed script's when another command, or the script's end, follows it."""
    return line is None or line == "." or bool(_ED.match(line) or _NORMAL.match(line))


def _ed_text_ends(lines: Sequence[str], start: int) -> bool:
    """An `a` or `c` command's text ends with a line holding `.` alone."""
    return any(line.rstrip("\r\n") == "." for line in lines[start : start + 10_000])
