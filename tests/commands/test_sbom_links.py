"""`status --format cyclonedx` never prints an invalid BOM for an `upstream:` link (att23d F3): the
registry refuses a link that is no IRI-reference (tests/registry/test_requires_and_upstream.py), and
the BOM percent-encodes one all the same, so it validates under the strict CycloneDX 1.6 schema."""

from __future__ import annotations

import json

import pytest

from radpatch.commands.sbom import bom, iri
from radpatch.registry.loader.nodes import URL
from radpatch.state.inventory import Listed
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
