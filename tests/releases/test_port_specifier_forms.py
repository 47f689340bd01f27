"""port takes every PEP 440 specifier form (port36, issue 23): an entry whose `supported:` is written
`~=1.0.0`, `==1.0.*` or `===1.0` was refused with exit 2 ("cannot be widened automatically") where
`==1.0` or `>=1.0,<1.1` ported; now each form is read as PEP 440 reads it (`~=1.0.0` is `>=1.0.0,<1.1`)
and widened like those. `--to "!=1.0,<2"` dropped 1.0, a release the entry claimed, by
writing the exclusion into `supported:`; an exclusion is written only for a release the new range would
newly claim. Every `--to` form (`~=`, `==X.*`, `===`, `!=`, ranges, spaces) is accepted, or
refused with one line naming it. On the toy releases (tests/lib/toy_releases: 1.0 and 1.1 prove)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import entry

SUPPORTED = ["~=1.0.0", "~=1.0.0, !=1.0.3", "==1.0.*", "== 1.0.*", "===1.0", "==1.0", "~=1.0.0,<1.1"]
TO = ["~=1.1.0", "==1.1.*", "===1.1", "== 1.1", ">=1.0,<2", " >= 1.1 , < 1.2 ", "1.1", "!=1.0,<2", "<2,>1.0"]


@pytest.mark.parametrize(("supported", "to"), sample(itertools.product(SUPPORTED, TO)))
def test_every_specifier_form_of_supported_and_to_ports(
    index: IndexServer, write_registry: Any, radpatch: Any, supported: str, to: str
) -> None:
    reg = write_registry("cap", entry(supported))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", to)
    assert r.code == 0, r.out + r.err
    line = next(x for x in (reg / "cap.yaml").read_text().splitlines() if x.startswith("supported:"))
    now = SpecifierSet(line.split('"')[1])
    held = [v for v in ("1.0", "1.1", "2.0", "2.1", "3.0") if now.contains(v)]
    # the release it held and the one asked for, never 2.0 and later; `--to "!=1.0,<2"` (do not port to
    # 1.0) keeps 1.0, which the entry claimed: it wrote `!=1.0` into `supported:` and dropped it
    assert held == ["1.0", "1.1"], (line, r.out)
    assert "written:" in r.out, r.out


# forms no PEP 440 range has, and ranges that hold no listed release: one line each, nothing edited
REFUSED = {
    "=>1.1": "is not a PEP 440 version range",
    ">=1.1 <2": "is not a PEP 440 version range",
    ">=1.1;<2": "is not a PEP 440 version range",
    "~=1": "is not a PEP 440 version range",
    "": "is not a PEP 440 version range",
    "===1.1.0": "no release of radpatch-toy on the package index is in ===1.1.0",
    "==9.*": "no release of radpatch-toy on the package index is in ==9.*",
}


@pytest.mark.parametrize("to", sample(REFUSED))
def test_a_form_no_release_answers_is_one_line(index: IndexServer, write_registry: Any, radpatch: Any, to: str) -> None:
    reg = write_registry("cap", entry("~=1.0.0"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", to)
    assert r.code == 2, r.out + r.err
    errors = [x for x in r.err.splitlines() if x.startswith("radpatch: error:")]
    assert len(errors) == 1 and REFUSED[to] in errors[0] and "Traceback" not in r.err, r.err
    assert (reg / "cap.yaml").read_bytes() == before


KNOWN = [Version(v) for v in ("0.9", "1.0", "1.0.3", "1.1", "1.2", "2.0", "2.1", "3.0")]
FORMS = ["~=1.0.0", "~=1.0", "==1.0.*", "==1.*", "===1.0", "==1.0", "==1.0+cpu", ">1.0,<1.1", ">=1.0,<=1.0.3",
         "~=1.0.0,!=1.0.3", "!=1.0.*,<1.1", "<1.1", ">=1.0"]  # fmt: skip
ADDED = [["1.1"], ["1.2"], ["2.0"], ["0.9"], ["0.9", "1.1"]]


@pytest.mark.parametrize(("form", "added"), sample(itertools.product(FORMS, ADDED)))
def test_widen_reads_every_operator_as_pep_440_does(form: str, added: list[str]) -> None:
    """The widened range holds what the form held and the releases added, and claims no listed release
    above the highest of them or below the lowest (`<X` keeps X's number of components)."""
    from radpatch.releases.port_edits import widen

    vs = [Version(v) for v in added]
    text = widen(form, vs, KNOWN)
    now, was = SpecifierSet(text), SpecifierSet(form.replace("+cpu", ""))  # a local pin widens as its public version
    assert all(now.contains(v) for v in vs), text
    assert all(now.contains(k) for k in KNOWN if was.contains(k)), text
    held = [k for k in KNOWN if was.contains(k) or k in vs]
    assert all(min(held) <= k <= max(held) for k in KNOWN if now.contains(k)), text


def test_a_text_no_version_has_is_a_clear_usage_error() -> None:
    from radpatch.errors import UsageError
    from radpatch.releases.port_edits import widen

    with pytest.raises(UsageError) as caught:
        widen("===nightly", [Version("1.1")])
    assert "names no PEP 440 version" in caught.value.message
