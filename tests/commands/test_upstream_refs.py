"""`list` and the SBOM name an `upstream:` link the same way: `OWNER/REPO#N` for a GitHub issue or pull
request (its whole path, a subpage, query or fragment after it), the link as written for any other.
They read links apart: `list` shortened a github.com/... path deeper in another site's or repository's
path (`https://example.org/github.com/a/b/pull/3` read `a/b#3`) and kept a PR link with a fragment or
a subpage whole, while the SBOM's `resolves[].id` took `/pull/12abc` for #12 (since port37 the loader
refuses `/pull/12abc` and `/pull/`, which name no pull request: tests/registry/test_github_link_forms.py).

Generated: GitHub links (pull or issues, with nothing, `/`, `/files`, `?q=1` or `#c1` after them,
http or https, `www.`) and links that only look like them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.sbom import bom_of
from tests.lib.toy import TOY_SECOND as SECOND

GITHUB = [
    (f"{scheme}://{www}github.com/o-1/r.x/{kind}/12{tail}", "o-1/r.x#12")
    for scheme in ("http", "https")
    for www in ("", "www.")
    for kind in ("pull", "issues")
    for tail in ("", "/", "/files", "?q=1", "#c1")
]
OTHER = [
    "https://example.org/github.com/a/b/pull/3",
    "https://github.com/o/r/tree/main/pull/3",
    "https://github.com/o/pull/12",
    "https://github.company.com/o/r/pull/12",
    "https://gitlab.com/o/r/-/issues/12",
]
CASES = GITHUB + [(link, link) for link in OTHER]


@pytest.mark.parametrize(("link", "ref"), sample(CASES))
def test_list_and_the_sbom_name_a_link_alike(link: str, ref: str, toy: Any, write_registry: Any, radpatch: Any) -> None:
    write_registry("backport", f'upstream: ["{link}"]\n' + SECOND.replace("floor", "backported"))
    assert radpatch("--registry", str(toy), "apply", "backport").code == 0
    listed = radpatch("--registry", str(toy), "list")
    assert listed.code == 0, listed.err
    assert f"upstream: backport: {ref}\n" in listed.out, listed.out
    r = radpatch("--registry", str(toy), "status", "--format", "cyclonedx", "backport")
    assert r.code == 0, r.err
    (patch,) = bom_of(r.out)["components"][0]["pedigree"]["patches"]
    assert [(x["id"], x["references"]) for x in patch["resolves"]] == [(ref, [link])]
