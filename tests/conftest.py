"""Fixtures shared by every test, and the tiers.

A test asks for what it needs by fixture; the fixture names the need as a marker (NEEDS below).
Tests that need real parts get `real`, the second tier: a wheel built and pip-installed into a
temp venv, real vLLM code (a release, its wheels, or its modules in tests/fixtures/vllm), the
package index, other CPython versions as targets (a process per case), root, strace, or
radpatch processes killed, raced or reinstalled.
tools/test.sh runs `-m "not real"` (in-process, seconds per file) under every interpreter and
`-m real` once.
The helpers behind the fixtures live in tests/lib/."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.lib import REPO
from tests.lib.generated import REST_ENV, SAMPLE_ENV, SLICE_ENV, sample_every, split
from tests.lib.installed import Demo, Env, Vllm, make_demo, make_vllm
from tests.lib.processes import run
from tests.lib.real_share import SHARE_ENV, in_share, real_share
from tests.lib.registry import write_entry
from tests.lib.site import Site
from tests.lib.tier import running
from tests.lib.toy import TOY_FILES, TOY_PATCH
from tests.lib.venvs import Venv, pip
from tests.lib.vllm_release import VllmEnv
from tests.lib.wheels import build_project

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# Collection writes bytecode caches even under PYTHONDONTWRITEBYTECODE: pytest's rewritten test
# modules (without a cache each run and each xdist worker rewrote all of them, about 9 CPU-seconds)
# and the modules they import (radpatch's, which the radpatch processes tests start then read).
# Only into __pycache__ beside the sources (.gitignore), or under PYTHONPYCACHEPREFIX (tools/test.sh's
# fast tier sets it), only while collecting: the tests' own imports, of fake site-packages under
# tmp_path, run with the caller's setting (restored below).
_DONT_WRITE_BYTECODE = sys.dont_write_bytecode
sys.dont_write_bytecode = False


def pytest_collection_finish() -> None:
    sys.dont_write_bytecode = _DONT_WRITE_BYTECODE


# fixture -> the markers a test using it gets: what it needs
NEEDS: dict[str, tuple[str, ...]] = {
    "radpatch_wheel": ("wheel",),
    "radpatch_cmd": ("wheel", "network"),  # pip installs radpatch's dependencies from the index
    "rpdemo_template": ("wheel",),
    "demo": ("wheel", "processes"),
    "vllm_install": ("wheel", "network", "vllm"),
    "vllm_env": ("vllm",),
}
# a test with one of these markers is in the second tier
SECOND_TIER = frozenset({"wheel", "network", "vllm", "interpreters", "root", "strace", "processes"})


def pytest_report_header() -> list[str]:
    share = real_share()
    if share is None:
        return [_families()]
    return [f"real tier: share {share[1]} of {share[0]} ({SHARE_ENV}; unset it for every real test)", _families()]


def _families() -> str:
    plan = split()
    if plan is not None:
        every, turns, rest = plan
        if rest:
            return f"generated families: the cases at none of turns {sorted(turns)} of {every} ({REST_ENV})"
        return f"generated families: exactly 1 case in {every}, turn {min(turns)} ({SLICE_ENV})"
    every = sample_every()
    if every == 1:
        return f"generated families: every case ({SAMPLE_ENV} unset)"
    return f"generated families: a sample, about 1 case in {every} ({SAMPLE_ENV}={every}; unset it for every case)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    share = real_share()
    left: list[pytest.Item] = []
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        for fixture, markers in NEEDS.items():
            if fixture in fixtures:
                for marker in markers:
                    item.add_marker(marker)
        if SECOND_TIER & {m.name for m in item.iter_markers()}:
            item.add_marker(pytest.mark.real)
            if share is not None and not in_share(item.nodeid, share):
                left.append(item)
    if left:  # the real tier's other shares (tests/lib/real_share.py)
        config.hook.pytest_deselected(items=left)
        gone = set(left)
        items[:] = [i for i in items if i not in gone]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """The running test, for the helpers that check its tier (tests/lib/tier.py)."""
    with running(item):
        yield


@pytest.fixture(autouse=True)
def _no_ambient_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registries come only from what a test passes, never from the caller's environment."""
    monkeypatch.delenv("RADPATCH_REGISTRY", raising=False)


# --- a fake site-packages, radpatch's code in this process ------------------------------------------


@pytest.fixture
def site(tmp_path: Path) -> Site:
    root = tmp_path / "site-packages"
    root.mkdir()
    return Site(root)


@pytest.fixture
def write_registry(tmp_path: Path) -> Callable[..., Path]:
    """write_registry(name, yaml, payloads={relpath: source}, dirname='registry') -> the registry dir
    (under tmp_path; the YAML and payloads dedented)."""

    def write(name: str, text: str, payloads: dict[str, str] | None = None, dirname: str = "registry") -> Path:
        return write_entry(tmp_path / dirname, name, text, payloads).parent

    return write


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def radpatch(site: Site, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """radpatch(*argv) -> Result, through cli.main (the real error handler) on `site` as radpatch's own env."""
    from radpatch.cli import main

    monkeypatch.syspath_prepend(str(site.root))

    def run(*argv: str) -> Result:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def toy(site: Site, write_registry: Callable[..., Path]) -> Path:
    """toypkg 1.0 installed in `site`; returns the registry dir holding the two-file patch `toy`."""
    site.install("toypkg", "1.0", TOY_FILES)
    return write_registry("toy", TOY_PATCH)


# --- radpatch's own wheel ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def radpatch_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """radpatch's own wheel, built from this checkout (so the registry and payloads it ships are real)."""
    return build_project(REPO, tmp_path_factory.mktemp("radpatch-wheel"))


@pytest.fixture(scope="session")
def radpatch_cmd(radpatch_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `radpatch` console script of a venv where the wheel was pip-installed with its deps."""
    venv = tmp_path_factory.mktemp("radpatch-venv")
    run(sys.executable, "-m", "venv", venv)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", radpatch_wheel)
    return venv / "bin" / "radpatch"


# --- rpdemo (tests/fixtures/rpdemo): a project built by its backend, pip-installed into a venv ------


def _rpdemo_project(dest: Path) -> Path:
    """Copy the fixture project; build it with hatchling if present here, else with setuptools."""
    import importlib.util

    project = dest / "rpdemo"
    shutil.copytree(FIXTURES / "rpdemo", project)
    if importlib.util.find_spec("hatchling") is None and importlib.util.find_spec("setuptools") is not None:
        toml = project / "pyproject.toml"
        text = toml.read_text().replace('requires = ["hatchling"]', 'requires = ["setuptools>=61"]')
        text = text.replace('build-backend = "hatchling.build"', 'build-backend = "setuptools.build_meta"')
        toml.write_text(text.replace("[tool.hatch.build.targets.wheel]", "[tool.setuptools]"))
    return project


@pytest.fixture(scope="session")
def rpdemo_template(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """rpdemo 1.0.0 built as a wheel and pip-installed into a venv, once per session; never patched."""
    base = tmp_path_factory.mktemp("rpdemo-build")
    (base / "dist").mkdir()
    wheel = build_project(_rpdemo_project(base), base / "dist")
    assert wheel.name.startswith("rpdemo-1.0.0-"), wheel
    venv = Venv(base / "venv")
    run(sys.executable, "-m", "venv", "--without-pip", venv.root)
    pip(venv.python, "install", "--no-deps", "--no-index", "--quiet", str(wheel))
    assert (venv.site / "rpdemo-1.0.0.dist-info" / "RECORD").is_file()
    return venv


@pytest.fixture
def rpdemo_venv_copy(rpdemo_template: Venv) -> Callable[[Path], Venv]:
    """rpdemo_venv_copy(dest) -> a private copy of the venv with rpdemo 1.0.0 installed from its wheel.
    (A venv without pip is a few files; a copy works because its python finds pyvenv.cfg beside itself.)"""

    def copy(dest: Path) -> Venv:
        shutil.copytree(rpdemo_template.root, dest, symlinks=True)
        return Venv(dest)

    return copy


@pytest.fixture
def rpdemo_venv(rpdemo_venv_copy: Callable[[Path], Venv], tmp_path: Path) -> Venv:
    return rpdemo_venv_copy(tmp_path / "venv")


@pytest.fixture
def rpdemo_registry(tmp_path: Path) -> Path:
    """The registry holding rpdemo_tune (a copy: registry paths appear in messages only)."""
    return Path(shutil.copytree(FIXTURES / "rpdemo_registry", tmp_path / "registry"))


@pytest.fixture
def rpdemo_future_registry(tmp_path: Path) -> Path:
    """The same patch as rpdemo_future, supported only from rpdemo 2.0."""
    return Path(shutil.copytree(FIXTURES / "rpdemo_registry_future", tmp_path / "future"))


# --- the demo and vLLM 0.33.0 targets, pip-installed from real wheels (tests/lib/installed.py) ------


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return make_demo(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def demo_env(demo: Demo, tmp_path: Path) -> Env:
    return demo.fresh(tmp_path / "venv")


@pytest.fixture(scope="session")
def vllm_install(tmp_path_factory: pytest.TempPathFactory) -> Vllm:
    return make_vllm(tmp_path_factory.mktemp("vllm-scratch") / "venv")


@pytest.fixture
def vllm_install_env(vllm_install: Vllm, tmp_path: Path) -> Env:
    return vllm_install.fresh(tmp_path / "venv")


# --- provisioned CPU vLLM releases (harness/vllm_cpu.py), radpatch installed from its wheel ---------


@pytest.fixture
def vllm_env(radpatch_cmd: Path, tmp_path: Path) -> Callable[[str], VllmEnv]:
    """vllm_env("0.33.0") -> a fresh copy of that release, radpatch aimed at it."""
    from harness import vllm_cpu

    def make(version: str) -> VllmEnv:
        python = vllm_cpu.fresh(version, dest=tmp_path / f"vllm-{version}")
        cwd = tmp_path / "elsewhere"
        cwd.mkdir(exist_ok=True)
        return VllmEnv(version, Path(python), radpatch_cmd, cwd)

    return make


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """pip's settings point at an index nothing listens on: any index request fails at once."""
    for var in [v for v in os.environ if v.startswith("PIP_")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple/")
    monkeypatch.setenv("RADPATCH_CACHE", str(tmp_path / "cache"))
