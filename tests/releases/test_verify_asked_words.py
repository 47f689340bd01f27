"""verify's failing count names what it is out of (att23b, minor words: "3 of 3 releases of att-m in
>=1.0 fail" when `--versions ">=1.12"` had asked for three): the declared range's releases without
`--versions`, the asked ones (in the declared range) with it.

Generated: five releases, some failing to match; `--versions` as one release, a lower bound, a
window, an exclusion, or absent."""

from __future__ import annotations

from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, entry

OTHER = GOOD.replace("n = len(items)", "n = len(tuple(items))")  # the rewrite does not match
FAILING = {"1.1", "1.3", "1.4"}
RELEASES = {f"1.{i}": {f"{PKG}/core.py": OTHER if f"1.{i}" in FAILING else GOOD} for i in range(5)}
SPECS = [None, "==1.3", ">=1.2", ">=1.1,<1.4", "!=1.3"]


@pytest.mark.parametrize("spec", sample(SPECS))
def test_the_failing_count_names_the_releases_it_is_out_of(
    spec: str | None, loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback("radpatch-toy", RELEASES)
    reg = write_registry("cap", entry("A toy patch.", ">=1.0"))
    got = radpatch("--registry", str(reg), "verify", "cap", *(("--versions", spec) if spec else ()))
    asked = [v for v in RELEASES if spec is None or Version(v) in SpecifierSet(spec)]
    bad = [v for v in asked if v in FAILING]
    assert got.code == 1, got.err
    (line,) = [ln for ln in got.err.splitlines() if ln.startswith("radpatch: error: ")]
    if spec is None:
        head = f"cap: {len(bad)} of {len(asked)} releases of radpatch-toy in >=1.0 fail: "
    else:
        named = SpecifierSet(spec)  # as packaging writes it
        head = f"cap: {len(bad)} of the {len(asked)} asked ({named}) of radpatch-toy's releases in >=1.0 fail: "
    assert line == "radpatch: error: " + head + ", ".join(f"{v} (match)" for v in bad), line
