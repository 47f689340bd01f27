"""The editor's JSON Schema takes and refuses the `upstream:` links the loader does (moved38, issue
23): the schema checked a link's characters and authority but none of the GitHub path rules the loader
applies (registry.loader.links), so a link like `https://github.com/o/r/pulls/12`, which the loader
refuses as naming no pull request or issue, passed in the editor; and the loader took a link ending in
a line break (Python's `$` matches before it) that an editor's schema refuses. Now the schema carries
the loader's own pattern of such a GitHub link (`not`, links.GITHUB_NAMES_NONE), the link pattern ends
at the text's end in both, and a scheme in another case than ASCII's two (`httpſ://`, which
re.IGNORECASE took and `same` then failed on, exit 70) is not an http(s) URL.

Generated: scheme x user x host x port x path x tail, the GitHub spellings the loader answers for, the
ones it refuses and their near misses; per link, the loader (every link of a path in one entry, each
refusal at its index, a hundred an entry) against the schema's `upstream` item. IPv6 hosts are left out: whether the
address in brackets is one, a pattern cannot tell (the loader alone refuses `[1::2::3]`)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from radpatch.errors import RegistryError
from radpatch.registry import json_schema
from radpatch.registry.loader import links, load_patch
from tests.lib.generated import sample
from tests.lib.registry import LIMIT_ENTRY, schema_validate, write_entry

SCHEMES = ["https://", "HTTP://", "hTtPs://", "httpſ://", "https:/"]
USERS = ["", "u@"]
HOSTS = ["github.com", "www.GitHub.com", "GITHUB.COM", "github.com.", "gıthub.com", "gitlab.com", "github.com.x.org"]
PORTS = ["", ":", ":443", ":80", ":8443", ":0443"]
PATHS = [
    "/o/r/pull/12", "/o/r/issues/12", "/o/r/pulls/12", "/o/r/pull/12a", "/o/r/issues/", "/o/r/pull", "/o/r/Issue/12",
    "/o/r/issues/12.diff", "/o/r/pull/12.patch", "/o/r/PULL/12", "/o/r/ıssues/1", "/o/r/pullſ/1", "/o/r/commit/ab",
    "/o/r", "", "/o/r/pull.x", "/o/pull/1", "/o/r/issue",
]  # fmt: skip
TAILS = ["", "/files", "#c", "?a=1", ".diff", "\n", "%zz"]


def _quoted(text: str) -> str:
    return '"' + "".join(c if " " <= c <= "~" and c not in '"\\' else f"\\U{ord(c):08x}" for c in text) + '"'


def _loader_refuses(tmp_path: Path, batch: list[str]) -> set[int]:
    """The indices of `batch` the loader refuses, read in one entry (every problem is reported)."""
    f = write_entry(tmp_path, "fix", LIMIT_ENTRY + "upstream:\n" + "".join(f"  - {_quoted(x)}\n" for x in batch))
    try:
        assert load_patch(f).upstream == tuple(batch)
        return set()
    except RegistryError as exc:
        out = set()
        for problem in exc.problems:
            assert problem.startswith(f"{f}:") and ": at upstream[" in problem, problem
            assert "listed twice" not in problem, problem
            out.add(int(problem.split(": at upstream[", 1)[1].split("]", 1)[0]))
        assert len(out) == len(exc.problems), exc.problems  # one line per refused link
        return out


@pytest.mark.parametrize("path", sample(PATHS))
def test_the_schema_takes_the_links_the_loader_takes_and_refuses_the_rest(tmp_path: Path, path: str) -> None:
    links_ = {}
    for scheme, user, host, port, tail in itertools.product(SCHEMES, USERS, HOSTS, PORTS, TAILS):
        link = f"{scheme}{user}{host}{port}{path}{tail}"
        links_.setdefault(links.same(link), link)  # one of each link (the loader refuses one listed twice)
    batch = list(links_.values())
    refused = {n + i for n in range(0, len(batch), 100) for i in _loader_refuses(tmp_path, batch[n : n + 100])}
    item = jsonschema.Draft202012Validator(json.loads(json_schema.render())["properties"]["upstream"]["items"])
    disagree = [(x, i in refused) for i, x in enumerate(batch) if item.is_valid(x) == (i in refused)]
    assert not disagree, disagree[:10]  # (link, the loader refuses it)
    assert refused and len(refused) < len(batch)  # both kinds were generated


@pytest.mark.parametrize(
    "link", ["https://github.com/o/r/pulls/12", "https://www.github.com:443/o/r/Issue/1", "https://github.com/o/r/pull"]
)
def test_the_whole_schema_refuses_a_github_link_naming_nothing(link: str) -> None:
    entry = {**yaml.safe_load(LIMIT_ENTRY), "upstream": [link]}
    with pytest.raises(jsonschema.ValidationError):
        schema_validate(entry)
    schema_validate({**entry, "upstream": [link.replace("pulls", "pull").replace("Issue", "issues") + "/7"]})
