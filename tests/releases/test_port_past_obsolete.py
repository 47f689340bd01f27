"""`port --to` a range whose newer releases already contain the change (upstream took it) ports the
releases asked for that prove and claims none of the ones that contain it: a packager bumping the
pin to `>=1.1` where 1.1-1.3 keep the code and 1.4 took the change gets `supported:` widened to
1.3, and 1.4 named as already containing it. Before, one obsolete release among those asked left the
entry alone ("nothing to port"), the portable releases with it.

Generated: a base and then releases that keep the code for `keep` more releases and then contain
the change (radpatch's layout or upstream's own spelling), asked from the release after the base
(some to port, then obsolete ones) or only the obsolete ones (nothing to port, as before)."""

from __future__ import annotations

from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PATCHED, PKG, UPSTREAM, entry

TOOK = {"radpatch's layout": PATCHED, "upstream's spelling": UPSTREAM}
COUNT = 6


def _supported(text: str) -> SpecifierSet:
    line = next(ln for ln in text.splitlines() if ln.startswith("supported:"))
    return SpecifierSet(line.split('"')[1])


@pytest.mark.parametrize(
    ("keep", "took", "asked"),
    sample([(k, t, a) for k in (0, 1, 3) for t in TOOK for a in ("after the base", "only the obsolete")]),
)
def test_port_ports_what_proves_and_claims_no_obsolete_release(
    loopback: Any, write_registry: Any, radpatch: Any, keep: int, took: str, asked: str
) -> None:
    code = {f"1.{i}": {f"{PKG}/core.py": GOOD if i <= keep else TOOK[took]} for i in range(COUNT)}
    loopback("radpatch-toy", code)
    reg = write_registry("cap", entry("A toy patch written for 1.0.", "==1.0"))
    before = (reg / "cap.yaml").read_text()
    spec = ">=1.1" if asked == "after the base" else f">=1.{keep + 1}"
    r = radpatch("--registry", str(reg), "port", "cap", "--to", spec)
    assert r.code == 0, r.out + r.err
    text = (reg / "cap.yaml").read_text()
    obsolete = [Version(f"1.{i}") for i in range(keep + 1, COUNT)]
    portable = [Version(f"1.{i}") for i in range(1, keep + 1) if asked == "after the base"]
    supported = _supported(text)
    assert not any(supported.contains(v) for v in obsolete), text
    assert all(supported.contains(v) for v in [Version("1.0"), *portable]), text
    assert (text != before) is bool(portable), r.out
    for v in obsolete:
        assert f"{v}: obsolete" in r.out, r.out
    if portable:
        assert radpatch("--registry", str(reg), "verify", "cap").code == 0
