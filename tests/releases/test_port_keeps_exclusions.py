"""`port --to` a range with an exclusion (`>=1.1,!=2.1,<3`: 2.1 rewrote the code, the packager skips
it) writes the exclusion into the widened `supported:` when the new range would claim the excluded
release, which was not asked for, so not proven: before, the edit claimed it and was not written
("the edited entry does not prove: 2.1 fail ..."). An exclusion of no release the new range claims
is not written.

Generated on the toy releases (radpatch-toy: 2.0 moves size() to planning.py, 2.1 rewrites it, 2.2
drops core.py): the exclusion spelled `!=2.1` or `!=2.1.*`, with an exclusion of an unlisted release
beside it or not, ported to releases that still prove (1.1 only) or across the move."""

from __future__ import annotations

from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import entry


def _supported(text: str) -> SpecifierSet:
    line = next(ln for ln in text.splitlines() if ln.startswith("supported:"))
    return SpecifierSet(line.split('"')[1])


@pytest.mark.parametrize(
    ("exclusion", "unlisted", "upper"),
    sample([(e, u, h) for e in ("!=2.1", "!=2.1.*") for u in (False, True) for h in ("<2.1.5", "<3")]),
)
def test_port_writes_the_exclusions_asked_for(
    index: IndexServer, write_registry: Any, radpatch: Any, exclusion: str, unlisted: bool, upper: str
) -> None:
    reg = write_registry("cap", entry("==1.0"))
    asked = f">=1.1,{exclusion},{upper}" + (",!=0.9" if unlisted else "")
    r = radpatch("--registry", str(reg), "port", "cap", "--to", asked)
    assert r.code == 0, r.out + r.err
    text = (reg / "cap.yaml").read_text()
    supported = _supported(text)
    assert not supported.contains("2.1"), text
    assert all(supported.contains(v) for v in ("1.0", "1.1", "2.0")), text
    assert "0.9" not in text, text
    assert supported.contains("2.2") is (upper == "<3"), text
    assert radpatch("--registry", str(reg), "verify", "cap").code == 0


def test_an_exclusion_the_new_range_does_not_reach_is_not_written(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry("==1.0"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", ">=1.1,<2,!=2.1")
    assert r.code == 0, r.out + r.err
    assert "!=" not in (reg / "cap.yaml").read_text()
