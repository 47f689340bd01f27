"""The names and modes a patch's header lines give, as GNU patch reads them (pch.c, util.c): a name
ends at the first white space unless a tab separates it from a date, or it is a C-quoted string;
`/dev/null` is no name; `-p N` strips N leading components (runs of slashes count once), no `-p`
keeps the base name, and a name with fewer slashes than `-p` strips is no name at all;
`diff --git a/X b/Y` gives two names, split symmetrically where they hold spaces; and a mail's
`Subject:` (format-patch's), the entry's description. For importing.unified's reader; nothing here
touches the file system."""

from __future__ import annotations

import re

from radpatch.importing.sections import lines_of


def strip_name(name: str, strip: int | None) -> str | None:
    """`name` with `strip` leading components removed (None: all but the base name), or None when
    it has too few slashes, as GNU patch's strip_leading_slashes decides."""
    s = -1 if strip is None else strip
    n = 0
    i = 0
    while i < len(name):
        if name[i] == "/":
            while i + 1 < len(name) and name[i + 1] == "/":
                i += 1
            if strip is None:
                n = i + 1
            else:
                s -= 1
                if s >= 0:
                    n = i + 1
        i += 1
    if (strip is None or s <= 0) and name[n:]:
        return name[n:]
    return None


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", '"': '"'}


def c_string(text: str) -> tuple[str, str] | None:
    """A C-quoted name as git writes it ("a/x\\ty.py"): (name, rest), or None when malformed."""
    out = bytearray()
    i = 1
    while i < len(text):
        c = text[i]
        if c == '"':
            return out.decode("utf-8", "surrogateescape"), text[i + 1 :]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in "01234567" and i + 3 < len(text):
                out.append(int(text[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            if nxt not in _ESCAPES:
                return None
            out += _ESCAPES[nxt].encode()
            i += 2
            continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return None


def fetch(rest: str, strip: int | None) -> tuple[str | None, bool, str]:
    """(name, dev_null, date) of a `--- `/`+++ ` header's text."""
    at = rest.lstrip()
    if at.startswith('"'):
        got = c_string(at)
        if got is None:
            return None, False, ""
        name, tail = got
    else:
        if "\t" in at:
            name, _, tail = at.partition("\t")
            name = name.rstrip()
        else:
            parts = at.split(None, 1)
            name, tail = (parts[0], parts[1] if len(parts) > 1 else "") if parts else ("", "")
    if name == "/dev/null":
        return None, True, tail.strip()
    return strip_name(name, strip), False, tail.strip()


def split_git(rest: str, strip: int | None) -> tuple[str | None, str | None]:
    """The two names of `diff --git a/X b/Y` (each may be C-quoted)."""
    names: list[str] = []
    text = rest
    for _ in range(2):
        text = text.lstrip()
        if text.startswith('"'):
            got = c_string(text)
            if got is None:
                return None, None
            names.append(got[0])
            text = got[1]
        else:
            parts = text.split(None, 1)
            if not parts:
                return None, None
            names.append(parts[0])
            text = parts[1] if len(parts) > 1 else ""
    if text.strip():  # names with spaces: git writes them unquoted; take the symmetric split
        half = rest.strip()
        mid = len(half) // 2
        if half[mid] == " " and half[:mid][2:] == half[mid + 1 :][2:]:
            names = [half[:mid], half[mid + 1 :]]
        else:
            return None, None
    return strip_name(names[0], strip), strip_name(names[1], strip)


def mode(text: str) -> int:
    value = text.strip()
    return int(value, 8) if re.fullmatch(r"[0-7]{6}", value) else 0


_SUBJECT = re.compile(r"^Subject:\s*(?:\[[^\]]*\]\s*)?(.*)$")


def subject_of(text: str) -> str:
    """format-patch's Subject line, without its [PATCH n/m] tag (folded continuation lines joined)."""
    lines = [ln.rstrip("\r\n") for ln in lines_of(text)]
    for i, line in enumerate(lines[:200]):
        m = _SUBJECT.match(line)
        if m:
            out = m.group(1).strip()
            for more in lines[i + 1 :]:
                if not more.startswith((" ", "\t")):
                    break
                out += " " + more.strip()
            return out
        if line.startswith(("diff --git ", "--- ", "@@ ")):
            break
    return ""
