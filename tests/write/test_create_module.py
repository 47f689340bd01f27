"""create_module: an entry creates a module the install does not have (its content a file beside
the entry), a later entry that requires it rewrites it, and revert takes both off in reverse order:
the created files, their bytecode and the directories radpatch made are gone again. On a wheel
pip-installed into a venv, radpatch run as its own process, and in process on a fake site."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.site import Site
from tests.lib.toy import ORIGINAL, TOY_PATCH, refused
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import build_wheel

HELPERS = '"""Helpers toypkg lacks."""\n\n\ndef clamp(x, top=4):\n    return min(x, top)\n'
EXTRA_INIT = '"""A new subpackage."""\n\nfrom toypkg.extra.deep.mod import VALUE\n'
DEEP_MOD = "VALUE = 7\n"

CREATE = """\
    summary: New modules
    description: A helper module and a new package with a module two directories down.
    distribution: toypkg
    supported: ">=1.0,<2"
    modules:
      helpers: toypkg.helpers
      extra: toypkg.extra.__init__
      deep: toypkg.extra.deep.mod
    rewrites:
      - id: create-helpers
        file: helpers
        create_module: {content: create/toypkg/helpers.py}
      - id: create-extra
        file: extra
        create_module: {content: create/toypkg/extra/__init__.py}
      - id: create-deep
        file: deep
        create_module: {content: create/toypkg/extra/deep/mod.py}
    """
CHANGE = """\
    summary: Change the new helper
    description: A later patch of the series changes a module the first one created.
    distribution: toypkg
    supported: ">=1.0,<2"
    requires: [create]
    modules:
      helpers: toypkg.helpers
    rewrites:
      - id: top-8
        replace: {scope: clamp, find: "min(x, top)", with: "min(x, top * 2)"}
    """
PAYLOADS = {
    "create/toypkg/helpers.py": HELPERS,
    "create/toypkg/extra/__init__.py": EXTRA_INIT,
    "create/toypkg/extra/deep/mod.py": DEEP_MOD,
}
CREATED = ("toypkg/helpers.py", "toypkg/extra/__init__.py", "toypkg/extra/deep/mod.py")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def registry(write_registry: Callable[..., Path]) -> Path:
    write_registry("create", CREATE, PAYLOADS)
    return write_registry("change", CHANGE)


def state(radpatch: Any, registry: Path, *names: str) -> dict[str, str]:
    r = radpatch("--registry", str(registry), "status", *names, "--json")
    assert r.code == 0, r.err
    return {p["patch"]: p["state"] for p in json.loads(r.out)}


@pytest.fixture
def installed(site: Site, tmp_path: Path) -> Path:
    """toypkg 1.0 unpacked into the fake site from its wheel, as pip lays it out."""
    built = build_wheel(tmp_path / "wheels", "toypkg", "1.0", ORIGINAL)
    with zipfile.ZipFile(built) as zf:
        zf.extractall(site.root)
    return built


def test_create_then_change_then_revert_in_process(
    site: Site, installed: Path, registry: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the bytecode apply writes and revert drops beside the sources, where the checks below look, also
    # when the run keeps bytecode under PYTHONPYCACHEPREFIX (tools/test.sh)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    before = site.snapshot()
    assert state(radpatch, registry, "create", "change") == {"create": "not-applied", "change": "not-applied"}

    r = radpatch("--registry", str(registry), "apply", "change")  # its requirement comes first, in one run

    assert r.code == 0, r.err
    assert "create: applied to toypkg 1.0 (toypkg.helpers, toypkg.extra.__init__, toypkg.extra.deep.mod)" in r.out
    assert (site.root / "toypkg/helpers.py").read_text() == HELPERS.replace("min(x, top)", "min(x, top * 2)")
    assert (site.root / "toypkg/extra/__init__.py").read_text() == EXTRA_INIT
    assert (site.root / "toypkg/extra/deep/mod.py").read_text() == DEEP_MOD
    assert state(radpatch, registry, "create", "change") == {"create": "applied", "change": "applied"}
    assert radpatch("--registry", str(registry), "status", "--check").code == 0
    record = json.loads((site.root / ".radpatch/record.json").read_text())["patches"]
    links = {f["path"]: f for f in record["create"]["files"]}
    assert links["toypkg/extra/deep/mod.py"]["original_sha256"] == "0" * 64
    assert links["toypkg/extra/deep/mod.py"]["made_dirs"] == ["toypkg/extra", "toypkg/extra/deep"]
    assert links["toypkg/extra/__init__.py"]["made_dirs"] == ["toypkg/extra"]

    r = radpatch("--registry", str(registry), "revert", "create", "change")

    assert r.code == 0, r.err
    assert "create: reverted; toypkg.helpers, toypkg.extra.__init__, toypkg.extra.deep.mod removed" in r.out, r.out
    assert "change: reverted; toypkg.helpers restored byte for byte" in r.out, r.out
    assert site.snapshot() == before  # no file, no bytecode, no directory left
    assert not (site.root / "toypkg" / "extra").exists()
    assert not list((site.root / "toypkg").rglob("helpers*.pyc"))


def test_reverting_the_creating_entry_alone_is_refused_while_the_change_is_on(
    site: Site, installed: Path, registry: Path, radpatch: Any
) -> None:
    assert radpatch("--registry", str(registry), "apply", "change").code == 0
    err = refused(site, radpatch, registry, "revert", "create")
    assert "revert them with it: radpatch revert change create" in err, err
    assert radpatch("--registry", str(registry), "revert", "change").code == 0
    assert state(radpatch, registry, "create", "change") == {"create": "applied", "change": "not-applied"}
    assert (site.root / "toypkg/helpers.py").read_text() == HELPERS
    assert radpatch("--registry", str(registry), "revert", "create").code == 0
    assert not (site.root / "toypkg/helpers.py").exists()


def test_a_module_that_exists_with_other_content_is_refused(
    site: Site, installed: Path, registry: Path, radpatch: Any
) -> None:
    (site.root / "toypkg/helpers.py").write_text("def clamp(x):\n    return x\n")
    err = refused(site, radpatch, registry, "apply", "create")
    assert "toypkg/helpers.py exists and is not the module the entry creates" in err, err
    assert not (site.root / "toypkg/extra").exists()


def test_a_module_that_exists_with_the_content_is_adopted_and_revert_leaves_it(
    site: Site, installed: Path, registry: Path, radpatch: Any
) -> None:
    """A `patch` step in an older image created the module already: apply records it (no wheel
    needed: its state before is no file) and creates the others; revert removes the two radpatch
    wrote and leaves the one it found, byte for byte (docs/state.md, who owns a created module)."""
    hand = "# created by patch(1)\n" + HELPERS
    (site.root / "toypkg/helpers.py").write_text(hand)
    r = radpatch("--registry", str(registry), "apply", "create")
    assert r.code == 0, r.err
    assert "create: adopted: toypkg.helpers already carries this patch's result (AST-equal)" in r.out, r.out
    assert "revert leaves it in place (radpatch did not write it)" in r.out, r.out
    assert (site.root / "toypkg/helpers.py").read_text() == hand
    assert state(radpatch, registry, "create") == {"create": "applied"}
    r = radpatch("--registry", str(registry), "revert", "create")
    assert r.code == 0, r.err
    assert "toypkg.helpers left in place (it was there when radpatch recorded it" in r.out, r.out
    assert (site.root / "toypkg/helpers.py").read_text() == hand and not (site.root / "toypkg/extra").exists()


def test_an_entry_that_creates_and_rewrites_one_module_is_a_registry_error(
    write_registry: Callable[..., Path], site: Site, installed: Path, radpatch: Any
) -> None:
    again = "      - id: again\n        file: helpers\n        replace: {scope: clamp, find: x, with: y}\n"
    both = CREATE.rstrip(" ") + again
    reg = write_registry("create", both, PAYLOADS)
    r = radpatch("--registry", str(reg), "apply", "create")
    assert r.code == 2 and "rewrite 'create-helpers' creates its module, so it is the only rewrite" in r.err, r.err


def test_a_created_module_must_compile_and_define_its_names(
    write_registry: Callable[..., Path], site: Site, installed: Path, radpatch: Any
) -> None:
    bad = {**PAYLOADS, "create/toypkg/helpers.py": "def clamp(x):\n    return undefined_name(x)\n"}
    reg = write_registry("create", CREATE, bad)
    err = refused(site, radpatch, reg, "apply", "create")
    assert "undefined_name" in err, err


def test_the_change_alone_refuses_while_the_module_does_not_exist(
    site: Site, installed: Path, write_registry: Callable[..., Path], radpatch: Any
) -> None:
    reg = write_registry("change", CHANGE.replace("    requires: [create]\n", ""))
    assert state(radpatch, reg, "change") == {"change": "not-applied"}
    err = refused(site, radpatch, reg, "apply", "change")
    assert "toypkg/helpers.py does not exist, and no entry of this run creates it" in err, err


@pytest.mark.processes
@pytest.mark.parametrize("fault", ["before-file:2", "after-file:2", "before-record:1"])
def test_a_run_killed_while_creating_leaves_no_module_and_no_directory(
    site: Site, installed: Path, registry: Path, fault: str
) -> None:
    """A real radpatch process killed at a fault point of an apply that creates modules; the next
    radpatch run rolls it back: no created file, no directory, no record."""
    before = site.snapshot()
    env = {k: v for k, v in os.environ.items() if k not in ("RADPATCH_REGISTRY", "PYTHONPATH")}
    env.update(RADPATCH_FAULT=fault, PYTHONPATH=str(site.root))
    cmd = [sys.executable, "-m", "radpatch", "--registry", str(registry)]
    killed = subprocess.run([*cmd, "apply", "create"], capture_output=True, text=True, env=env, timeout=120)
    assert killed.returncode != 0, killed.stdout
    env.pop("RADPATCH_FAULT")
    r = subprocess.run([*cmd, "revert", "create"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "recovered from an interrupted run" in r.stdout, r.stdout
    assert site.snapshot() == before
    assert not (site.root / "toypkg/extra").exists()


Run = Callable[..., subprocess.CompletedProcess[str]]


def _pip_installed(tmp_path: Path, registry: Path) -> tuple[Path, Path, Path, Run]:
    """toypkg 1.0 built as a wheel and pip-installed into a venv: (the wheel, its python, its
    site-packages, radpatch run as a process on it with `registry`)."""
    wheel = build_wheel(tmp_path / "wheels", "toypkg", "1.0", ORIGINAL)
    python = make_venv(tmp_path / "venv")
    pip(python, "install", "--no-deps", "--no-index", str(wheel))
    site = site_packages(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("RADPATCH_REGISTRY", "RADPATCH_FAULT", "PYTHONPATH")}
    cmd = [sys.executable, "-m", "radpatch", "--python", str(python), "--registry", str(registry)]

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cmd, *argv], capture_output=True, text=True, env=env, timeout=120)

    return wheel, python, site, run


@pytest.mark.wheel
def test_on_a_pip_installed_wheel_create_change_and_revert(tmp_path: Path, registry: Path) -> None:
    wheel, python, site, run = _pip_installed(tmp_path, registry)

    def files() -> dict[str, bytes]:
        return {str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*") if p.is_file()}

    before = files()
    assert run("apply", "change").returncode == 0
    out = subprocess.run(
        [str(python), "-c", "from toypkg.helpers import clamp; from toypkg.extra import VALUE; print(clamp(9), VALUE)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout == "8 7\n", out.stderr
    assert list((site / "toypkg" / "__pycache__").glob("helpers.*.pyc"))
    assert run("status", "--check").returncode == 0
    r = run("revert", "create", "change")
    assert r.returncode == 0, r.stderr
    assert files() == before
    assert not (site / "toypkg" / "extra").exists()
    assert not list((site / "toypkg" / "__pycache__").glob("helpers.*.pyc"))


def test_a_package_named_by_its_import_name_gets_its_init_from_the_content_files_name(
    write_registry: Callable[..., Path], site: Site, installed: Path, radpatch: Any
) -> None:
    """`toypkg.newpkg` whose content file is `.../newpkg/__init__.py` is the package's file; the
    same name with a content file `newpkg.py` is a plain module."""
    entry = """\
        summary: A new package
        description: d
        distribution: toypkg
        supported: ">=1.0,<2"
        modules:
          newpkg: toypkg.newpkg
          plain: toypkg.plain
        rewrites:
          - id: create-newpkg
            file: newpkg
            create_module: {content: pkg/newpkg/__init__.py}
          - id: create-plain
            file: plain
            create_module: {content: pkg/plain.py}
        """
    reg = write_registry("pkg", entry, {"pkg/newpkg/__init__.py": "X = 1\n", "pkg/plain.py": "Y = 2\n"})
    assert radpatch("--registry", str(reg), "apply", "pkg").code == 0
    assert (site.root / "toypkg/newpkg/__init__.py").read_text() == "X = 1\n"
    assert (site.root / "toypkg/plain.py").read_text() == "Y = 2\n"
    assert not (site.root / "toypkg/newpkg.py").exists()
    assert state(radpatch, reg, "pkg") == {"pkg": "applied"}
    assert radpatch("--registry", str(reg), "revert", "pkg").code == 0
    assert not (site.root / "toypkg/newpkg").exists() and not (site.root / "toypkg/plain.py").exists()


def test_the_engine_start_check_reads_created_modules_from_hashes(
    site: Site, installed: Path, registry: Path, radpatch: Any
) -> None:
    """radpatch.plugin's self-check (record and hashes only): a created module is applied; one
    deleted by hand reads not applied (its state before the patch is no file), never unreadable."""
    from radpatch.plugin import Seen, check

    assert radpatch("--registry", str(registry), "apply", "change").code == 0
    assert {c.name: c.state for c in check(site.root)} == {"create": Seen.APPLIED, "change": Seen.APPLIED}
    (site.root / "toypkg/extra/deep/mod.py").unlink()
    seen = {c.name: c for c in check(site.root)}
    assert seen["create"].state is Seen.DRIFTED  # one file not applied, the others applied: changed since
    # `change` carries its change, but requires `create`, which reads drifted: status reads it
    # drifted (status --check fails), and so does the engine-start check, saying what `create` reads
    assert seen["change"].state is Seen.DRIFTED and "it requires create, which reads drifted" in seen["change"].detail
    status = json.loads(radpatch("--registry", str(registry), "status", "--json", "create", "change").out)
    assert [s["state"] for s in status] == ["drifted", "drifted"]
    detail = seen["create"].detail
    assert "toypkg/extra/deep/mod.py is gone (as before the patch created it)" in detail, detail
    for rel in CREATED:
        (site.root / rel).unlink(missing_ok=True)
    assert {c.name: c.state for c in check(site.root)} == {"create": Seen.NOT_APPLIED, "change": Seen.NOT_APPLIED}


@pytest.mark.processes
@pytest.mark.parametrize("fault", ["after-file:1", "after-file:3", "before-record:1"])
def test_a_revert_killed_while_removing_created_modules_is_rolled_back(
    site: Site, installed: Path, registry: Path, fault: str
) -> None:
    """A real radpatch process killed while reverting `create` (deleting its modules); the next run
    puts them back (with their directories) and the patch reads applied, then reverts cleanly."""
    env = {k: v for k, v in os.environ.items() if k not in ("RADPATCH_REGISTRY", "PYTHONPATH", "RADPATCH_FAULT")}
    env["PYTHONPATH"] = str(site.root)
    cmd = [sys.executable, "-m", "radpatch", "--registry", str(registry)]

    def run(*argv: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cmd, *argv], capture_output=True, text=True, env={**env, **extra}, timeout=120)

    pristine = site.snapshot()
    assert run("apply", "create").returncode == 0
    applied = {rel: (site.root / rel).read_bytes() for rel in CREATED}
    killed = run("revert", "create", RADPATCH_FAULT=fault)
    assert killed.returncode != 0, killed.stdout
    r = run("apply", "create")  # finishes the interrupted run first: the modules are back
    assert r.returncode == 0, r.stderr
    assert "recovered from an interrupted run" in r.stdout, r.stdout
    assert {rel: (site.root / rel).read_bytes() for rel in CREATED} == applied
    assert run("revert", "create").returncode == 0
    assert site.snapshot() == pristine


def test_a_created_module_edited_by_hand_is_refused_with_a_hint_that_removes_it_rather_than_restores_it(
    site: Site, installed: Path, registry: Path, radpatch: Any
) -> None:
    """`radpatch restore` puts a file back to the bytes its wheel installed; a module the patch
    created has none (RECORD does not list it): the hint says to remove it, and restore the rest."""
    assert radpatch("--registry", str(registry), "apply", "create").code == 0
    helpers = site.root / "toypkg" / "helpers.py"
    helpers.write_text(helpers.read_text() + "\n\ndef extra():\n    return 1\n")
    r = radpatch("--registry", str(registry), "revert", "create")
    assert r.code == 1, r
    hint = r.err.splitlines()[-1]
    assert "remove toypkg/helpers.py" in hint and "the wheel has no bytes of it to restore" in hint, r.err
    assert "radpatch restore toypkg/helpers.py" not in r.err
    restore = radpatch("restore", "toypkg/helpers.py")  # what the old hint advised: refused, as it must be
    assert restore.code != 0


def test_a_created_module_that_defines_a_name_twice_is_created_as_python_allows(
    write_registry: Callable[..., Path], site: Site, installed: Path, radpatch: Any
) -> None:
    """A real module may define a function twice (the second wins): creating the whole file replaces
    no definition, so apply creates it as written and revert removes it."""
    twice = "def clamp(x):\n    return x\n\n\ndef clamp(x, top=4):\n    return min(x, top)\n"
    reg = write_registry("create", CREATE, {**PAYLOADS, "create/toypkg/helpers.py": twice})
    r = radpatch("--registry", str(reg), "apply", "create")
    assert r.code == 0, r.err
    assert (site.root / "toypkg/helpers.py").read_text() == twice
    assert radpatch("--registry", str(reg), "status", "--check", "create").code == 0
    assert radpatch("--registry", str(reg), "revert", "create").code == 0
    assert not (site.root / "toypkg/helpers.py").exists()


def test_a_new_package_made_by_hand_is_adopted_and_revert_leaves_it(
    site: Site, installed: Path, registry: Path, radpatch: Any
) -> None:
    """Every file `create` would make exists already (an older image ran `patch`): apply adopts them
    all, each a module it found (its link from its bytes to themselves, no directory made for it),
    and revert leaves the package as it found it: radpatch wrote none of it."""
    for rel, text in zip(CREATED, (HELPERS, EXTRA_INIT, DEEP_MOD), strict=True):
        (site.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (site.root / rel).write_text(text)
    made = site.snapshot()
    r = radpatch("--registry", str(registry), "apply", "create")
    assert r.code == 0, r.err
    assert "create: adopted:" in r.out and "applied to" not in r.out, r.out
    record = json.loads((site.root / ".radpatch/record.json").read_text())["patches"]
    for link in record["create"]["files"]:
        assert link["original_sha256"] == link["patched_sha256"] and link["made_dirs"] == [], link
        assert "written" not in link, link

    r = radpatch("--registry", str(registry), "revert", "create")

    assert r.code == 0, r.err
    assert r.out.count("left in place") == 3, r.out
    assert site.snapshot() == made


@pytest.mark.parametrize("stray", ["helpers", "deep"])
def test_a_stray_file_where_an_entry_creates_a_module_is_named_for_what_it_is(
    site: Site, installed: Path, write_registry: Callable[..., Path], radpatch: Any, stray: str
) -> None:
    """att20 F2: a leftover file (RECORD does not list it) with other code where `create` makes a
    module, `create` requiring an entry (`toy`) that never touches that file: status and apply say
    a file the distribution did not install is in the way; not that `toy` comes first, and not that
    the installed release has the module."""
    write_registry("toy", TOY_PATCH)
    registry = write_registry("create", CREATE.replace("rewrites:", "requires: [toy]\n    rewrites:", 1), PAYLOADS)
    rel = {"helpers": "toypkg/helpers.py", "deep": "toypkg/extra/deep/mod.py"}[stray]
    (site.root / rel).parent.mkdir(parents=True, exist_ok=True)
    (site.root / rel).write_text("X = 2\n")
    r = radpatch("--registry", str(registry), "status", "--json", "create")
    (create,) = json.loads(r.out)
    assert create["state"] == "drifted", create
    assert (
        f"{rel}: a file the distribution did not install (its RECORD does not list it) is in the way"
        in (create["reason"])
    ), create["reason"]
    for words in ("comes first", "the installed release has this module"):
        assert words not in create["reason"], create["reason"]
    err = refused(site, radpatch, registry, "apply", "create")
    assert f"{rel} exists and is not the module the entry creates" in err, err
    assert f"remove {rel} (the module the patch creates: the wheel has no bytes of it to restore)" in err, err
    for words in ("comes first", "the installed release has", "radpatch restore"):
        assert words not in err, err
    assert (site.root / rel).read_text() == "X = 2\n"


# attack39 F2: a package the entry creates where a module of its name is installed (toypkg/core/__init__.py
# beside toypkg/core.py) was applied: Python then imports the package and the installed module is hidden.
# Generated over every installed module of toypkg x how the entry names the package; a new name is the control.
TWIN_CASES = [
    (rel, naming)
    for rel in sorted(r for r in ORIGINAL if r.endswith(".py") and not r.endswith("__init__.py")) + ["toypkg/fresh.py"]
    for naming in ("import-name", "init-name")
]


@pytest.mark.parametrize(("twin", "naming"), TWIN_CASES)
def test_a_package_created_over_an_installed_module_of_its_name_is_refused(
    site: Site, installed: Path, write_registry: Callable[..., Path], radpatch: Any, twin: str, naming: str
) -> None:
    package = twin[: -len(".py")]
    dotted = package.replace("/", ".")
    module = dotted if naming == "import-name" else dotted + ".__init__"
    entry = f"""\
        summary: A package
        description: d
        distribution: toypkg
        supported: ">=1.0,<2"
        modules:
          pkg: {module}
        rewrites:
          - id: make
            file: pkg
            create_module: {{content: twin/{package}/__init__.py}}
        """
    registry = write_registry("twin", entry, {f"twin/{package}/__init__.py": "VALUE = 42\n"})
    installed_module = (site.root / twin).is_file()
    assert installed_module is (twin in ORIGINAL)  # the oracle: is a module of that name installed?
    if installed_module:
        err = refused(site, radpatch, registry, "apply", "twin")
        assert f"{twin} is installed, and the entry creates {package}/__init__.py" in err, err
        assert "hint: rewrite" in err, err
    else:
        r = radpatch("--registry", str(registry), "apply", "twin")
        assert r.code == 0, r.err
        assert (site.root / package / "__init__.py").read_text() == "VALUE = 42\n"
        assert radpatch("--registry", str(registry), "revert", "twin").code == 0
        assert not (site.root / package).exists()


CHANGE_BOTH = (
    CHANGE.replace(
        "    modules:\n      helpers: toypkg.helpers\n",
        "    modules:\n      helpers: toypkg.helpers\n      util: toypkg.util\n",
    )
    .replace(
        "    rewrites:\n",
        "    rewrites:\n      - id: triple\n        file: util\n"
        "        replace: {scope: scale, find: x * 2, with: x * 3}\n",
    )
    .replace("      - id: top-8\n", "      - id: top-8\n        file: helpers\n")
)


@pytest.mark.wheel
def test_after_a_reinstall_the_hint_of_a_series_names_who_created_the_module_and_following_it_reapplies(
    tmp_path: Path, write_registry: Callable[..., Path]
) -> None:
    """att45 #5: `create` makes toypkg/helpers.py, `change` (requiring it) changes that module and a
    module of the wheel. A reinstall puts the wheel's module back and leaves the created one (RECORD
    does not list it): `change` is half there, drifted. The hint said "remove toypkg/helpers.py (the
    module the patch creates ...)" of `change`, which creates nothing; it says now that an entry
    before it created the module, and doing what it says (remove it, apply the series) gives the
    series' bytes again."""
    write_registry("create", CREATE, PAYLOADS)
    registry = write_registry("change", CHANGE_BOTH)
    wheel, python, site, run = _pip_installed(tmp_path, registry)

    def modules() -> dict[str, bytes]:
        return {str(p.relative_to(site)): p.read_bytes() for p in (site / "toypkg").rglob("*.py")}

    assert run("apply", "create", "change").returncode == 0
    series = modules()
    pip(python, "install", "--force-reinstall", "--no-deps", "--no-index", str(wheel))
    assert (site / "toypkg/helpers.py").read_bytes() == series["toypkg/helpers.py"]  # left by the reinstall
    hints = []
    for _ in range(3):  # bounded: each hint removes modules; the series' two entries need two at most
        r = run("apply", "create", "change")
        if r.returncode == 0:
            break
        assert r.returncode == 1 and "hint: " in r.stderr, r.stdout + r.stderr
        who, hint = r.stderr.split(": cannot apply", 1)[0].split()[-1], r.stderr.split("hint:", 1)[1]
        hints.append((who, hint))
        assert ("the module the patch creates" in hint) is (who == "create"), r.stderr
        if "`radpatch revert " in hint:  # some of its files put back (state49): take it off the rest first
            assert run("revert", *hint.split("`radpatch revert ", 1)[1].split("`", 1)[0].split()).returncode == 0
            continue
        for rel in hint.split("remove ", 1)[1].split(" (", 1)[0].split():
            (site / rel).unlink()
    assert r.returncode == 0 and hints, (hints, r.stderr)
    first = hints[0][1]
    assert hints[0][0] == "change" and ("which this patch does not create" in first or "revert change" in first), hints
    assert modules() == series
    assert run("status", "--check", "create", "change").returncode == 0
