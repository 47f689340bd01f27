"""Issue 6.7 — editable installs: the target really installed with `pip install -e` (files outside
site-packages). radpatch refuses with a clear message and writes nothing, anywhere: apply, revert,
diff, and (att49 #5) import and capture, which said "can't find file to patch" and "nothing to
capture". Built by hatchling both ways it installs editably: a .pth line naming the source tree, and
(dev-mode-exact) the `editables` import hook.

The editable build needs hatchling and editables as wheels, downloaded from the index once.
"""

from __future__ import annotations

import subprocess
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


def _install(demo: Demo, base: Path, mode: str) -> tuple[Env, Path, str]:
    """The demo package installed editably by hatchling: `pth` (a .pth line naming the source tree),
    `exact` (the editables import hook), `renamed` (a .pth, the project named other than its package,
    no top_level.txt)."""
    exact = "dev-mode-exact = true" if mode == "exact" else ""
    project = "rpother-name" if mode == "renamed" else DEMO_DIST
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
        name = "{project}"
        version = "{DEMO_VERSION}"

        [tool.hatch.build.targets.wheel]
        packages = ["src/rphard_demo"]

        [tool.hatch.build]
        {exact}
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
    return env, proj, project


@pytest.fixture(scope="module", params=["pth", "exact"])
def editable(demo: Demo, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> tuple[Env, Path]:
    env, proj, _ = _install(demo, tmp_path_factory.mktemp("editable"), request.param)
    return env, proj


@pytest.fixture(scope="module", params=["pth", "exact", "renamed"])
def any_editable(
    demo: Demo, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> tuple[Env, Path, str]:
    return _install(demo, tmp_path_factory.mktemp("editable"), request.param)


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


def _refused_and_nothing_written(env: Env, proj: Path, tmp: Path, *args: str) -> str:
    project_before, site_before = _tree(proj), _tree(env.site)
    out = env.run(*args)
    assert out.returncode in (1, 4), f"`radpatch {' '.join(args)}`: exit {out.returncode}\n{out.stdout}{out.stderr}"
    lines = out.stderr.strip().splitlines()
    assert lines and lines[0].startswith("radpatch: error:") and "editable install" in lines[0], out.stderr
    assert len(lines) <= 2 and "Traceback" not in out.stderr
    assert _tree(proj) == project_before and _tree(env.site) == site_before
    assert not (tmp / "out").exists()
    return lines[0]


def test_import_of_a_patch_to_an_editable_module_is_refused_as_apply_is(
    any_editable: tuple[Env, Path, str], tmp_path: Path
) -> None:
    env, proj, _ = any_editable
    rel = DEMO_TARGETS[0]
    source = proj / "src" / rel
    for side, text in (("a", source.read_text()), ("b", source.read_text() + "EXTRA = 1\n")):
        (tmp_path / side / rel).parent.mkdir(parents=True)
        (tmp_path / side / rel).write_text(text)
    diff = subprocess.run(["diff", "-u", f"a/{rel}", f"b/{rel}"], cwd=tmp_path, capture_output=True, check=False)
    (tmp_path / "p.patch").write_bytes(diff.stdout)
    first = _refused_and_nothing_written(
        env, proj, tmp_path, "import", "-p1", "--out", str(tmp_path / "out"), str(tmp_path / "p.patch")
    )
    assert str(source.resolve()) in first or str(source) in first, first


@pytest.mark.parametrize("given", ["distribution", "module", "source path", "no such module"])
def test_capture_of_an_edited_editable_module_is_refused_as_apply_is(
    any_editable: tuple[Env, Path, str], tmp_path: Path, given: str
) -> None:
    env, proj, project = any_editable
    rel = DEMO_TARGETS[0]
    source = proj / "src" / rel
    pristine = source.read_text()
    source.write_text(pristine + "EXTRA = 1\n")  # edited where the code is: the source tree
    try:
        arg = {
            "distribution": ["--distribution", project],
            "module": [rel[: -len(".py")].replace("/", ".")],
            "source path": [str(source)],
            "no such module": ["rphard_demo.no_such_module"],
        }[given]
        if given == "no such module":  # not the editable install's to refuse: it has no such file (att50 #7)
            out = env.run("capture", "cap", "--out", str(tmp_path / "out"), *arg)
            assert out.returncode == 2 and "no such file or module" in out.stderr, out.stderr
            return
        _refused_and_nothing_written(env, proj, tmp_path, "capture", "cap", "--out", str(tmp_path / "out"), *arg)
    finally:
        source.write_text(pristine)
