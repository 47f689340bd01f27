"""port widens an entry whose `supported:` is written in a PEP 440 form other than a bound (port36's
fix, issue 23), on real vLLM releases read by range requests from the package index (cached in
~/.cache/radpatch, the second run reads nothing): `~=0.32.0` and `==0.32.*` (each the 0.32 series)
ported to 0.33.0 claim 0.33.0, and verify then proves every release of the new range.
Nothing below is typed from the wheels: the releases claimed are read from the verify run."""

from __future__ import annotations

import json
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.lib import REPO
from tests.lib.registry import write_entry

pytestmark = [pytest.mark.network, pytest.mark.vllm]  # the package index's vLLM wheels


@pytest.mark.parametrize("form", ["~=0.32.0", "==0.32.*"])
def test_port_widens_a_pep_440_range_on_real_releases(
    real_index: None, radpatch: Any, tmp_path: Any, form: str
) -> None:
    text = (REPO / "examples" / "registry" / "dp_coordinator_timeout.yaml").read_text()
    assert 'supported: ">=0.32.0,<0.34"' in text
    before = text.replace('">=0.32.0,<0.34"', f'"{form}"')
    path = write_entry(tmp_path / "reg", "dponly", before, dedent=False)
    r = radpatch("--registry", str(path.parent), "port", "dponly", "--to", "0.33.0")
    assert r.code == 0, r.err
    assert "0.33.0: pass" in r.out, r.out
    after = path.read_text()
    (line,) = [ln for ln in after.splitlines() if ln.startswith("supported: ")]
    widened = SpecifierSet(line.split('"')[1])
    assert widened.contains("0.33.0") and widened.contains("0.32.0"), line
    assert after.replace(line, f'supported: "{form}"') == before  # that line only: comments and layout stay
    v = json.loads(radpatch("--registry", str(path.parent), "verify", "dponly", "--json").out)
    claimed = [Version(x["version"]) for x in v["results"] if x["in_range"]]
    assert Version("0.33.0") in claimed and all(c in widened for c in claimed), claimed
    assert v["passed"] == v["claimed"] == len(claimed), v
