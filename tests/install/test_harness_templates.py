"""harness/: the one recipe both provisioners build their template venvs by
(`vllm_cpu.provision_template`, `build_template_locked`; issue 22 folded vllm_engine.py's copy of it
into vllm_cpu.py's). On a temp cache, no network: a template is faked as its builder leaves it (the
marker written last, naming a complete deps venv; `bin/python`).

A complete template is returned unbuilt and takes no lock; any other state (absent, a build that died
before its marker, a marker without its interpreter, a marker naming a deps venv that is gone or
half-built, an unreadable marker) is discarded (said so where there was something, unless `tell` is
None) and built once, under the lock; built, it is not built again. Both CLIs' `provision` print the
template's python from their own cache paths. Both install their package into a template the same
way (`install_by_name`): by name, from a wheel directory alone, as a plain `pip install` records it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from harness import vllm_cpu, vllm_engine
from tests.lib import REPO
from tests.lib.generated import sample
from tests.lib.processes import run
from tests.lib.wheels import build_wheel


def _complete(venv: Path, deps: Path | None = None) -> None:
    """`venv` as a finished build leaves it; a template's marker names its (complete) deps venv."""
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    vllm_cpu.venv_python(venv).write_text("")
    info: dict[str, object] = {"version": "0"}
    if deps is not None:
        _complete(deps)
        info["deps"] = str(deps)
    vllm_cpu.mark_complete(venv, info)


def _state(venv: Path, deps: Path, state: str) -> None:
    """`venv` left in `state` by an earlier (dead or undone) build."""
    if state == "absent":
        return
    if state == "no-marker":  # a build killed before its last step
        (venv / "lib").mkdir(parents=True)
        (venv / "lib" / "half").write_text("x")
        return
    _complete(venv, deps)
    if state == "no-python":
        vllm_cpu.venv_python(venv).unlink()
    elif state == "deps-gone":
        vllm_cpu.remove_tree(deps)
    elif state == "deps-half":
        (deps / vllm_cpu.MARKER).unlink()
    elif state == "bad-marker":
        (venv / vllm_cpu.MARKER).write_text("{not json")


STATES = ("absent", "no-marker", "no-python", "deps-gone", "deps-half", "bad-marker")


def _builder(venv: Path, deps: Path, seen: list[list[str]]) -> Callable[[], None]:
    """A build that records what it found at `venv` (its parent must exist) and completes it."""

    def build() -> None:
        assert venv.parent.is_dir()
        seen.append(sorted(p.name for p in venv.rglob("*")) if venv.exists() else ["(absent)"])
        _complete(venv, deps)

    return build


@pytest.mark.parametrize(("state", "quiet"), sample([(s, q) for s in STATES for q in (False, True)]))
def test_an_unfinished_template_is_discarded_and_built_once(tmp_path: Path, state: str, quiet: bool) -> None:
    venv, deps, lock = tmp_path / "releases" / "v-py", tmp_path / "deps" / "k", tmp_path / "locks" / "v.lock"
    _state(venv, deps, state)
    existed = venv.exists()
    seen: list[list[str]] = []
    told: list[str] = []
    tell = None if quiet else told.append
    python = vllm_cpu.provision_template(venv, lock, _builder(venv, deps, seen), tell)
    assert python == vllm_cpu.venv_python(venv) and python.exists()
    assert seen == [["(absent)"]], seen  # built once, on nothing the dead build left
    assert lock.exists()  # built under the lock
    assert told == ([f"discarding incomplete {venv}"] if existed and not quiet else []), told
    assert vllm_cpu.template_ok(venv)
    assert vllm_cpu.provision_template(venv, lock, _builder(venv, deps, seen), tell) == python
    assert len(seen) == 1, seen  # built, it is not built again


def test_a_complete_template_is_neither_built_nor_locked(tmp_path: Path) -> None:
    venv, deps, lock = tmp_path / "releases" / "v-py", tmp_path / "deps" / "k", tmp_path / "locks" / "v.lock"
    _complete(venv, deps)
    seen: list[list[str]] = []
    assert vllm_cpu.provision_template(venv, lock, _builder(venv, deps, seen)) == vllm_cpu.venv_python(venv)
    assert seen == [] and not lock.exists()


def test_a_template_another_process_finished_is_not_built_again_under_the_lock(tmp_path: Path) -> None:
    """The check repeated once the lock is held: the builder that waited finds it done."""
    venv, deps = tmp_path / "releases" / "v-py", tmp_path / "deps" / "k"
    _complete(venv, deps)
    seen: list[list[str]] = []
    vllm_cpu.build_template_locked(venv, _builder(venv, deps, seen))
    assert seen == [] and vllm_cpu.template_ok(venv)


def _complete_templates(cache: Path) -> tuple[Path, Path]:
    """The release template (vllm_cpu.py) and the engine template (vllm_engine.py) complete in `cache`."""
    cache = cache.resolve()  # as cache_root() gives it
    release = vllm_cpu.template_dir(cache, "0.33.0")
    engine = vllm_engine.template_dir(cache, "0.32.0")
    _complete(release, cache / "deps" / "k")
    _complete(engine, vllm_engine.deps_dir(cache, "0.32.0"))
    return vllm_cpu.venv_python(release), vllm_cpu.venv_python(engine)


def test_both_provisioners_return_their_complete_templates(tmp_path: Path) -> None:
    release, engine = _complete_templates(tmp_path)
    assert vllm_cpu.provision("0.33.0", cache=tmp_path) == release
    assert vllm_engine.provision("0.32.0", cache=tmp_path) == engine
    assert not (tmp_path / "locks").exists()


def test_both_clis_print_the_template_python(tmp_path: Path) -> None:
    release, engine = _complete_templates(tmp_path)
    cpu = run(sys.executable, REPO / "harness" / "vllm_cpu.py", "--cache", tmp_path, "provision", "0.33.0")
    assert cpu.stdout == f"{release}\n" and cpu.stderr == "", cpu
    eng = run(sys.executable, REPO / "harness" / "vllm_engine.py", "--cache", tmp_path, "provision", "0.32.0")
    assert eng.stdout == f"{engine}\n" and eng.stderr == "", eng


@pytest.mark.wheel
def test_a_template_gets_its_package_by_name_as_pip_install_records_it(tmp_path: Path) -> None:
    wheels = build_wheel(tmp_path / "wheels", "rptemplate", "1.0.0", {"rptemplate/__init__.py": "X = 1\n"}).parent
    venv, log = tmp_path / "template", tmp_path / "pip.log"
    vllm_cpu.make_venv(venv, log, with_pip=False)
    deps = Path(sys.prefix)  # a venv with pip: this test run's
    vllm_cpu.install_by_name(deps, venv, wheels, "rptemplate==1.0.0", log)
    info = vllm_cpu.site_packages(venv) / "rptemplate-1.0.0.dist-info"
    assert (info / "INSTALLER").read_text() == "pip\n" and (info / "REQUESTED").exists()
    assert not (info / "direct_url.json").exists()  # by name, not by the wheel's path
    assert "install rptemplate==1.0.0" in log.read_text()
    assert run(vllm_cpu.venv_python(venv), "-c", "import rptemplate; print(rptemplate.X)").stdout == "1\n"
