"""Asking verify about a few releases of an open-ended range reads a bounded number of other releases
to look for the entry's change on a base (radpatch.releases.base_search.search_order: the newest
BASES of the declared range, then its first and the asked ones, then releases spread over it, MOST
in all), whatever the range's length and
wherever the rewrites apply; verify says how many it read and which (att23b F3: one asked release
read all 15).

Generated: twenty-four releases (more than MOST), the rewrites applying (the base layout) in the newest ones below
upstream's change, only in the first, only in the middle, or nowhere; the newest release, the
newest two or the newer half asked (a base among the asked releases is used: it is read anyway).
The wheels the index served are counted: the asked releases, the bases verify names and, for an asked
release whose rewrites match, the claimed release below it its matches are compared with, no other;
the bases it names are the same on a warm cache (the rule does not depend on what is cached)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.releases.base_search import BASES, MOST, references, search_order
from radpatch.releases.verifier import REFERENCES
from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PATCHED, PKG, UPSTREAM, entry

COUNT = 24
OTHER = GOOD.replace("n = len(items)", "n = len(tuple(items))")  # neither the base nor the change
LAYOUTS = {
    # release index -> its core.py
    "base below upstream": lambda i: GOOD if i < COUNT - 3 else UPSTREAM,
    "base only first": lambda i: GOOD if i == 0 else UPSTREAM,
    "base only middle": lambda i: GOOD if i == COUNT // 2 else OTHER,
    "base only middle, upstream after": lambda i: OTHER if i < COUNT // 2 else GOOD if i == COUNT // 2 else UPSTREAM,
    "no base": lambda i: OTHER,
    "patched upstream, base first": lambda i: GOOD if i == 0 else PATCHED if i > COUNT - 3 else OTHER,
}
ASKED = {"newest": f"==1.{COUNT - 1}", "newest two": f">=1.{COUNT - 2}", "from the middle": f">=1.{COUNT // 2}"}


def _wheels_read(server: Any) -> set[Version]:
    """The releases whose wheel files the index served (range requests or whole)."""
    out = set()
    for hit in server.requests("/files/"):
        m = re.search(r"-(\d+(?:\.\d+)*)-py3", hit.path)
        assert m, hit.path
        out.add(Version(m.group(1)))
    return out


@pytest.mark.parametrize(("layout", "asked"), sample([(la, a) for la in LAYOUTS for a in ASKED]))
def test_a_few_asked_releases_read_a_bounded_number_of_bases(
    layout: str, asked: str, loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    code = LAYOUTS[layout]
    server = loopback("radpatch-toy", {f"1.{i}": {f"{PKG}/core.py": code(i)} for i in range(COUNT)})
    reg = write_registry("cap", entry("A toy patch over an open range.", ">=1.0"))
    spec = ASKED[asked]
    text = radpatch("--registry", str(reg), "verify", "cap", "--versions", spec)
    read = _wheels_read(server)
    asked_versions = {Version(f"1.{i}") for i in range(COUNT) if Version(f"1.{i}") in _spec(spec)}
    newest = sorted((Version(f"1.{i}") for i in range(COUNT)), reverse=True)
    # where the rewrites match, the release is compared with the claimed one below it (releases.surroundings)
    compared = {r for v in asked_versions if code(v.minor) == GOOD for r in references(newest, v, REFERENCES)}
    outside = read - asked_versions - compared
    assert len(outside) <= MOST, (sorted(outside), text.out)  # a bound, whatever the range's length
    if outside:  # the newest BASES are read first
        assert set(newest[:BASES]) - asked_versions <= outside, sorted(outside)
    reach = set(search_order(newest, sorted(asked_versions))[-1])
    assert outside <= reach, sorted(outside)
    warm = radpatch("--registry", str(reg), "verify", "cap", "--versions", spec, "--json")
    report = json.loads(warm.out)
    bases = {Version(v) for v in report["bases_read"]}  # a compared release may be read as a base too
    assert bases - compared == outside, (report["bases_read"], sorted(outside))
    assert not _wheels_read(server) - read  # the warm run read nothing new
    said = re.search(
        r"^read (\d+) releases? outside those verified to look for the entry's change.*: (.*)$", text.out, re.M
    )
    if bases:
        assert said and int(said.group(1)) == len(bases), text.out
        assert {Version(v) for v in said.group(2).split(", ")} == bases, said.group(0)
    else:
        assert said is None, text.out
    # a base within the bound still tells obsolete: one read as a base, or one asked for
    findable = any(code(v.minor) == GOOD for v in reach | asked_versions)
    upstream_asked = [str(v) for v in sorted(asked_versions) if code(v.minor) in (UPSTREAM, PATCHED)]
    if findable:
        assert report["obsolete"] == upstream_asked, text.out


def _spec(spec: str) -> SpecifierSet:
    return SpecifierSet(spec)
