"""`status --format cyclonedx` never prints an invalid BOM for an `upstream:` link (att23d F3): the
registry refuses a link that is no IRI-reference (tests/registry/test_requires_and_upstream.py), and
the BOM percent-encodes one all the same, so it validates under the strict CycloneDX 1.6 schema. Links
are also generated over the spellings of an authority `[user@]host[:port]` (att23e G4)."""

from __future__ import annotations

import ipaddress
import itertools
import json

import pytest

from radpatch.commands.sbom import bom, iri
from radpatch.registry.loader import links
from radpatch.registry.loader.nodes import URL
from radpatch.state.inventory import Listed
from tests.lib.generated import sample
from tests.lib.sbom import bom_of

VALID = [
    "https://github.com/vllm-project/vllm/pull/12345",
    "https://bugs.example.org/show?id=5&x=%3Cy%3E#c3",
    "http://h.example:8080/a%20b/(c)?q=d+e;f=g*!$'@:,~",
]
INVALID = [
    "https://bugs.example.org/show?id=5&x=<y>",
    "https://example.org/q?x=a|b",
    "https://example.org/%zz",
    "https://example.org/x#a#b",
    "https://example.org/a b",
    'https://example.org/é\\{}^`"',
]


def _listed(links: list[str]) -> Listed:
    return Listed("fix", ("toypkg", "1.0"), "d" * 64, "d" * 64, tuple(links), "a fix", "", (), "")


@pytest.mark.parametrize("link", VALID)
def test_a_link_the_registry_accepts_is_kept_as_written_and_validates(link: str) -> None:
    assert URL.match(link)
    got = bom_of(json.dumps(bom([_listed([link])])))
    (patch,) = got["components"][0]["pedigree"]["patches"]
    assert patch["resolves"][0]["references"] == [link]


@pytest.mark.parametrize("link", INVALID)
def test_a_link_that_is_no_iri_reference_is_refused_and_percent_encoded_in_the_bom(link: str) -> None:
    assert not URL.match(link)
    got = bom_of(json.dumps(bom([_listed([link])])))  # validates (strict, 1.6)
    (patch,) = got["components"][0]["pedigree"]["patches"]
    (ref,) = patch["resolves"][0]["references"]
    assert URL.match(ref) and ref == iri(link)
    assert ref.split("#")[0].startswith(link.split("://")[0] + "://")


# (spelling, whether it is well-formed) for each part of an authority, and what follows it
USERS = [("", True), ("u@", True), ("u:p%40w@", True), ("a@b@", False)]
HOSTS = [("github.com", True), ("[::1]", True), ("[2001:db8::7]", True), ("[1::2::3]", False), ("h]", False)]
PORTS = [("", True), (":", True), (":8080", True), (":80:90", False), (":example", False)]
RESTS = ["/example/toyq/pull/7", "", "?q=1#c3"]
SPELLINGS = [
    (f"https://{u}{h}{p}{r}", ug and hg and pg)
    for (u, ug), (h, hg), (p, pg), r in itertools.product(USERS, HOSTS, PORTS, RESTS)
]
# a generated family: every spelling unsampled, a sample turning with the interpreter (tests/lib/generated.py)
SAMPLED = [
    (f"https://{u}{h}{p}{r}", ug and hg and pg)
    for (u, ug), (h, hg), (p, pg), r in sample(itertools.product(USERS, HOSTS, PORTS, RESTS))
]


@pytest.mark.parametrize(("link", "good"), SAMPLED)
def test_a_link_is_refused_exactly_when_its_authority_is_malformed_and_the_bom_validates(link: str, good: bool) -> None:
    assert (links.problem(link) is None) is good, links.problem(link)
    got = bom_of(json.dumps(bom([_listed([link])])))  # validates (strict, 1.6)
    (patch,) = got["components"][0]["pedigree"]["patches"]
    (ref,) = patch["resolves"][0]["references"]
    assert ref == iri(link)
    if good and "[" not in link:
        assert ref == link
    elif good:  # an IPv6 host is written out whole (the validator refuses '::'): the same address
        written, kept = (x.split("[")[1].split("]")[0] for x in (link, ref))
        assert ipaddress.IPv6Address(written) == ipaddress.IPv6Address(kept) and "::" not in kept
        assert ref.replace(f"[{kept}]", f"[{written}]") == link


def test_the_spellings_are_not_one_answer() -> None:
    assert {good for _, good in SPELLINGS} == {True, False}
