"""Issue 6.7 — editable installs: the target really installed with `pip install -e` (files outside
site-packages). radpatch refuses with a clear message and writes nothing, anywhere.

The editable build needs hatchling and editables as wheels, downloaded from the index once.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.lib.installed import (
    DEMO_DIST,
    DEMO_FILES,
    DEMO_PATCH,
    DEMO_TARGETS,
    DEMO_VERSION,
    Demo,
    Env,
    build_backend_wheels,
)
from tests.lib.venvs import make_venv, pip

pytestmark = pytest.mark.network  # build_backend_wheels: hatchling, editables from the index


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and p.relative_to(root).as_posix() != ".radpatch/lock"
    }


@pytest.fixture(scope="module")
def editable(demo: Demo, tmp_path_factory: pytest.TempPathFactory) -> tuple[Env, Path]:
    base = tmp_path_factory.mktemp("editable")
    proj = base / "proj"
    for rel, text in DEMO_FILES.items():
        (proj / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / "src" / rel).write_text(text)
    (proj / "pyproject.toml").write_text(
        textwrap.dedent(f"""\
        [build-system]
        requires = ["hatchling"]
        build-backend = "hatchling.build"

        [project]
        name = "{DEMO_DIST}"
        version = "{DEMO_VERSION}"

        [tool.hatch.build.targets.wheel]
        packages = ["src/rphard_demo"]
        """)
    )
    python = make_venv(base / "venv")
    pip(python, "install", "--no-deps", "--no-index", "--find-links", str(build_backend_wheels()), "-e", str(proj))
    env = Env(
        base / "venv", DEMO_PATCH, DEMO_TARGETS, {r: DEMO_FILES[r].encode() for r in DEMO_TARGETS}, {}, (demo.registry,)
    )
    assert not env.path(DEMO_TARGETS[0]).exists(), "test setup: the module must live outside site-packages"
    probe = env.run("--version")
    assert probe.returncode == 0
    return env, proj


@pytest.mark.parametrize(
    "args", [["apply", DEMO_PATCH], ["apply", DEMO_PATCH, "--dry-run"], ["revert", DEMO_PATCH], ["diff", DEMO_PATCH]]
)
def test_editable_install_is_refused(editable: tuple[Env, Path], args: list[str]) -> None:
    env, proj = editable
    project_before, site_before = _tree(proj), _tree(env.site)
    out = env.run(*args)
    assert out.returncode in (1, 4), (
        f"`radpatch {' '.join(args)}` on an editable install: exit {out.returncode}\n{out.stdout}{out.stderr}"
    )
    first = out.stderr.strip().splitlines()[0] if out.stderr.strip() else ""
    assert first.startswith("radpatch: error:") and "editable" in first, f"no clear message:\n{out.stderr}"
    assert "pip install -e" in out.stderr or "editable install" in out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
    assert _tree(proj) == project_before, "radpatch wrote into the project tree of an editable install"
    assert _tree(env.site) == site_before, "radpatch wrote into site-packages"
    assert not (env.site / ".radpatch" / "record.json").exists()
    assert not list(proj.rglob("*.radpatch-tmp"))


def test_editable_install_status_does_not_crash(editable: tuple[Env, Path]) -> None:
    env, proj = editable
    before = _tree(proj)
    out = env.run("status", DEMO_PATCH)
    assert out.returncode in (0, 1, 4), out.stderr
    assert "internal error" not in out.stderr and "Traceback" not in out.stderr
    assert "applied" not in out.stdout.replace("not-applied", ""), (
        f"status claims the editable install is patched: {out.stdout}"
    )
    assert _tree(proj) == before
