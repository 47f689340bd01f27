"""Port across the flagship's own move (vLLM 0.33: `vllm.v1.core.kv_cache_utils` to
`vllm.v1.core.kv_cache_planning`, the fact issue 23 names) on real vLLM releases, read by range
requests from the package index (cached in ~/.cache/radpatch; a warm run reads nothing):

- an entry written for kv_cache_utils over a wide range, whose rewrite applies only on the range's
  oldest releases (upstream took the change later), ported to 0.33.0: the scope is found in
  kv_cache_planning, which already holds the change, so port says obsolete and edits nothing; verify
  reads its bases spread over the range (moved38): the releases nearest 0.33 hold no base;
- a stacked pair (`requires:`), the flagship naming only kv_cache_utils and an entry on the same
  function requiring it, ported together: both get kv_cache_planning for 0.33, and verify proves
  both over their new ranges, the second on what the first leaves.

Which releases hold the rewrite's code and where 0.33 defines the scope is read from the wheels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.releases import moved
from radpatch.releases.base_search import BASES, MOST
from radpatch.releases.wheels import Releases
from tests.lib import REPO
from tests.lib.registry import shipped_range, write_entry

pytestmark = [pytest.mark.network, pytest.mark.vllm]  # the package index's vLLM wheels

UTILS, PLANNING = "vllm.v1.core.kv_cache_utils", "vllm.v1.core.kv_cache_planning"
SCOPE = "_get_kv_cache_groups_uniform_page_size"
RANGE = SpecifierSet(">=0.12.0,<0.33")


def _path(module: str) -> str:
    return module.replace(".", "/") + ".py"


def _read(version: Version, module: str) -> bytes | None:
    return Releases.from_env().get("vllm", version, frozenset({_path(module)})).read(_path(module))


def _pad(supported: str, find: str, with_: str, requires: str = "") -> str:
    return f"""\
summary: pad the KV cache groups of a hybrid model up to more layers
description: upstream's padding threshold, raised
distribution: vllm
supported: "{supported}"
{requires}modules:
  planner: {UTILS}
rewrites:
  - replace: {{scope: {SCOPE}, find: "{find}", with: "{with_}"}}
"""


def test_an_entry_for_kv_cache_utils_finds_kv_cache_planning_read_off_a_base_far_in_its_range(
    real_index: None, radpatch: Any, tmp_path: Path
) -> None:
    path = write_entry(tmp_path, "pad", _pad(str(RANGE), "min_num_layers * 1.25", "min_num_layers * 1.5"))
    before = path.read_text()
    new = _read(Version("0.33.0"), PLANNING)
    assert new is not None and moved.defines(new, SCOPE)
    r = radpatch("--registry", str(tmp_path), "port", "pad", "--to", "0.33.0")
    assert f"0.33.0: obsolete: moved: {UTILS} -> {PLANNING}, which already contains the change" in r.out, r.out
    assert "0.33.0 already contains the change" in r.out and path.read_text() == before, r.out
    report = json.loads(radpatch("--registry", str(tmp_path), "verify", "pad", "--versions", "==0.33.0", "--json").out)
    read = [Version(v) for v in report["bases_read"]]
    bases = [v for v in read if b"min_num_layers * 1.25" in (_read(v, UTILS) or b"")]
    listed = Releases.from_env().versions("vllm", RANGE).versions
    claimed = sorted(v for v in listed if not v.is_prerelease and RANGE.contains(v))
    assert bases and len(read) <= MOST, read  # a base was read, within the bound
    assert not any(b in claimed[-BASES:] for b in bases), (bases, claimed[-BASES:])  # not among the nearest


def test_a_stacked_pair_ported_together_both_get_kv_cache_planning(
    real_index: None, radpatch: Any, tmp_path: Path
) -> None:
    text = (REPO / "registry" / "kv_group_size.yaml").read_text()
    start, end = text.index("modules:\n"), text.index("rewrites:\n")
    text = text[:start] + f"modules:\n  planner: {UTILS}\n\n" + text[end:]
    text = text.replace(f'supported: "{shipped_range()}"', 'supported: ">=0.27.0,<0.33"')
    text = text.replace("../patches/kv_group_size/payload.py", "payload.py")
    payload = (REPO / "patches" / "kv_group_size" / "payload.py").read_text()
    write_entry(tmp_path, "kvonly", text, {"payload.py": payload}, dedent=False)
    pad = _pad(">=0.27.0,<0.33", "min_num_layers * 1.5", "min_num_layers * 2", "requires: [kvonly]\n")
    write_entry(tmp_path, "pad", pad)
    r = radpatch("--registry", str(tmp_path), "port", "kvonly", "pad", "--to", "0.33.0")
    assert r.code == 0, r.out + r.err
    for name in ("kvonly", "pad"):
        written = (tmp_path / f"{name}.yaml").read_text()
        assert f'    - versions: ">=0.33.0"\n      module: {PLANNING}\n' in written, written
        v = json.loads(radpatch("--registry", str(tmp_path), "verify", name, "--json").out)
        results = {x["version"]: x for x in v["results"] if x["in_range"]}
        assert results["0.33.0"]["ok"] and results["0.33.0"]["modules"] == [PLANNING], results["0.33.0"]
        assert v["passed"] == v["claimed"] == len(results), v
