"""Shared set-up for the benchmarks: radpatch as users run it (built into a wheel, pip-installed
non-editably into its own venv, next to matplotlib for the plots), and pristine vLLM copies from
the CPU harness (harness/vllm_cpu.py).

The venv is cached under ``$RADPATCH_BENCH_CACHE`` (default ``~/.cache/radpatch/bench``), keyed by
the wheel's RECORD (the sha256 of every file the wheel ships), so a changed checkout gets a new
venv and an unchanged one reuses it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness import vllm_cpu  # noqa: E402

BENCH_EXTRAS = ("matplotlib>=3.8",)


def say(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def bench_cache() -> Path:
    env = os.environ.get("RADPATCH_BENCH_CACHE")
    root = Path(env) if env else Path.home() / ".cache" / "radpatch" / "bench"
    root.mkdir(parents=True, exist_ok=True)
    return root


def run(argv: list[str | Path], **kw: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise SystemExit(
            f"bench: {' '.join(map(str, argv))} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
    return done  # type: ignore[no-any-return]


def build_wheel(dest: Path, src: Path = REPO) -> Path:
    """radpatch's wheel from this checkout (or another source tree of it: `pip wheel --no-deps`),
    as a user would get it."""
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check", "-w", dest, src])
    (wheel,) = dest.glob("radpatch-*.whl")
    return wheel


def wheel_key(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as zf:
        record = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
        return hashlib.sha256(zf.read(record)).hexdigest()[:16]


def radpatch_venv(src: Path = REPO) -> tuple[Path, Path]:
    """(venv, wheel): a venv with radpatch's wheel (built from `src`) installed (non-editable)
    + matplotlib; the wheel itself is kept in <venv>/dist/ for installing it elsewhere."""
    with tempfile.TemporaryDirectory(prefix="radpatch-wheel-") as tmp:
        built = build_wheel(Path(tmp), src)
        venv = bench_cache() / f"venv-{wheel_key(built)}"
        wheel = venv / "dist" / built.name
        marker = venv / ".bench-complete"
        if marker.is_file() and wheel.is_file():
            return venv, wheel
        if venv.exists():
            shutil.rmtree(venv)
        say(f"installing {built.name} (non-editable) and {', '.join(BENCH_EXTRAS)} into {venv}")
        run([sys.executable, "-m", "venv", venv])
        wheel.parent.mkdir()
        shutil.copy2(built, wheel)
        py = venv / "bin" / "python"
        run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel, *BENCH_EXTRAS])
        marker.write_text(json.dumps({"wheel": wheel.name, "built": time.time()}) + "\n")
        return venv, wheel


def checkout_revision() -> str:
    """The checkout the wheel was built from: short HEAD, and whether it had local changes."""
    try:
        head = run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]).stdout.strip()
        dirty = run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"]).stdout
    except SystemExit:
        return "unknown"
    return head + (" + uncommitted changes" if dirty.strip() else "")


def fresh_vllm(version: str) -> Path:
    """The python of a new pristine copy of vLLM `version` (the caller removes it)."""
    return Path(vllm_cpu.fresh(version))


def remove_copy(python: Path) -> None:
    venv = python.parent.parent
    root = vllm_cpu.cache_root() / "fresh"
    if root in venv.parents:
        shutil.rmtree(venv, ignore_errors=True)
