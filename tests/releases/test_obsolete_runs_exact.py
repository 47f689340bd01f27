"""`list` and `status` name exactly the releases verify found to contain the change (att23b, minor
words: "obsolete upstream in 1.1..1.7" read as every release between while 1.9 also contained it
and 1.8 did not): every run, each X..Y holding every listed release between its ends, and the read
releases between runs that do not contain it ("not in W") or were not read ("W not verified").

Generated: seven releases after the base 1.0, each holding the change or not, some left unread by
`--versions`; the phrase is expanded back into releases and compared with what each release holds."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from packaging.version import Version

from radpatch.releases.summaries import obsolete_words
from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.upstream_toy import GOOD, PATCHED, PKG, entry

COUNT = 7  # releases 1.1..1.7 after the base 1.0
# which of 1.1..1.7 contain the change ("x"), do not ("."), are not read ("?"); the newest contains it
PATTERNS = sample(
    [
        "".join(p) + "x"
        for p in itertools.product("x.?", repeat=COUNT - 1)
        if "x" in p and "?" not in (p[0], p[-1]) and p.count("?") <= 1
    ][::23]
)


def _expand(phrase: str, listed: list[Version]) -> tuple[set[Version], set[Version], set[Version]]:
    """(releases the phrase says contain the change, those it says do not, those it says were not read)."""
    m = re.fullmatch(r"obsolete upstream in (.*?)(?: \((.*)\))?", phrase)
    assert m, phrase
    inside: set[Version] = set()
    for piece in m.group(1).split(", "):
        lo, _, hi = piece.partition("..")
        inside |= {v for v in listed if Version(lo) <= v <= Version(hi or lo)}
    without: set[Version] = set()
    unread: set[Version] = set()
    for note in (m.group(2) or "").split("; "):
        if note.startswith("not in "):
            without |= {Version(v) for v in note.removeprefix("not in ").split(", ")}
        elif note.endswith(" not verified"):
            unread |= {Version(v) for v in note.removesuffix(" not verified").split(", ")}
    return inside, without, unread


@pytest.mark.parametrize("pattern", PATTERNS)
def test_list_and_status_name_every_release_that_contains_the_change_and_no_other(
    pattern: str, loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    versions = [Version(f"1.{i + 1}") for i in range(COUNT)]
    core = f"{PKG}/core.py"
    loopback(
        "radpatch-toy",
        {"1.0": {core: GOOD}, **{str(v): {core: PATCHED if c == "x" else GOOD} for v, c in zip(versions, pattern)}},
    )
    reg = write_registry("cap", entry("A toy patch upstream took, reverted and took again.", ">=1.0"))
    unread = [v for v, c in zip(versions, pattern) if c == "?"]
    spec = ",".join(f"!={v}" for v in unread) or ">=1.0"
    radpatch("--registry", str(reg), "verify", "cap", "--versions", spec)
    listed = radpatch("--registry", str(reg), "list").out
    (line,) = [ln for ln in listed.splitlines() if ln.startswith("upstream: cap: ")]
    said = re.search(r"(obsolete upstream in .*?) \(verify read no later release\)$", line)
    assert said, line
    inside, without, skipped = _expand(said.group(1), [Version("1.0"), *versions])
    contains = {v for v, c in zip(versions, pattern) if c == "x"}
    assert inside == contains, (pattern, line)
    first, last = min(contains), max(contains)
    assert without == {v for v, c in zip(versions, pattern) if c == "." and first < v < last}, (pattern, line)
    assert skipped == {v for v in unread if first < v < last}, (pattern, line)
    installed = max(contains)  # status on a release that contains it says the same phrase
    site.install("radpatch-toy", str(installed), {core: PATCHED})
    st = radpatch("--registry", str(reg), "status", "cap")
    assert said.group(1) in st.out, st.out
    assert obsolete_words((first, last)) not in st.out or inside == {v for v in versions if first <= v <= last}
