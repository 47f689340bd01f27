#!/usr/bin/env python3
"""Run vLLM's own KV-cache planning unit tests, from the release's sdist, on a vLLM install.

Stdlib only in this process; the tests run under the install's interpreter.  Importable
(``run_vllm_tests``, ``compare``, ``load_intended``) and a CLI::

    # two pristine copies, `radpatch apply kv_group_size` on one; run both, re-run what changed
    python harness/vllm_own_tests.py compare 0.33.0 [--radpatch PATH] [--write-intended]   # ~3 min
    python harness/vllm_own_tests.py run PYTHON 0.33.0          # one run, JSON on stdout

``--write-intended`` rewrites harness/vllm_own_tests_intended.json from that comparison: the
list of vLLM tests whose outcome kv_group_size is meant to change, each with the plans (group
counts, group size, blocks per request) and capacities vLLM computed for that test's layout,
pristine and patched.  tests/flagship/test_vllm_own_tests.py fails when an outcome changes that
the file does not list, or a listed one changes differently: review the diff, then commit it.

Which tests: every ``test_*.py`` under the sdist's ``tests/v1`` that calls vLLM's KV-cache
planning (``SELECT_MARKERS``), found by reading the files, so a new release's tests are picked
up without a list to maintain.  Those that fail on the pristine install here (GPU-only code, a
hub model beyond the stand-ins) fail the same way patched and are reported, not compared away.

What the environment lacks and how it is stood in for (nothing of vLLM is replaced):

* vLLM's root ``tests/conftest.py`` is not loaded (``--noconftest``; it imports the whole engine
  and test assets); harness/vllm_tests_plugin.py provides the one fixture the planning tests
  take from it (``caplog_vllm``) and records what the planning functions did in each test.
* pytest at the version vLLM's ``requirements/test/cpu.txt`` pins, and einops (imported by the
  attention package the tests' helpers import), installed once into ``extras/`` (no deps, like
  harness/vllm_cpu.py's release extras) and put on ``PYTHONPATH``.
* ``VLLM_TARGET_DEVICE=cpu``: the wheel is vLLM's CUDA build, whose platform detection finds no
  device on a CPU machine; vLLM's CPU platform is what its CPU CI runs these tests on.
* The hub is unreachable.  Several tests build ``ModelConfig()`` (default model
  ``Qwen/Qwen3-0.6B``) or name a hub model only to get *a* valid config; a per-run ``HF_HOME``
  holds, for each id in ``HUB_STANDINS``, a ``config.json`` made by the install's own
  transformers from that architecture's config class defaults (dtype set, so vLLM does not ask
  the hub for safetensors metadata), with ``HF_HUB_OFFLINE=1``.  Tests whose assertions depend
  on the real model's numbers then fail pristine and patched alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

if not __package__:  # run as a script: make the checkout's `harness` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import vllm_cpu
from harness.vllm_sdist import ensure_tests

HARNESS = Path(__file__).resolve().parent
INTENDED = HARNESS / "vllm_own_tests_intended.json"
PLUGIN = "vllm_tests_plugin"
RECORD_ENV = "RADPATCH_VLLM_TESTS_RECORD"
PATCH = "kv_group_size"

# pytest as vLLM 0.33.0's requirements/test/cpu.txt pins it, its two dependencies the shared deps
# venv lacks, and einops (vllm.v1.attention.ops.vit_attn_wrappers, reached from the tests' helpers)
TEST_TOOLS = ("pytest==9.1.0", "iniconfig==2.3.0", "pluggy==1.6.0", "einops==0.8.2")
# a test file is a planning test if it names one of these
SELECT_MARKERS = (
    "kv_cache_planning",
    "get_kv_cache_groups",
    "get_kv_cache_configs",
    "get_kv_cache_config_from_groups",
    "_get_kv_cache_groups_uniform_page_size",
)
# hub id -> (transformers config class, architecture): ids the selected tests construct configs for
HUB_STANDINS: tuple[tuple[str, str, str], ...] = (
    ("Qwen/Qwen3-0.6B", "Qwen3Config", "Qwen3ForCausalLM"),  # ModelConfig()'s default model
    ("Qwen/Qwen1.5-7B", "Qwen2Config", "Qwen2ForCausalLM"),
    ("facebook/opt-125m", "OPTConfig", "OPTForCausalLM"),
)
RUN_TIMEOUT = 1800  # s; ~1.5-2 min on 2 cores under load
# variables that would change what the tests or the patch do; the run starts from none of them
SCRUBBED_PREFIXES = ("RADIANCE_KV_GROUP_", "VLLM_KV_CACHE_LAYOUT", "RADPATCH_REQUIRE")


# ------------------------------------------------------------------------------ records

T = TypeVar("T")


@dataclass(frozen=True)
class Plan:
    """One call of the planner kv_group_size patches: its input buckets and the groups it made."""

    buckets: tuple[tuple[str, int], ...]  # (spec kind, layers) in vLLM's bucket order
    groups: int
    group_size: int
    blocks_per_request: int | None  # sum over groups of cdiv(max_memory_usage, page)

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Plan:
        return cls(
            tuple((str(b["kind"]), int(b["layers"])) for b in raw.get("buckets", [])),
            int(raw["groups"]),
            int(raw["group_size"]),
            raw.get("blocks_per_request"),
        )

    def describe(self) -> str:
        layers = " + ".join(f"{n} {kind.replace('Spec', '')}" for kind, n in self.buckets) or "?"
        bpr = f", {self.blocks_per_request} blocks/request" if self.blocks_per_request is not None else ""
        return f"{layers}: size {self.group_size}, {self.groups} groups{bpr}"


@dataclass(frozen=True)
class Capacity:
    """One get_kv_cache_config_from_groups: the test's memory as vLLM turns it into capacity."""

    groups: int
    num_blocks: int
    tokens: int | None  # vLLM's max concurrency x max_model_len

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Capacity:
        return cls(int(raw["groups"]), int(raw["num_blocks"]), raw.get("tokens"))

    def describe(self) -> str:
        tokens = f", {self.tokens:,} tokens" if self.tokens is not None else ""
        return f"{self.groups} groups, {self.num_blocks} blocks{tokens}"


@dataclass(frozen=True)
class CaseRecord:
    nodeid: str
    outcome: str  # passed / failed / error / skipped
    plans: tuple[Plan, ...]
    capacities: tuple[Capacity, ...]


@dataclass(frozen=True)
class Run:
    python: str
    vllm_version: str | None
    patched_signature: bool  # the planner takes vllm_config: kv_group_size's
    tests: dict[str, CaseRecord]
    files: tuple[str, ...]
    wall_s: float

    def count(self, outcome: str) -> int:
        return sum(1 for t in self.tests.values() if t.outcome == outcome)

    def summary(self) -> str:
        return ", ".join(f"{self.count(o)} {o}" for o in ("passed", "failed", "error", "skipped"))


@dataclass(frozen=True)
class Change:
    """A test whose outcome differs, and how vLLM's planning differed inside it."""

    nodeid: str
    pristine: str
    patched: str
    plans: tuple[tuple[Plan, Plan], ...]  # (upstream, patched) where they differ
    capacities: tuple[tuple[Capacity, Capacity], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "pristine": self.pristine,
            "patched": self.patched,
            "plans": [{"upstream": asdict(u), "patched": asdict(p)} for u, p in self.plans],
            "capacities": [{"upstream": asdict(u), "patched": asdict(p)} for u, p in self.capacities],
        }


def _plan_from_json(raw: dict[str, Any]) -> Plan:
    return Plan(
        tuple((str(k), int(n)) for k, n in raw["buckets"]),
        int(raw["groups"]),
        int(raw["group_size"]),
        raw.get("blocks_per_request"),
    )


def change_from_json(nodeid: str, raw: dict[str, Any]) -> Change:
    return Change(
        nodeid,
        str(raw["pristine"]),
        str(raw["patched"]),
        tuple((_plan_from_json(p["upstream"]), _plan_from_json(p["patched"])) for p in raw["plans"]),
        tuple((Capacity(**c["upstream"]), Capacity(**c["patched"])) for c in raw["capacities"]),
    )


# ------------------------------------------------------------------------------ running


def select_test_files(tests_root: Path) -> list[str]:
    """Test files under tests/v1 that call vLLM's KV-cache planning, relative to tests_root."""
    found = []
    for path in sorted((tests_root / "tests" / "v1").rglob("test_*.py")):
        text = path.read_text(errors="replace")
        if any(marker in text for marker in SELECT_MARKERS):
            found.append(str(path.relative_to(tests_root)))
    return found


def tools_dir(cache: Path | None = None) -> Path:
    root = vllm_cpu.cache_root(cache)
    deps = vllm_cpu.ensure_deps(root)
    return vllm_cpu.ensure_extras(root, TEST_TOOLS, vllm_cpu.venv_python(deps))


STANDIN_CODE = """
import hashlib, json, sys
from pathlib import Path
import transformers
hub = Path(sys.argv[1]) / "hub"
for repo, cls, arch in json.loads(sys.argv[2]):
    text = getattr(transformers, cls)(architectures=[arch], dtype="bfloat16").to_json_string()
    rev = hashlib.sha1(text.encode()).hexdigest()
    folder = hub / ("models--" + repo.replace("/", "--"))
    (folder / "snapshots" / rev).mkdir(parents=True)
    (folder / "snapshots" / rev / "config.json").write_text(text)
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text(rev)
"""


def make_hub_standin(python: Path, dest: Path) -> Path:
    """An HF_HOME whose hub cache holds a config.json for each of HUB_STANDINS (see the docstring)."""
    done = subprocess.run(
        [str(python), "-c", STANDIN_CODE, str(dest), json.dumps(HUB_STANDINS)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise vllm_cpu.ProvisionError(f"building the hub stand-in with {python} failed:\n{done.stderr[-3000:]}")
    return dest


def test_env(tools: Path, hf_home: Path, record: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
    env.update(
        {
            "PYTHONPATH": os.pathsep.join([str(tools), str(HARNESS)]),
            "PYTHONDONTWRITEBYTECODE": "1",  # the unpacked tests are shared by every run: no __pycache__ in them
            "VLLM_TARGET_DEVICE": "cpu",
            "HF_HOME": str(hf_home),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            RECORD_ENV: str(record),
        }
    )
    return env


def run_vllm_tests(
    python: Path, version: str, cache: Path | None = None, files: list[str] | None = None, log: Path | None = None
) -> Run:
    """Run the selected vLLM tests of `version` under `python` (a vLLM venv); outcomes and plans."""
    root = ensure_tests(version, cache)
    selected = files if files is not None else select_test_files(root)
    tools = tools_dir(cache)
    with tempfile.TemporaryDirectory(prefix="vllm-own-tests-") as tmp:
        hf_home = make_hub_standin(python, Path(tmp) / "hf")
        record = Path(tmp) / "record.json"
        cmd = [
            str(python),
            "-m",
            "pytest",
            "-p",
            PLUGIN,
            "--noconftest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:warnings",
            "-q",
            "-rfE",
            "--continue-on-collection-errors",
            *selected,
        ]
        start = time.monotonic()
        done = subprocess.run(
            cmd,
            check=False,
            cwd=root,
            env=test_env(tools, hf_home, record),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
        wall = time.monotonic() - start
        if log is not None:
            log.write_text(done.stdout + done.stderr)
        if not record.is_file():
            raise vllm_cpu.ProvisionError(
                f"vLLM's tests did not run under {python} (exit {done.returncode}):\n"
                f"{(done.stdout + done.stderr)[-4000:]}"
            )
        data = json.loads(record.read_text())
    tests = {
        nodeid: CaseRecord(
            nodeid,
            raw["outcome"],
            tuple(Plan.of(p) for p in raw.get("plans", [])),
            tuple(Capacity.of(c) for c in raw.get("capacities", [])),
        )
        for nodeid, raw in data["tests"].items()
    }
    return Run(str(python), data.get("vllm_version"), bool(data.get("patched_signature")), tests, tuple(selected), wall)


def _differing(before: tuple[T, ...], after: tuple[T, ...]) -> tuple[tuple[T, T], ...]:
    """The (pristine, patched) pairs of the same call that differ, each distinct pair once (vLLM
    plans some layouts several times in one test, e.g. a one-block probe before the real plan)."""
    return tuple(dict.fromkeys((u, p) for u, p in zip(before, after) if u != p))


def compare(pristine: Run, patched: Run) -> list[Change]:
    """Tests whose outcome differs, with the planning calls whose result differs inside them."""
    changes = []
    for nodeid in sorted(set(pristine.tests) | set(patched.tests)):
        before, after = pristine.tests.get(nodeid), patched.tests.get(nodeid)
        out_before = before.outcome if before else "absent"
        out_after = after.outcome if after else "absent"
        if out_before == out_after:
            continue
        plans = _differing(before.plans if before else (), after.plans if after else ())
        caps = _differing(before.capacities if before else (), after.capacities if after else ())
        changes.append(Change(nodeid, out_before, out_after, plans, caps))
    return changes


@dataclass(frozen=True)
class Comparison:
    pristine: Run
    patched: Run
    changes: list[Change]  # reproduced by a second run of just those tests on both installs
    unconfirmed: list[Change]  # changed once, not again: the test is flaky here, not the patch's doing


def compare_installs(
    pristine_python: Path, patched_python: Path, version: str, cache: Path | None = None, log_dir: Path | None = None
) -> Comparison:
    """Run the tests on both installs; re-run the tests whose outcome changed on both, and keep
    the changes that come back the same (a test with a timeout, e.g. one that compiles vLLM in a
    subprocess, can fail once on a loaded machine whichever install it runs on)."""

    def log(name: str) -> Path | None:
        return log_dir / f"{name}.log" if log_dir is not None else None

    pristine = run_vllm_tests(pristine_python, version, cache, log=log("pristine"))
    patched = run_vllm_tests(patched_python, version, cache, log=log("patched"))
    first = compare(pristine, patched)
    if not first:
        return Comparison(pristine, patched, [], [])
    ids = [c.nodeid for c in first]
    again = compare(
        run_vllm_tests(pristine_python, version, cache, files=ids, log=log("pristine-again")),
        run_vllm_tests(patched_python, version, cache, files=ids, log=log("patched-again")),
    )
    kept = {(c.nodeid, c.pristine, c.patched) for c in again}
    confirmed = [c for c in first if (c.nodeid, c.pristine, c.patched) in kept]
    return Comparison(pristine, patched, confirmed, [c for c in first if c not in confirmed])


def plan_changed_outcome_kept(pristine: Run, patched: Run) -> list[str]:
    """Tests that passed both times although a plan inside them differs (informative)."""
    out = []
    for nodeid, before in pristine.tests.items():
        after = patched.tests.get(nodeid)
        if after and before.outcome == after.outcome and before.plans != after.plans:
            out.append(nodeid)
    return sorted(out)


# ------------------------------------------------------------------------------ intended


def load_intended(version: str, path: Path = INTENDED) -> dict[str, Change]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    entries = data.get("releases", {}).get(version, {}).get("tests", {})
    return {nodeid: change_from_json(nodeid, raw) for nodeid, raw in entries.items()}


def why(change: Change) -> str:
    parts = []
    for upstream, patched in change.plans:
        rel = ""
        if upstream.blocks_per_request and patched.blocks_per_request:
            ratio = (upstream.group_size * upstream.blocks_per_request) / (
                patched.group_size * patched.blocks_per_request
            )
            rel = (
                f" (capacity per byte x{ratio:.3f}: group size x blocks/request "
                f"{upstream.group_size * upstream.blocks_per_request}"
            )
            rel += f" -> {patched.group_size * patched.blocks_per_request})"
        parts.append(f"upstream {upstream.describe()}; kv_group_size {patched.describe()}{rel}")
    for cap_upstream, cap_patched in change.capacities:
        parts.append(f"the test's memory: upstream {cap_upstream.describe()}; kv_group_size {cap_patched.describe()}")
    return "; ".join(parts) or "no planning call differs"


def write_intended(version: str, changes: list[Change], pristine: Run, patched: Run, path: Path = INTENDED) -> None:
    data = json.loads(path.read_text()) if path.is_file() else {}
    data["about"] = (
        "vLLM unit tests whose outcome kv_group_size is meant to change, with what vLLM's planning "
        "did inside each, pristine vs patched. Regenerate with: python harness/vllm_own_tests.py "
        "compare VERSION --write-intended; review the diff before committing it."
    )
    data.setdefault("releases", {})[version] = {
        "pristine": pristine.summary(),
        "patched": patched.summary(),
        "files": list(pristine.files),
        "tests": {c.nodeid: {**c.to_json(), "why": why(c)} for c in changes},
    }
    vllm_cpu.write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def render(
    version: str, pristine: Run, patched: Run, changes: list[Change], unconfirmed: list[Change] | None = None
) -> str:
    lines = [f"vLLM {version}'s own KV-cache planning tests ({len(pristine.files)} files from the sdist)"]
    for name, run in (("pristine", pristine), ("patched", patched)):
        reached = [t for t in run.tests.values() if t.plans]
        lines.append(
            f"  {name + ':':9} {run.summary()} ({run.wall_s:.0f} s); {len(reached)} tests called the planner "
            f"kv_group_size patches, {sum(len(t.plans) for t in reached)} times"
        )
    lines.append(f"  outcomes changed: {len(changes)}")
    for c in changes:
        lines.append(f"  - {c.nodeid}: {c.pristine} -> {c.patched}")
        lines.append(f"      {why(c)}")
    if unconfirmed:
        lines.append(f"  changed once, not on a second run of both installs (flaky here): {len(unconfirmed)}")
        lines += [f"  - {c.nodeid}: {c.pristine} -> {c.patched}" for c in unconfirmed]
    kept = plan_changed_outcome_kept(pristine, patched)
    if kept:
        lines.append(f"  plan differs, outcome unchanged: {len(kept)}")
        lines += [f"  - {n}" for n in kept]
    bad = sorted(n for n, t in pristine.tests.items() if t.outcome in ("failed", "error"))
    if bad:
        lines.append(f"  not runnable here (fail on the pristine install too): {len(bad)}")
        lines += [f"  - {n}" for n in bad]
    return "\n".join(lines)


# ------------------------------------------------------------------------------ CLI


def _compare_cli(version: str, radpatch: Path, write: bool) -> int:
    base = vllm_cpu.cache_root() / "fresh"  # the cache's filesystem: fresh() hard-links there
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vllm-own-tests-", dir=base) as tmp:
        pristine_python = vllm_cpu.fresh(version, dest=Path(tmp) / "pristine")
        patched_python = vllm_cpu.fresh(version, dest=Path(tmp) / "patched")
        done = subprocess.run(
            [str(radpatch), "--python", str(patched_python), "apply", PATCH],
            check=False,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(done.stdout + done.stderr, file=sys.stderr)
            return 1
        result = compare_installs(pristine_python, patched_python, version)
    print(render(version, result.pristine, result.patched, result.changes, result.unconfirmed))
    if write:
        write_intended(version, result.changes, result.pristine, result.patched)
        print(f"wrote {INTENDED}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_cmp = sub.add_parser("compare", help="pristine vs kv_group_size applied, on a fresh copy")
    p_cmp.add_argument("version")
    p_cmp.add_argument(
        "--radpatch",
        type=Path,
        default=Path(sys.executable).parent / "radpatch",
        help="the radpatch command (default: the one next to this interpreter)",
    )
    p_cmp.add_argument("--write-intended", action="store_true", help=f"rewrite {INTENDED.name}")
    p_run = sub.add_parser("run", help="one run under PYTHON; JSON on stdout")
    p_run.add_argument("python", type=Path)
    p_run.add_argument("version")
    args = parser.parse_args(argv)
    try:
        if args.cmd == "compare":
            return _compare_cli(args.version, args.radpatch, args.write_intended)
        run = run_vllm_tests(args.python, args.version)
        print(json.dumps(asdict(run), indent=1))
    except vllm_cpu.ProvisionError as exc:
        print(f"[vllm_own_tests] error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
