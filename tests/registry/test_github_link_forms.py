"""A GitHub pull request or issue link in the spellings GitHub answers for the same thing (port37,
issue 23): `github_ref` (what `list` shows and the SBOM's `resolves[].id` names) read
`https://github.com:443/o/r/pull/1` (the default port written), `.diff`/`.patch` and the like as no
GitHub link, and the loader took `/pulls/1` or `/pull/12a` as links (another port, `github.com:8443`,
is another link, as before). Now every
spelling of one pull request or issue reads OWNER/REPO#N; a link that means one but names none, a
git remote or a link without its scheme is refused at file:line with the link to write, and that link
loads. Two links that differ only by the default port are one link, listed twice.

Generated: scheme x host x port x what it names x a tail GitHub answers for the same page; github.com
paths that name no pull request or issue; git remotes and links without a scheme."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from radpatch.errors import RegistryError
from radpatch.registry.loader import load_patch
from radpatch.registry.loader.links import github_ref
from tests.lib.generated import sample
from tests.lib.registry import LIMIT_ENTRY, write_entry

SCHEMES = ["https", "HTTP"]
HOSTS = ["github.com", "www.GitHub.com"]
PORTS = ["", ":", "default"]
NAMES = ["pull/12", "issues/12", "pull/12.diff", "pull/12.patch"]
TAILS = ["", "/", "/files", "/commits/0a1b2c3", "#issuecomment-99", "?w=1", "/files#diff-abc"]


def _entry(tmp_path: Path, links: list[str]) -> Path:
    return write_entry(tmp_path, "fix", LIMIT_ENTRY + "upstream:\n" + "".join(f'  - "{x}"\n' for x in links))


@pytest.mark.parametrize(
    ("scheme", "host", "port", "name", "tail"), sample(itertools.product(SCHEMES, HOSTS, PORTS, NAMES, TAILS))
)
def test_every_spelling_of_one_pull_request_or_issue_reads_owner_repo_number(
    tmp_path: Path, scheme: str, host: str, port: str, name: str, tail: str
) -> None:
    port = {"https": ":443", "HTTP": ":80"}[scheme] if port == "default" else port
    bare = f"{scheme}://{host}/vllm-project/vllm/{name}{tail}"
    link = bare.replace(host, host + port, 1)
    assert github_ref(link) == "vllm-project/vllm#12", link
    assert load_patch(_entry(tmp_path, [link])).upstream == (link,)
    if port:  # with the default port and without it: one link
        with pytest.raises(RegistryError) as info:
            load_patch(_entry(tmp_path, [bare, link]))
        (problem,) = info.value.problems
        assert ": at upstream[1]: " in problem and "is listed twice" in problem, problem


REFUSED = [
    "https://github.com/o/r/pulls/12",
    "https://github.com/o/r/pull/12a",
    "https://github.com/o/r/issues/",
    "https://github.com/o/r/pull",
    "https://www.github.com/o/r/Issue/12",
    "https://github.com/o/r/issues/12.diff",
    "git@github.com:o/r.git",
    "git@github.com:o/r/pull/12",
    "ssh://git@github.com/o/r.git",
    "github.com/o/r/pull/12",
    "www.github.com/o/r/issues/12",
]


@pytest.mark.parametrize("link", sample(REFUSED))
def test_a_github_link_that_names_nothing_is_refused_with_the_link_to_write(tmp_path: Path, link: str) -> None:
    f = _entry(tmp_path, ["https://github.com/o/r/pull/1", link])
    with pytest.raises(RegistryError) as info:
        load_patch(f)
    (problem,) = info.value.problems
    assert problem.startswith(f"{f}:10:") and ": at upstream[1]: " in problem, problem
    written = re.search(r"write (https?://\S+?)(?:, N its number)?$", problem)
    assert written, problem
    fixed = written.group(1).replace("/N", "/12")
    assert load_patch(_entry(tmp_path, [fixed])).upstream == (fixed,), problem


@pytest.mark.parametrize(
    "link",
    ["https://github.com/o/r/commit/0a1b2c3", "https://github.com/o/r", "https://github.com/o/r/discussions/5",
     "https://gitlab.com/o/r/pull/12", "https://github.com.example.org/o/r/pull/12",
     "https://github.com:8443/o/r/pull/12", "http://GitHub.com:443/o/r/issues/12"],
)  # fmt: skip
def test_other_links_load_and_name_no_pull_request(tmp_path: Path, link: str) -> None:
    assert load_patch(_entry(tmp_path, [link])).upstream == (link,)
    assert github_ref(link) is None
