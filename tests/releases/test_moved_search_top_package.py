"""The search for a moved scope reads the subpackages of the declared module's package when that
package is the top-level one (radpatch.releases.search_order): `rptoy/core.py` moved to
`rptoy/plan/sizes.py` was never read (no package above the top-level one holds it, its own tier
holds only its direct modules), so the matrix said "unknown whether it moved: the search read the 0
modules nearest the declared one, of 1" and `port` could not carry it. vLLM's `vllm/envs.py` moving
to `vllm/config/envs.py` is the same shape.

Generated: the new home one or two packages down, named unlike the scope (the named tier does not
find it), with or without other modules beside it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, entry

HOMES = {"one down": "plan/sizes", "two down": "plan/deep/misc"}


@pytest.mark.parametrize(("home", "others"), sample([(h, o) for h in HOMES for o in (0, 3)]))
def test_a_scope_moved_into_a_subpackage_of_the_top_package_is_found(
    loopback: Any, write_registry: Any, radpatch: Any, home: str, others: int
) -> None:
    relpath = f"{PKG}/{HOMES[home]}.py"
    module = relpath[: -len(".py")].replace("/", ".")
    moved = {relpath: GOOD, **{f"{PKG}/extra{i}.py": f"X = {i}\n" for i in range(others)}}
    loopback("radpatch-toy", {"1.0": {f"{PKG}/core.py": GOOD}, "1.1": moved})
    reg = write_registry("cap", entry("A toy patch written for 1.0.", "==1.0"))
    grid = json.loads(radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0", "--json").out)
    cell = {c["version"]: c for c in grid["matrix"][0]["cells"]}["1.1"]
    assert cell["module"] == module, cell
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.out + r.err
    assert f"module: {module}" in (reg / "cap.yaml").read_text()
