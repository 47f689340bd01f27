"""The import check on real target interpreters other than radpatch's own: a wheel built here,
pip-installed (from the file, --no-index: no network) into a Python 3.10 and a Python 3.12 venv,
and radpatch run as its own process with `--python <venv>`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import import_check
from radpatch.prove.plan import PlannedFile
from tests.lib.registry import entry_head, write_entry
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

PYTHONS = {
    "3.10": Path("/root/.pyenv/versions/3.10.13/bin/python"),
    "3.12": Path("/root/.pyenv/versions/3.12.1/bin/python"),
}
DIST, VERSION = "rpic-demo", "1.0.0"
CORE_REL = "rpic_demo/core.py"
FILES = {
    "rpic_demo/__init__.py": '"""rpic demo distribution."""\n',
    CORE_REL: textwrap.dedent("""\
        import os


        def limit(n):
            cap = int(os.environ.get("RPIC_CAP", "10"))
            return min(n, cap)
        """),
    "rpic_demo/optional.py": textwrap.dedent("""\
        import rpic_missing_accelerator


        def speed():
            return 1
        """),
}

ENTRY_HEAD = entry_head(
    "import check target test patch", "rpic-demo", {"core": "rpic_demo.core", "optional": "rpic_demo.optional"}
)
PATCHES = {
    "rpic_tomllib": ENTRY_HEAD
    + textwrap.dedent("""\
        - id: toml
          file: core
          add_import: {import: import tomllib}
        """),
    "rpic_self": ENTRY_HEAD
    + textwrap.dedent("""\
        - id: helper
          file: core
          insert_definitions: {payload: rpic_self_payload.py, before: limit}
        """),
    "rpic_optional": ENTRY_HEAD
    + textwrap.dedent("""\
        - id: faster
          file: optional
          replace: {scope: speed, find: return 1, with: return 2}
        """),
}
SELF_PAYLOAD = textwrap.dedent("""\
    from rpic_demo.core import limit as _upstream_limit


    def _rpic_twice(n):
        return _upstream_limit(n) * 2
    """)


def _run(*argv: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600, env=env)


@dataclass(frozen=True)
class Target:
    root: Path
    version: str

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def core(self) -> Path:
        return self.root / "lib" / f"python{self.version}" / "site-packages" / CORE_REL

    def snapshot(self) -> dict[str, bytes]:
        site = self.core.parents[1]
        return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Target]:
    """One venv per target interpreter with the wheel pip-installed (no pip inside: pip runs with --python)."""
    base = tmp_path_factory.mktemp("rpic")
    wheel = build_wheel(base, DIST, VERSION, FILES)
    out = {}
    for version, exe in PYTHONS.items():
        if not exe.is_file():
            pytest.skip(f"needs the Python {version} interpreter at {exe}")
        target = Target(base / f"venv{version}", version)
        made = _run(exe, "-m", "venv", "--without-pip", target.root)
        assert made.returncode == 0, made.stderr
        pip = (sys.executable, "-m", "pip", "--python", target.python, "--disable-pip-version-check")
        installed = _run(*pip, "install", "--no-deps", "--no-index", "--quiet", wheel)
        assert installed.returncode == 0, installed.stderr
        assert target.core.read_bytes() == FILES[CORE_REL].encode()
        out[version] = target
    return out


@pytest.fixture
def target(templates: dict[str, Target], tmp_path: Path, request: pytest.FixtureRequest) -> Target:
    """A private copy of the template venv of the version the test is parametrised with."""
    src = templates[request.param]
    dest = Target(tmp_path / "venv", src.version)
    shutil.copytree(src.root, dest.root, symlinks=True)
    return dest


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    reg = tmp_path / "registry"
    for name, text in PATCHES.items():
        write_entry(reg, name, text, {"rpic_self_payload.py": SELF_PAYLOAD} if name == "rpic_self" else None)
    return reg


def radpatch(target: Target, registry: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RADPATCH_") and k != "PYTHONPATH"}
    return _run(sys.executable, "-m", "radpatch", "--python", target.python, "--registry", registry, *argv, env=env)


@pytest.mark.parametrize("target", ["3.10"], indirect=True)
def test_import_tomllib_is_refused_on_a_310_target(target: Target, registry: Path) -> None:
    """The names proof asks the 3.10 target for its standard library and refuses before any import;
    the import check's own verdict on the same bytes is test_check_refuses_on_the_target_... below."""
    before = target.snapshot()
    r = radpatch(target, registry, "apply", "--import-check", "rpic_tomllib")
    assert r.returncode == 1, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith("radpatch: error: rpic_tomllib: rewrite 'toml' ("), first
    # " for Python 3.10" only when radpatch itself runs on another version than the target's
    said = r"would fail to import( for Python 3\.10)?: `tomllib` \(line 2, at module level\) is not a module of "
    assert re.search(said, first), first
    assert "Python 3.10's standard library, nor installed there (ModuleNotFoundError)" in first, first
    assert target.snapshot() == before  # nothing written: not the module, not a record, not bytecode


@pytest.mark.parametrize("target", ["3.12"], indirect=True)
def test_import_tomllib_passes_the_check_on_a_312_target(target: Target, registry: Path) -> None:
    """The control: the same patch, the same wheel; only the interpreter differs."""
    r = radpatch(target, registry, "apply", "--import-check", "rpic_tomllib")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        f"rpic_tomllib: import check: rpic_demo.core imports once patched ({target.python})",
        "rpic_tomllib: applied to rpic-demo 1.0.0 (rpic_demo.core)",
    ]
    ran = _run(target.python, "-c", "import rpic_demo.core as c; print(c.tomllib.__name__, c.limit(99))")
    assert ran.stdout == "tomllib 10\n", ran.stderr


@pytest.mark.parametrize("target", ["3.12"], indirect=True)
def test_a_self_import_is_refused_on_a_312_target(target: Target, registry: Path) -> None:
    """Refused by the names proof (judged by the 3.12 target) before any import."""
    before = target.snapshot()
    r = radpatch(target, registry, "apply", "--import-check", "rpic_self")
    assert r.returncode == 1, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith("radpatch: error: rpic_self: rewrite 'helper' ("), first
    # " for Python 3.12" only when radpatch itself runs on another version than the target's
    said = r"would fail to import( for Python 3\.12)?: `limit` \(line 2, at module level\) comes from the module "
    assert re.search(said, first), first
    assert "itself (`from rpic_demo.core import limit`)" in first, first
    assert target.snapshot() == before


@pytest.mark.parametrize("target", ["3.10", "3.12"], indirect=True)
def test_a_module_whose_pristine_import_fails_is_inconclusive(target: Target, registry: Path) -> None:
    r = radpatch(target, registry, "apply", "--import-check", "rpic_optional")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "rpic_optional: import check inconclusive for rpic_demo.optional: the unpatched module does not import "
        "either (ModuleNotFoundError: No module named 'rpic_missing_accelerator', raised at rpic_demo.optional "
        "line 1); not a refusal",
        "rpic_optional: applied to rpic-demo 1.0.0 (rpic_demo.optional)",
    ]
    assert b"return 2" in (target.core.parent / "optional.py").read_bytes()


@pytest.mark.parametrize(
    ("target", "added", "error"),
    [
        ("3.10", b"import tomllib\n", "ModuleNotFoundError: No module named 'tomllib'"),
        ("3.12", SELF_PAYLOAD.encode(), "ImportError: cannot import name 'limit' from partially initialized module"),
    ],
    indirect=["target"],
)
def test_check_refuses_on_the_target_whatever_the_other_proofs_say(target: Target, added: bytes, error: str) -> None:
    """check() itself, on the real venv, with the change made by hand: the verdict does not depend on
    whether an earlier proof step would have refused the patch first."""
    env = python_env(str(target.python))
    pristine = target.core.read_bytes()
    patched = pristine.replace(b"import os\n", b"import os\n" + added, 1)
    assert patched != pristine
    (verdict,) = import_check.check(
        env, [("by-hand", PlannedFile("rpic_demo.core", target.core, pristine, patched))], 300
    )
    assert verdict.result is import_check.Result.REFUSED, verdict
    assert verdict.reason.startswith(error) and verdict.reason.endswith("raised at rpic_demo.core line 2"), verdict
    assert target.core.read_bytes() == pristine
