"""An `upstream:` link as a user copies it from the browser (port36, issue 23): the loader refused
`HTTPS://github.com/...` (a scheme in upper case) and a raw `é` (an IRI's non-ASCII character), both
valid links. Now the scheme and host are taken in any case and RFC 3987's characters of the first
Unicode plane as they are; the SBOM writes the link as a valid IRI-reference (non-ASCII percent-encoded)
and `list` reads a GitHub link in any case as OWNER/REPO#N. What no link holds (a bidirectional mark
or another invisible character copied with it, a line separator, a plane's last two characters or a
private-use one) is refused at file:line with what to write; two links that differ only in the case of their scheme or
host are one link, listed twice."""

from __future__ import annotations

import itertools
import json
import unicodedata
import urllib.parse
from pathlib import Path

import jsonschema
import pytest
import yaml

from radpatch.commands.sbom import bom
from radpatch.errors import RegistryError
from radpatch.registry.loader import load_patch
from radpatch.registry.loader.links import github_ref
from radpatch.state.inventory import Listed
from tests.lib.generated import sample
from tests.lib.registry import LIMIT_ENTRY, schema_validate, write_entry
from tests.lib.sbom import bom_of

ENTRY = LIMIT_ENTRY

SCHEMES = ["https", "HTTPS", "Http", "http", "HTTP"]
HOSTS = ["github.com", "GitHub.com", "WWW.GITHUB.COM", "exämple.org", "bücher.example:8443"]
RESTS = ["/vllm-project/vllm/pull/12345", "/o/r/issues/7#issuecomment-1", "/wiki/Café_(disambiguation)",
         "/search?q=naïve+façade#résumé", "/路径/ページ", ""]  # fmt: skip


def _quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar, every character but printable ASCII escaped (an astral one too)."""
    return '"' + "".join(c if " " <= c <= "~" and c not in '"\\' else f"\\U{ord(c):08x}" for c in text) + '"'


def _entry(tmp_path: Path, links: list[str]) -> Path:
    return write_entry(tmp_path, "fix", ENTRY + "upstream:\n" + "".join(f"  - {_quoted(x)}\n" for x in links))


@pytest.mark.parametrize(("scheme", "host", "rest"), sample(itertools.product(SCHEMES, HOSTS, RESTS)))
def test_a_link_as_the_browser_shows_it_is_taken_and_its_bom_validates(
    tmp_path: Path, scheme: str, host: str, rest: str
) -> None:
    link = f"{scheme}://{host}{rest}"
    f = _entry(tmp_path, [link])
    assert load_patch(f).upstream == (link,)
    schema_validate(yaml.safe_load(f.read_text(encoding="utf-8")))  # the editor's schema takes it too
    listed = Listed("fix", ("toypkg", "1.0"), "d" * 64, "d" * 64, (link,), "a fix", "", (), "")
    got = bom_of(json.dumps(bom([listed])))  # strict CycloneDX 1.6
    (ref,) = got["components"][0]["pedigree"]["patches"][0]["resolves"][0]["references"]
    assert urllib.parse.unquote(ref) == link and ref.isascii(), ref
    if host.lower().removeprefix("www.") == "github.com" and "/pull/" in rest + "/issues/":
        assert (
            github_ref(link) == rest.split("/")[1] + "/" + rest.split("/")[2] + "#" + rest.split("/")[4].split("#")[0]
        )


# characters no link holds, each put in a path; what the one line says to do
INVISIBLE = ["\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u0085"]
OTHER_PLANE = ["\U0001fffe", "\U000f0000"]  # since port37 an emoji (U+1F600) or U+20000 is taken


@pytest.mark.parametrize(
    ("char", "where"), sample(itertools.product(INVISIBLE + OTHER_PLANE + ["\u2028"], ["/a{c}b", "/x?q={c}", "/x#{c}"]))
)
def test_a_character_no_link_holds_is_refused_at_file_line_with_what_to_write(
    tmp_path: Path, char: str, where: str
) -> None:
    link = "https://github.com" + where.format(c=char)
    f = _entry(tmp_path, ["https://github.com/o/r/pull/1", link])
    with pytest.raises(RegistryError) as info:
        load_patch(f)
    (problem,) = info.value.problems
    assert problem.startswith(f"{f}:10:") and ": at upstream[1]: " in problem, problem
    encoded = urllib.parse.quote(char, safe="")
    assert f"write it percent-encoded, as {encoded}" in problem, problem
    if unicodedata.category(char) in ("Cc", "Cf", "Zl"):
        assert f"an invisible character U+{ord(char):04X}" in problem and "delete it" in problem, problem
    with pytest.raises(jsonschema.ValidationError):
        schema_validate(yaml.safe_load(f.read_text(encoding="utf-8")))


TWINS = [
    ("https://github.com/o/r/pull/1", "HTTPS://github.com/o/r/pull/1"),
    ("https://github.com/o/r/pull/1", "https://GitHub.COM/o/r/pull/1"),
    ("http://exämple.org/é", "HTTP://EXäMPLE.org/é"),
]


@pytest.mark.parametrize(("first", "second"), TWINS)
def test_two_links_that_differ_only_in_the_case_of_scheme_or_host_are_listed_twice(
    tmp_path: Path, first: str, second: str
) -> None:
    f = _entry(tmp_path, [first, second])
    with pytest.raises(RegistryError) as info:
        load_patch(f)
    (problem,) = info.value.problems
    assert problem.startswith(f"{f}:10:") and ": at upstream[1]: " in problem, problem
    assert f"is listed twice: upstream[0] is {first!r}, the same link in other case" in problem, problem


def test_a_path_in_other_case_is_another_link(tmp_path: Path) -> None:
    links = ["https://example.org/Wiki/A", "https://example.org/wiki/a"]
    assert load_patch(_entry(tmp_path, links)).upstream == tuple(links)
