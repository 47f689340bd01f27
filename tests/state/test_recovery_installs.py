"""An interrupted run's recovery on real installs (issue 21; att63 F1, F6, F7): it writes a file
back only into the install that run planned against, finds its files after the venv moved, and
keeps the bytes from before the run when it cannot decide (a file edited or deleted since), where
`radpatch restore` finds them.

Every target is the demo wheel pip-installed into a real venv (tests/lib/installed.py), radpatch
killed by its fault points (SIGKILL) and run again as its own process.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.lib.installed import DEMO_DIST, DEMO_FILES, Env, assert_settled
from tests.lib.site import Site
from tests.lib.venvs import pip
from tests.lib.wheels import build_wheel

ALPHA, BETA = "rphard_demo/alpha.py", "rphard_demo/sub/beta.py"


def ok(out: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert out.returncode == 0, f"exit {out.returncode}:\n{out.stdout}{out.stderr}"
    return out


def killed(env: Env, *args: str, fault: str) -> None:
    out = env.run(*args, fault=fault)
    assert out.returncode == -signal.SIGKILL, (out.returncode, out.stderr)
    assert (env.state_dir / "journal").is_dir()


def install(env: Env, tmp: Path, version: str, files: dict[str, str]) -> None:
    """pip installs `version` of the demo distribution over the current one, from a wheel of `files`."""
    wheel = build_wheel(tmp / f"wheels-{version}-{len(list(tmp.glob('wheels-*')))}", DEMO_DIST, version, files)
    pip(env.python, "install", "--no-deps", "--no-index", "--force-reinstall", str(wheel))


@pytest.mark.parametrize(
    ("version", "said"),
    [("1.0.1", "was replaced by rphard-demo 1.0.1 since"), ("1.0.0", "was reinstalled since from other files")],
)
def test_a_revert_interrupted_then_upgraded_writes_nothing_of_the_old_install(
    demo_env: Env, tmp_path: Path, version: str, said: str
) -> None:
    """att63 F1: revert killed once both files are back, then pip installs another build whose
    beta.py is the old one's byte for byte: the recovery must not put the old patched beta.py
    into the new install (it is exactly the run's `after`, but of another install)."""
    env = demo_env
    ok(env.run("apply", env.patch))
    killed(env, "revert", env.patch, fault="after-file:2")
    new = {**DEMO_FILES, ALPHA: DEMO_FILES[ALPHA].replace("an upstream comment", "upstream, rebuilt")}
    install(env, tmp_path, version, new)
    out = ok(env.run("revert", env.patch))
    assert env.path(BETA).read_text() == new[BETA], "recovery wrote the old install's patched beta.py"
    assert env.path(ALPHA).read_text() == new[ALPHA]
    assert f"left {BETA} as it is: {DEMO_DIST} 1.0.0, which that interrupted revert was for, {said}" in out.stdout
    assert not (env.state_dir / "journal").exists()
    st = env.status()
    assert st["state"] == "not-applied", st
    ok(env.run("apply", env.patch))  # and the patch goes on the new install as on any other
    assert env.status()["state"] == "applied"


def test_an_apply_interrupted_then_the_venv_moved_is_rolled_back(demo_env: Env, tmp_path: Path) -> None:
    """att63 F7: the journal names its files relative to site-packages, so a venv moved (or copied)
    before the next run is recovered in its new place, not dropped as 'gone' with its saved bytes."""
    killed(demo_env, "apply", demo_env.patch, fault="after-file:1")
    assert demo_env.path(ALPHA).read_bytes() == demo_env.patched[ALPHA]
    moved = tmp_path / "moved"
    shutil.move(demo_env.venv, moved)
    env = dataclasses.replace(demo_env, venv=moved)
    out = ok(env.run("revert", env.patch))
    assert f"recovered from an interrupted run: restored {env.path(ALPHA)}" in out.stdout, out.stdout
    assert env.read() == env.original
    ok(env.run("apply", env.patch))
    assert_settled(env, applied=True)


@pytest.mark.parametrize("change", ["comment", "deleted"])
def test_a_file_changed_after_the_interruption_keeps_its_installed_bytes(demo_env: Env, change: str) -> None:
    """att63 F3: apply killed after writing alpha.py, which is then edited (a comment) or deleted:
    the recovery leaves it alone and keeps its installed bytes from the journal, so that
    `radpatch restore` puts them back with no wheel to download (the demo is on no index)."""
    env = demo_env
    killed(env, "apply", env.patch, fault="after-file:1")
    if change == "comment":
        env.path(ALPHA).write_bytes(env.patched[ALPHA] + b"# a local note\n")
    else:
        env.path(ALPHA).unlink()
    out = env.run("revert", env.patch)
    assert f"`radpatch restore {ALPHA}` puts them back" in out.stdout, out.stdout + out.stderr
    assert not (env.state_dir / "journal").exists()
    env.run("revert", env.patch)  # a later run (refused or not) keeps them too
    assert (env.state_dir / "salvaged.json").is_file()
    restored = ok(env.run("restore", ALPHA))
    assert "kept originals" in restored.stdout, restored.stdout
    assert env.read() == env.original
    ok(env.run("apply", env.patch))
    ok(env.run("revert", env.patch))
    assert_settled(env, applied=False)
    assert not env.state_dir.exists(), "the kept bytes outlived the file that needed them"


def test_kept_bytes_go_once_pip_reinstalls(demo_env: Env, tmp_path: Path) -> None:
    """Bytes kept for a file edited after the interruption are dropped once pip reinstalls the
    distribution (another install: the files decide), and radpatch's directory goes with them."""
    env = demo_env
    killed(env, "apply", env.patch, fault="after-file:1")
    env.path(ALPHA).write_bytes(env.patched[ALPHA] + b"# a local note\n")
    env.run("revert", env.patch)
    assert (env.state_dir / "salvaged.json").is_file()
    install(env, tmp_path, "1.0.1", DEMO_FILES)
    ok(env.run("revert", env.patch))
    assert not env.state_dir.exists()


def test_a_journal_of_an_older_radpatch_writes_nothing_and_keeps_its_bytes(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    """A journal written before radpatch recorded the install (absolute paths, no install): the
    recovery cannot tell that the install is the one that run was for, so it writes nothing and
    keeps the bytes from before the run for `radpatch restore`."""
    from radpatch.state import record as store

    util = site.root / "toypkg/util.py"
    installed = util.read_bytes()
    journal = site.root / ".radpatch/journal"
    journal.mkdir(parents=True)
    (journal / "0.before").write_bytes(installed)
    entry = {"path": str(util), "before": _sha(installed), "after": _sha(b"x = 1\n"), "blob": "0.before"}
    (journal / "plan.json").write_text(json.dumps({"run": "r", "op": "apply", "patches": ["toy"], "files": [entry]}))
    util.write_bytes(b"x = 1\n")  # as that run left it
    out = radpatch("--registry", str(toy), "revert", "toy")
    assert "of an older radpatch, does not say which install" in out.out, out
    assert "`radpatch restore toypkg/util.py` puts them back" in out.out, out
    assert util.read_bytes() == b"x = 1\n" and not journal.exists()
    assert store.Store(site.root).original(_sha(installed)) == installed


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
