"""`requires:` and `upstream:` on a registry entry: parsed into Patch, refused with file:line and
key path when wrong, and stated in the JSON Schema (the engine's use of them comes separately)."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

from radpatch.errors import RegistryError
from radpatch.registry.loader import load_patch
from tests.lib.registry import LIMIT_ENTRY, schema_validate, write_entry

ENTRY = LIMIT_ENTRY
PR = "https://github.com/vllm-project/vllm/pull/12345"


def write(tmp_path: Path, extra: str, name: str = "later_fix") -> Path:
    return write_entry(tmp_path, name, ENTRY + extra)


def schema_accepts(f: Path) -> bool:
    try:
        schema_validate(yaml.safe_load(f.read_text()))
    except jsonschema.ValidationError:
        return False
    return True


def problems(f: Path) -> list[str]:
    with pytest.raises(RegistryError) as info:
        load_patch(f)
    return info.value.problems


def test_both_default_to_nothing(tmp_path: Path) -> None:
    patch = load_patch(write(tmp_path, ""))
    assert patch.requires == () and patch.upstream == ()


def test_both_are_read_in_the_order_written(tmp_path: Path) -> None:
    issue = "https://github.com/vllm-project/vllm/issues/999"
    f = write(tmp_path, f"requires: [first_fix, kv_group_size]\nupstream:\n  - {PR}\n  - {issue}\n")
    patch = load_patch(f)
    assert patch.requires == ("first_fix", "kv_group_size") and patch.upstream == (PR, issue)
    assert schema_accepts(f)


@pytest.mark.parametrize(
    ("extra", "line", "path", "says"),
    [
        ("requires: first_fix\n", 8, "requires", "expected a list, found 'first_fix'; write e.g. [earlier_fix]"),
        ("requires: [later_fix]\n", 8, "requires[0]", "'later_fix' is this entry itself"),
        ("requires: [a, first_fix.yaml]\n", 8, "requires[1]", "without its file suffix: 'first_fix'"),
        ("requires:\n  - a\n  - a\n", 10, "requires[1]", "'a' is listed twice"),
        ("requires: ['my fix']\n", 8, "requires[0]", "'my fix' is not an entry name"),
        ("upstream: [github.com/vllm-project/vllm/pull/1]\n", 8, "upstream[0]", "is not an http(s) URL"),
        ("upstream: ['https://x y']\n", 8, "upstream[0]", "is not an http(s) URL"),
        (f"upstream: [{PR}, {PR}]\n", 8, "upstream[1]", "is listed twice"),
        # not a valid IRI-reference: the CycloneDX BOM's `resolves` would not validate (att23d F3)
        ("upstream: ['https://bugs.example.org/show?id=5&x=<y>']\n", 8, "upstream[0]", "'<' cannot stand in a link"),
        ("upstream: ['https://example.org/q?x=a|b']\n", 8, "upstream[0]", "percent-encoded, as %7C"),
        ("upstream: ['https://example.org/%zz']\n", 8, "upstream[0]", "starts no escape: write it as %25"),
        ("upstream: ['https://example.org/x#a#b']\n", 8, "upstream[0]", "a second '#': write it as %23"),
        ("upstream: {pr: 1}\n", 8, "upstream", "expected a list, found a mapping"),
        # a malformed authority (att23e G4): the strict validator refuses the BOM
        (
            "upstream: ['https://github.com:example/x/pull/7']\n",
            8,
            "upstream[0]",
            "https://github.com/example/x/pull/7",
        ),
        ("upstream: ['https://host:80:90/x']\n", 8, "upstream[0]", "a second ':' in 'host:80:90'"),
        ("upstream: ['https://host:abc/x']\n", 8, "upstream[0]", "'abc' after 'host' is no port"),
        ("upstream: ['https://a@b@c/x']\n", 8, "upstream[0]", "a second '@' in 'a@b@c': one '@' ends the user name"),
        ("upstream: ['https://[::1]x/y']\n", 8, "upstream[0]", "'x' after '[::1]' is no port"),
    ],
)
def test_a_wrong_value_is_refused_at_its_file_line_and_key_path(
    tmp_path: Path, extra: str, line: int, path: str, says: str
) -> None:
    f = write(tmp_path, extra)
    found = [p for p in problems(f) if p.startswith(f"{f}:{line}:") and f": at {path}: " in p]
    assert found and says in found[0], problems(f)
    assert schema_accepts(f) is (path == "requires[0]" and "itself" in says)  # the editor flags all but this


def test_every_wrong_item_is_reported_at_once(tmp_path: Path) -> None:
    f = write(tmp_path, "requires: [later_fix, 'a b']\nupstream: [ftp://x]\n")
    assert len(problems(f)) == 3


@pytest.mark.parametrize("link", ["https://[::1]:8080/x", "https://[::1]/x", "http://u:p@[2001:db8::7]:443/pull/7"])
def test_an_ipv6_host_in_brackets_is_a_link(tmp_path: Path, link: str) -> None:
    """att23e minor (c): a valid IPv6 link was refused, with advice (%5B) that made it invalid."""
    f = write(tmp_path, f"upstream: ['{link}']\n")
    assert load_patch(f).upstream == (link,)
    assert schema_accepts(f)


@pytest.mark.parametrize(
    ("link", "says"),
    [
        ("https://[1::2::3]/x", "'[1::2::3]' is no IPv6 address in brackets"),
        ("https://[fe80::1%25eth0]/x", "is no IPv6 address in brackets"),
    ],
)
def test_a_bracketed_host_that_is_no_ipv6_address_is_refused(tmp_path: Path, link: str, says: str) -> None:
    f = write(tmp_path, f"upstream: ['{link}']\n")
    (problem,) = problems(f)
    assert problem.startswith(f"{f}:8:") and ": at upstream[0]: " in problem and says in problem, problem
