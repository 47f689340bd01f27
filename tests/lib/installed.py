"""Targets pip-installed from real wheels into real venvs, with radpatch run as its own process.

Two kinds of target environment, both real venvs in which `pip` installed a wheel (real
dist-info, RECORD written by pip), and radpatch always run as its own process
(`python -m radpatch --python <venv>/bin/python ...`):

* Demo (fixtures `demo`, `demo_env`): a small 2-module distribution `rphard-demo` (wheel built by
  tests/lib/wheels.py) patched by the 2-file test patch `rphard` (registry written here). Seconds.
* Vllm (fixtures `vllm_install`, `vllm_install_env`; tests needing them are `vllm`): vLLM 0.33.0's
  wheel, fetched from the package index with `pip download --no-deps` into the harness's wheel
  cache (~/.cache/radpatch/harness/wheels/, shared with harness/vllm_cpu.py, reused by later runs)
  and installed with `pip install --no-deps` into a template venv (cached in
  ~/.cache/radpatch/hardening/venvs/); each test gets a hard-linked copy (~0.3 s) whose
  editable files (vllm/v1/core/*.py, dist-info) are real copies. radpatch writes with temp +
  os.replace, pip replaces files, so nothing writes through a link into the template; the
  template's target file is still checked against RECORD before every copy.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness import vllm_cpu
from tests.lib.processes import clean_env
from tests.lib.registry import write_entry
from tests.lib.site import recorded_sha256
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import build_wheel, download_wheel

CACHE = Path(os.environ.get("RADPATCH_HARDENING_CACHE", Path.home() / ".cache" / "radpatch" / "hardening"))
RADPATCH = [sys.executable, "-m", "radpatch"]
PYVER = f"py{sys.version_info[0]}{sys.version_info[1]}"
VLLM_VERSION = "0.33.0"
VLLM_TARGET = "vllm/v1/core/kv_cache_planning.py"

# setpriv prefix: run as `nobody`, with CAP_DAC_READ_SEARCH only so that it can read (not write)
# the interpreter and sources under /root; everything else is an ordinary unprivileged user.
AS_NOBODY = [
    "setpriv",
    "--reuid=nobody",
    "--regid=nogroup",
    "--clear-groups",
    "--inh-caps=+dac_read_search",
    "--ambient-caps=+dac_read_search",
]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- the 2-file demo distribution -----------------------------------------------------------------

DEMO_DIST = "rphard-demo"
DEMO_VERSION = "1.0.0"
DEMO_PATCH = "rphard"
DEMO_FILES = {
    "rphard_demo/__init__.py": '"""rphard demo distribution."""\n',
    "rphard_demo/alpha.py": textwrap.dedent('''\
        """First module of the 2-file test patch."""
        import os


        def compute(x):
            # an upstream comment
            y = x + 1
            if os.environ.get("RPHARD_VERBOSE"):
                print(y)
            return y


        def caller():
            return compute(2)
        '''),
    "rphard_demo/sub/__init__.py": "",
    "rphard_demo/sub/beta.py": textwrap.dedent('''\
        """Second module of the 2-file test patch."""


        def limit(n):
            cap = 10
            return min(n, cap)
        '''),
}
DEMO_TARGETS = ("rphard_demo/alpha.py", "rphard_demo/sub/beta.py")  # in the order radpatch writes them
DEMO_REGISTRY = textwrap.dedent("""\
    summary: Two-file test patch for the hardening tests
    description: |
      Doubles alpha.compute's intermediate value and raises beta.limit's cap.
    distribution: rphard-demo
    supported: ">=1.0,<2"
    modules:
      alpha: rphard_demo.alpha
      beta: rphard_demo.sub.beta
    rewrites:
      - id: alpha-helper
        file: alpha
        insert_definitions:
          payload: rphard_payload.py
          before: compute
      - id: alpha-double
        file: alpha
        insert_after:
          scope: compute
          find: y = x + 1
          code: y = _rphard_double(y)
      - id: beta-cap
        file: beta
        replace:
          scope: limit
          find: cap = 10
          with: cap = 20
    """)
DEMO_PAYLOAD = textwrap.dedent('''\
    def _rphard_double(v):
        """Injected by the rphard test patch."""
        return v * 2
    ''')


# --- an environment under test --------------------------------------------------------------------


@dataclass
class Env:
    """A real venv with a real install of the target, and the patch radpatch applies to it."""

    venv: Path
    patch: str
    targets: tuple[str, ...]  # relpaths under site-packages, in the order radpatch writes them
    original: dict[str, bytes]  # relpath -> pristine bytes (as pip installed them)
    patched: dict[str, bytes] = field(default_factory=dict)  # relpath -> bytes after one `apply`
    registries: tuple[Path, ...] = ()

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def site(self) -> Path:
        return site_packages(self.venv)

    @property
    def state_dir(self) -> Path:
        return self.site / ".radpatch"

    def path(self, rel: str) -> Path:
        return self.site / rel

    def cmd(self, *args: str) -> list[str]:
        reg: list[str] = []
        for r in self.registries:
            reg += ["--registry", str(r)]
        return [*RADPATCH, "--python", str(self.python), *reg, *args]

    def run(
        self, *args: str, fault: str | None = None, timeout: float = 300, prefix: Sequence[str] = (), **env: str
    ) -> subprocess.CompletedProcess[str]:
        extra = dict(env)
        if fault:
            extra["RADPATCH_FAULT"] = fault
        return subprocess.run(
            [*prefix, *self.cmd(*args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=clean_env(**extra),
            cwd="/",
        )

    def popen(self, *args: str, fault: str | None = None, prefix: Sequence[str] = ()) -> subprocess.Popen[str]:
        extra = {"RADPATCH_FAULT": fault} if fault else {}
        return subprocess.Popen(
            [*prefix, *self.cmd(*args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=clean_env(**extra),
            cwd="/",
            start_new_session=True,
        )

    # --- observations ---
    def read(self) -> dict[str, bytes]:
        return {rel: self.path(rel).read_bytes() for rel in self.targets}

    def forms(self) -> dict[str, str]:
        """relpath -> 'original' | 'patched' | 'OTHER' (the latter is never allowed)."""
        out = {}
        for rel, data in self.read().items():
            out[rel] = (
                "original" if data == self.original[rel] else "patched" if data == self.patched.get(rel) else "OTHER"
            )
        return out

    def record(self) -> dict[str, object]:
        try:
            data: dict[str, object] = json.loads((self.state_dir / "record.json").read_text()).get("patches", {})
            return data
        except FileNotFoundError:
            return {}

    def status(self, *names: str) -> dict[str, object]:
        out = self.run("status", "--json", *(names or (self.patch,)))
        assert out.returncode == 0, f"status failed ({out.returncode}): {out.stderr}"
        states = json.loads(out.stdout)
        assert len(states) == 1, states
        state: dict[str, object] = states[0]
        return state

    def leftovers(self) -> list[str]:
        """Temp files and journals radpatch may leave: .*.radpatch-tmp anywhere, journal/journal.*."""
        found = [str(p) for p in self.venv.rglob("*.radpatch-tmp")]
        if self.state_dir.is_dir():
            found += [str(p) for p in self.state_dir.iterdir() if p.name == "journal" or p.name.startswith("journal.")]
        return sorted(found)

    def snapshot(self) -> dict[str, tuple[bytes | str, int]]:
        """Every file and link under the venv except radpatch's lock file: (bytes or link target, mode)."""
        out: dict[str, tuple[bytes | str, int]] = {}
        for p in sorted(self.venv.rglob("*")):
            rel = str(p.relative_to(self.venv))
            if p.is_symlink():
                out[rel] = (os.readlink(p), 0)
            elif p.is_file() and p.name != "lock":
                st = p.stat()
                out[rel] = (p.read_bytes(), st.st_mode)
        return out


def add_registry(env: Env, tmp: Path, name: str, text: str, payloads: dict[str, str] | None = None) -> None:
    """A registry of its own (`tmp`/registry-`name`) holding entry `name` (`text` and `payloads`
    dedented), added to the ones `env`'s runs load."""
    d = tmp / f"registry-{name}"
    assert not d.exists(), d
    write_entry(d, name, textwrap.dedent(text), payloads, dedent=False)
    env.registries = (*env.registries, d)


def alpha_entry(kind: str, scope: str, find: str, code: str) -> str:
    """A one-rewrite entry on the demo's alpha module: `kind` (insert_after, insert_before...) at
    `find` in `scope`, inserting `code`."""
    return textwrap.dedent(f"""\
        summary: s
        description: d
        distribution: {DEMO_DIST}
        supported: ">=1.0,<2"
        modules:
          m: rphard_demo.alpha
        rewrites:
          - {kind}: {{scope: {scope}, find: "{find}", code: "{code}"}}
        """)


def beta_entry(rewrite: str, rewrite_id: str = "r") -> str:
    """An rphard-demo entry with one rewrite of rphard_demo/sub/beta.py: `rewrite`, its operation
    (one line of YAML, e.g. `replace: {scope: limit, find: "cap = 10", with: "cap = 11"}`)."""
    return (
        'summary: s\ndescription: d\ndistribution: rphard-demo\nsupported: ">=1.0,<2"\n'
        f"modules:\n  beta: rphard_demo.sub.beta\nrewrites:\n  - id: {rewrite_id}\n    file: beta\n    {rewrite}\n"
    )


def assert_forms_and_compile(env: Env) -> dict[str, str]:
    forms = env.forms()
    bad = {rel: f for rel, f in forms.items() if f == "OTHER"}
    assert not bad, f"target file(s) neither original nor patched: {bad}"
    for rel, data in env.read().items():
        compile(data, str(env.path(rel)), "exec", dont_inherit=True)
    return forms


@functools.cache
def _inproc(python: str, registries: tuple[str, ...], name: str):  # type: ignore[no-untyped-def]
    from radpatch.install.environment import python_env
    from radpatch.registry.catalog import Registry

    return python_env(python), Registry.discover(registries).load(name)


def inproc_status(env: Env) -> dict[str, object]:
    """What `radpatch status --json` prints, computed by radpatch's own code in this process (fast)."""
    from radpatch.commands.status import to_json
    from radpatch.prove.form import judge
    from radpatch.state.decide import patch_state

    penv, patch = _inproc(str(env.python), tuple(str(r) for r in env.registries), env.patch)
    return to_json(patch_state(patch, penv, judge))


def assert_status_consistent(env: Env, forms: dict[str, str] | None = None, cli: bool = True) -> dict[str, object]:
    """`radpatch status --json` (cli=False: the same, computed in-process) agrees with every file's bytes."""
    forms = forms or env.forms()
    st = env.status() if cli else inproc_status(env)
    files = {str(Path(f["path"])): f for f in st["files"]}  # type: ignore[index, union-attr]
    for rel, form in forms.items():
        f = files[str(env.path(rel))]
        assert f["sha256"] == sha256(env.path(rel).read_bytes()), (rel, f)
        want = "applied" if form == "patched" else "not-applied"
        assert f["state"] == want, f"status says {rel} is {f['state']}, the file is the {form} form: {st}"
    values = set(forms.values())
    if values == {"patched"}:
        assert st["state"] == "applied", st
    elif values == {"original"}:
        assert st["state"] == "not-applied", st
    else:
        assert st["state"] not in ("applied", "not-applied"), f"half-patched files reported as {st['state']}: {st}"
    return st


def assert_settled(env: Env, applied: bool, strict: bool = True, cli: bool = True) -> list[str]:
    """After a completed apply (applied=True) or revert: files, record, status, no journal.

    strict: also no temp file and no `journal.*` directory anywhere. Crash tests pass
    strict=False (the README promises nothing about litter a SIGKILLed run leaves) and get the
    litter back to report it.
    """
    want = env.patched if applied else env.original
    assert env.read() == {rel: want[rel] for rel in env.targets}, (
        f"files are not the {'patched' if applied else 'original'} form: {env.forms()}"
    )
    rec = env.record()
    if applied:
        assert list(rec) == [env.patch], rec
        entry = rec[env.patch]
        assert {f["path"]: f["patched_sha256"] for f in entry["files"]} == {
            rel: sha256(env.patched[rel]) for rel in env.targets
        }  # type: ignore[index]
    else:
        assert env.patch not in rec, rec
    st = assert_status_consistent(env, cli=cli)
    assert st["state"] == ("applied" if applied else "not-applied")
    assert not (env.state_dir / "journal").exists(), "the journal survived a completed run"
    left = env.leftovers()
    if strict:
        assert not left, f"leftovers after a completed run: {left}"
    return left


# --- the demo target --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Demo:
    wheel: Path
    registry: Path
    template: Path  # venv with rphard-demo installed by pip; never handed to radpatch
    original: dict[str, bytes]
    patched: dict[str, bytes]

    def fresh(self, dest: Path) -> Env:
        shutil.copytree(self.template, dest, symlinks=True)
        return Env(dest, DEMO_PATCH, DEMO_TARGETS, dict(self.original), dict(self.patched), (self.registry,))


def make_demo(base: Path) -> Demo:
    """Build the demo wheel and registry in `base`, pip-install the wheel into a template venv, and
    record what one real `radpatch apply` makes of it."""
    wheel = build_wheel(base / "wheels", DEMO_DIST, DEMO_VERSION, DEMO_FILES)
    registry = base / "registry"
    write_entry(registry, DEMO_PATCH, DEMO_REGISTRY, {"rphard_payload.py": DEMO_PAYLOAD}, dedent=False)
    template = base / "template"
    python = make_venv(template)
    pip(python, "install", "--no-deps", "--no-index", "--find-links", str(wheel.parent), f"{DEMO_DIST}=={DEMO_VERSION}")
    original = {rel: (site_packages(template) / rel).read_bytes() for rel in DEMO_TARGETS}
    assert original == {rel: DEMO_FILES[rel].encode() for rel in DEMO_TARGETS}
    # the single-run result: one real `radpatch apply` in a scratch copy
    scratch = Demo(wheel, registry, template, original, {}).fresh(base / "scratch")
    out = scratch.run("apply", DEMO_PATCH)
    assert out.returncode == 0, out.stderr
    patched = scratch.read()
    assert all(patched[r] != original[r] for r in DEMO_TARGETS)
    shutil.rmtree(scratch.venv)
    return Demo(wheel, registry, template, original, patched)


# --- the vLLM target --------------------------------------------------------------------------------


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def vllm_wheel_dir(version: str = VLLM_VERSION) -> Path:
    """The directory holding vllm==`version`'s wheel: the harness's wheel cache, where
    harness/vllm_cpu.py keeps the same `pip download --no-deps` result; downloaded once."""
    dest = vllm_cpu.cache_root() / "wheels" / version
    return download_wheel(f"vllm=={version}", dest, f"vllm-{version}-*.whl").parent


def build_backend_wheels() -> Path:
    """hatchling and its dependencies as wheels (`pip download`, once), so that a later
    `pip install -e` can build offline with --no-index --find-links."""
    final = CACHE / "build-wheels"
    with file_lock(CACHE / "locks" / "build-wheels.lock"):
        if (final / ".complete").exists():
            return final
        shutil.rmtree(final, ignore_errors=True)
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--disable-pip-version-check",
                "-d",
                str(final),
                "hatchling",
                "editables",
            ],
            capture_output=True,
            text=True,
            timeout=1800,
            env=clean_env(),
        )
        if out.returncode != 0:
            raise AssertionError(f"pip download hatchling failed:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
        (final / ".complete").write_text("")
        return final


def _vllm_recorded(site: Path, rel: str) -> str | None:
    """The sha256 vLLM's RECORD holds for `rel` (None: no dist-info or no such row)."""
    return next((d for rec in site.glob("vllm-*.dist-info/RECORD") if (d := recorded_sha256(rec, rel))), None)


def vllm_template(version: str = VLLM_VERSION) -> Path:
    """A venv holding only vllm (pip install --no-deps, by name), built once and cached."""
    venv = CACHE / "venvs" / f"vllm-{version}-{PYVER}"
    marker = venv / ".radpatch-hardening-complete"
    with file_lock(CACHE / "locks" / f"venv-{version}-{PYVER}.lock"):
        if marker.exists():
            site = site_packages(venv)
            if (
                _vllm_recorded(site, VLLM_TARGET) == sha256((site / VLLM_TARGET).read_bytes())
                and not (site / ".radpatch").exists()
            ):
                return venv
        wheels = vllm_wheel_dir(version)
        shutil.rmtree(venv, ignore_errors=True)
        python = make_venv(venv)
        pip(python, "install", "--no-deps", "--no-index", "--find-links", str(wheels), f"vllm=={version}")
        marker.write_text(json.dumps({"version": version, "built": time.time()}))
        return venv


def fresh_vllm_venv(template: Path, dest: Path) -> None:
    """Hard-linked copy of the template; files anything here may edit are real copies."""
    try:
        subprocess.run(["cp", "-al", str(template), str(dest)], check=True, capture_output=True)
    except subprocess.CalledProcessError:
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(template, dest, symlinks=True)
        return
    site = site_packages(dest)
    unlink_these = [
        *(site / "vllm" / "v1" / "core").glob("*.py"),
        *site.glob("vllm-*.dist-info/*"),
        *(site / "vllm" / "v1" / "core" / "__pycache__").glob("*.pyc"),
        dest / "pyvenv.cfg",
    ]
    for p in unlink_these:
        if p.is_file() and not p.is_symlink():
            data = p.read_bytes()
            mode = p.stat().st_mode
            p.unlink()
            p.write_bytes(data)
            os.chmod(p, mode & 0o7777)


@dataclass(frozen=True)
class Vllm:
    template: Path
    original: bytes
    patched: bytes

    def fresh(self, dest: Path) -> Env:
        fresh_vllm_venv(self.template, dest)
        return Env(dest, "kv_group_size", (VLLM_TARGET,), {VLLM_TARGET: self.original}, {VLLM_TARGET: self.patched})


def make_vllm(scratch_dir: Path) -> Vllm:
    """The vLLM template venv, and what one real `radpatch apply kv_group_size` makes of its target
    (applied in a scratch copy at `scratch_dir`, removed afterwards)."""
    template = vllm_template()
    original = (site_packages(template) / VLLM_TARGET).read_bytes()
    scratch = Vllm(template, original, b"").fresh(scratch_dir)
    out = scratch.run("apply", "kv_group_size")
    assert out.returncode == 0, out.stderr
    patched = scratch.path(VLLM_TARGET).read_bytes()
    assert patched != original
    shutil.rmtree(scratch_dir)
    return Vllm(template, original, patched)
