"""vLLM's own KV-cache planning unit tests, from the 0.33.0 sdist, on an install kv_group_size patched.

harness/vllm_own_tests.py fetches the release's sdist from the package index, selects every test
file under tests/v1 that calls vLLM's KV-cache planning, and runs them with pytest in two pristine
copies of the CPU-provisioned release, one of them patched by `radpatch apply kv_group_size` (the
wheel's command); tests whose outcome differs are run once more on both, and only a difference that
comes back is a change. A pytest plugin of the harness records, in each test, what the planner
kv_group_size patches returned and the capacity vLLM computed from it.

Every outcome that changes must be listed in harness/vllm_own_tests_intended.json, with the plans
(group counts, group size, blocks per request) and capacities vLLM computed for that test's
layout, pristine and patched -- or this fails. After a deliberate change to the patch's objective:
`python harness/vllm_own_tests.py compare 0.33.0 --write-intended`, review the diff, commit it.
~3-4 min on 2 cores (two runs of ~400 tests, most of it importing vLLM).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness import vllm_cpu
from harness.vllm_own_tests import (
    Capacity,
    CaseRecord,
    Change,
    Comparison,
    Plan,
    Run,
    compare,
    compare_installs,
    load_intended,
    render,
    select_test_files,
    write_intended,
)
from tests.lib.processes import run

VERSION = "0.33.0"
PATCH = "kv_group_size"
REGENERATE = f"python harness/vllm_own_tests.py compare {VERSION} --write-intended"
# files that must have run, passing tests, for the comparison to mean anything
CORE_FILES = ("tests/v1/core/test_kv_cache_planning.py", "tests/v1/core/test_kv_cache_utils.py")


@dataclass(frozen=True)
class Outcome:
    result: Comparison
    state: str

    @property
    def changes(self) -> list[Change]:
        return self.result.changes

    def report(self) -> str:
        r = self.result
        return render(VERSION, r.pristine, r.patched, r.changes, r.unconfirmed)


@pytest.fixture(scope="module")
def comparison(radpatch_cmd: Path, tmp_path_factory: pytest.TempPathFactory) -> Outcome:  # noqa: F811
    tmp = tmp_path_factory.mktemp("vllm-own-tests")
    pristine = Path(vllm_cpu.fresh(VERSION, dest=tmp / "pristine"))
    patched = Path(vllm_cpu.fresh(VERSION, dest=tmp / "patched"))
    run(radpatch_cmd, "--python", patched, "apply", PATCH, cwd=tmp)
    (entry,) = json.loads(run(radpatch_cmd, "--python", patched, "status", "--json", PATCH, cwd=tmp).stdout)
    result = Outcome(compare_installs(pristine, patched, VERSION, log_dir=tmp), str(entry["state"]))
    print(result.report())
    return result


@pytest.mark.real
def test_vllms_tests_really_ran_on_each_install(comparison: Outcome) -> None:
    pristine, patched = comparison.result.pristine, comparison.result.patched
    assert pristine.vllm_version == patched.vllm_version == VERSION
    assert pristine.files == patched.files and set(CORE_FILES) <= set(pristine.files)
    for run_ in (pristine, patched):
        for name in CORE_FILES:
            passed = [t for t in run_.tests.values() if t.nodeid.startswith(name) and t.outcome == "passed"]
            assert len(passed) >= 10, (name, run_.summary())
        # vLLM's tests did reach the function kv_group_size patches, many times
        assert sum(len(t.plans) for t in run_.tests.values()) >= 10
    # the pristine run planned with upstream's function, the patched one with kv_group_size's
    assert comparison.state == "applied"
    assert (pristine.patched_signature, patched.patched_signature) == (False, True)


@pytest.mark.real
def test_every_changed_outcome_is_listed_as_intended(comparison: Outcome) -> None:
    intended = load_intended(VERSION)
    got = {c.nodeid: c for c in comparison.changes}
    unlisted = sorted(set(got) - set(intended))
    stale = sorted(set(intended) - set(got))
    assert not unlisted and not stale, (
        f"outcomes changed that harness/vllm_own_tests_intended.json does not list: {unlisted}; "
        f"listed but unchanged: {stale}\n{comparison.report()}\nIf intended: {REGENERATE}"
    )
    for nodeid, change in got.items():
        assert change == intended[nodeid], (
            f"{nodeid} changed differently from what is listed:\n  now:    {change}\n  listed: {intended[nodeid]}\n"
            f"If intended: {REGENERATE}"
        )


@pytest.mark.real
def test_each_change_comes_from_a_different_plan(comparison: Outcome) -> None:
    """A changed outcome is explained by kv_group_size planning other groups in that test,
    with both group counts and blocks per request computed by vLLM -- not by a crash elsewhere."""
    for change in comparison.changes:
        assert change.plans, f"{change.nodeid}: {change.pristine} -> {change.patched} with no plan differing"
        for upstream, patched in change.plans:
            assert upstream.buckets == patched.buckets  # the same layout, planned differently
            assert upstream.blocks_per_request is not None and patched.blocks_per_request is not None
            assert (upstream.groups, upstream.group_size) != (patched.groups, patched.group_size)


# ------------------------------------------------------------ the comparison itself (fast tier)

UPSTREAM = Plan((("FullAttentionSpec", 3), ("SlidingWindowSpec", 7)), 4, 3, 7)
WIDER = Plan((("FullAttentionSpec", 3), ("SlidingWindowSpec", 7)), 10, 1, 17)


def _run(outcomes: dict[str, tuple[str, tuple[Plan, ...], tuple[Capacity, ...]]]) -> Run:
    tests = {n: CaseRecord(n, o, plans, caps) for n, (o, plans, caps) in outcomes.items()}
    return Run("python", VERSION, False, tests, ("tests/v1/core/test_x.py",), 1.0)


def test_compare_names_each_changed_outcome_with_the_plans_that_differ(tmp_path: Path) -> None:
    probe, real = Capacity(4, 1, 2), Capacity(4, 32, 73)
    pristine = _run(
        {
            "a": ("passed", (UPSTREAM, UPSTREAM), (probe, real)),
            "b": ("passed", (UPSTREAM,), ()),
            "c": ("failed", (), ()),
            "d": ("passed", (UPSTREAM,), ()),
        }
    )
    patched = _run(
        {
            "a": ("failed", (WIDER, WIDER), (Capacity(10, 1, 0), Capacity(10, 96, 90))),
            "b": ("passed", (WIDER,), ()),
            "c": ("failed", (), ()),
            "d": ("error", (UPSTREAM,), ()),
        }
    )
    changes = compare(pristine, patched)
    assert [c.nodeid for c in changes] == ["a", "d"]  # b planned differently and still passed
    (a, d) = changes
    assert a.plans == ((UPSTREAM, WIDER),)  # the same call twice: one pair
    assert a.capacities == ((probe, Capacity(10, 1, 0)), (real, Capacity(10, 96, 90)))
    assert (d.pristine, d.patched, d.plans) == ("passed", "error", ())
    # the intended file round-trips exactly what the real-tier test compares
    path = tmp_path / "intended.json"
    write_intended(VERSION, changes, pristine, patched, path)
    assert load_intended(VERSION, path) == {"a": a, "d": d}
    assert "size 3, 4 groups, 7 blocks/request" in render(VERSION, pristine, patched, changes)


def test_selection_takes_test_files_that_call_the_planner(tmp_path: Path) -> None:
    core = tmp_path / "tests" / "v1" / "core"
    core.mkdir(parents=True)
    (core / "test_planning.py").write_text("from vllm.v1.core.kv_cache_planning import get_kv_cache_groups\n")
    (core / "test_other.py").write_text("def test_x(): pass\n")
    (core / "helper_kv_cache_planning.py").write_text("import vllm.v1.core.kv_cache_planning\n")
    (tmp_path / "tests" / "test_root.py").write_text("get_kv_cache_groups\n")  # outside tests/v1
    assert select_test_files(tmp_path) == ["tests/v1/core/test_planning.py"]


def test_the_committed_intended_list_explains_every_entry() -> None:
    """Each listed change carries plans of the same layout that vLLM planned differently."""
    intended = load_intended(VERSION)
    for nodeid, change in intended.items():
        assert change.pristine != change.patched, nodeid
        assert change.plans, nodeid
        for upstream, patched in change.plans:
            assert upstream.buckets == patched.buckets, nodeid
            assert (upstream.groups, upstream.group_size) != (patched.groups, patched.group_size), nodeid
