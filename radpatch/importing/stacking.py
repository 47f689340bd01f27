"""Whether a patch that does not apply seems to stack on earlier patches of its series (att20b F4):
its failing hunks expect lines the installed file does not have, or a file it does not have, and
either a patch given after it adds those lines (or creates that file), or it is numbered as a later
patch of a series (`0003-...patch`, `[PATCH 3/5]`). The import's refusal then says to import the
series together, in order, instead of only "check the installed version"."""

from __future__ import annotations

import posixpath
import re

from radpatch.errors import RefusedError
from radpatch.importing import paths, sections, unified
from radpatch.importing.sections import Hunk

_NUMBERED = re.compile(r"^0*(\d+)-")
_SUBJECT = re.compile(rb"^Subject: \[PATCH[^\]]*?\b0*(\d+)/\d+\]", re.MULTILINE)


def missing_lines(failed: list[Hunk], text: str | None) -> list[str]:
    """The lines (stripped, not blank) the failing hunks expect that the file has nowhere; every
    expected line when there is no file."""
    have = {ln.strip() for ln in sections.lines_of(text or "")}  # as patch reads the file: lines end at "\n"
    want = [t.strip() for h in failed for t in h.pattern if t.strip()]
    return [t for t in dict.fromkeys(want) if t not in have]


def needs_earlier(
    label: str, data: bytes, missing: list[str], later: list[tuple[str, bytes]], strip: int | None
) -> str:
    """The hint for the patch `label` (its bytes `data`) whose failing hunks expect `missing` lines:
    which patch given after it adds them (import that one first), or that it seems a later patch of
    a series; "" when neither."""
    if not missing:
        return ""
    added = {other: _added(other, theirs, strip) & set(missing) for other, theirs in later}
    if set(missing) <= set().union(*added.values()):
        given = [o for o, lines in added.items() if lines]
        return first(
            ", ".join(given), label, f"{'they add' if len(given) > 1 else 'it adds'} the lines this one expects"
        )
    if later_of_series(label, data):
        return SERIES
    return ""


SERIES = (
    "it seems to need the earlier patches of its series (what it expects is not in the installed file): "
    "import them together, in order (`radpatch import 0001-*.patch 0002-*.patch ...`)"
)


def first(other: str, label: str, why: str) -> str:
    return (
        f"it seems to need {other} first ({why}): import the patches together, in their series' order "
        f"({other} before {label})"
    )


def later_of_series(label: str, data: bytes) -> bool:
    """The patch file is numbered as a later one of a series: by its name (`0003-x.patch`), or by
    its mail subject (`[PATCH 3/5]`)."""
    m = _NUMBERED.match(posixpath.basename(label))
    if m and int(m.group(1)) > 1:
        return True
    s = _SUBJECT.search(data[:8192])
    return s is not None and int(s.group(1)) > 1


def creates(path: str, later: list[tuple[str, bytes]], strip: int | None) -> str:
    """The first patch given after this one that creates the file `path` (its name as patched), or ""."""
    for other, data in later:
        try:
            parsed = unified.parse(other, data, strip)
        except unified.MalformedPatch:
            continue
        for section in parsed.files:
            if section.old_missing and section.new_name and _same(section.new_name, path):
                return other
    return ""


def _added(label: str, data: bytes, strip: int | None) -> set[str]:
    try:
        parsed = unified.parse(label, data, strip)
    except unified.MalformedPatch:
        return set()
    return {ln.text.strip() for s in parsed.files for h in s.hunks for ln in h.lines if ln.kind == "+"}


def _same(a: str, b: str) -> bool:
    a, b = posixpath.normpath(a), posixpath.normpath(b)
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def stacked_or(
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
    other = next((o for n in section.names if n and (o := creates(n, later, strip))), "")
    series = first(other, label, "it creates the file") if other else ""
    series = series or (SERIES if later_of_series(label, data) else "")
    return RefusedError(exc.message, f"{series}; else: {exc.hint}") if series else exc
