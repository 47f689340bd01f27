"""Issue 6.3 — cannot write: real permissions, a real read-only mount, a really full tmpfs, a real
symlink. radpatch must exit 4 with a short error naming the path, change nothing (files written
by the run so far restored at once) and leave no temp file or journal behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.installed import AS_NOBODY, Demo, Env, assert_settled

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root (setpriv, mount)"),
]

ALPHA, BETA = "rphard_demo/alpha.py", "rphard_demo/sub/beta.py"


def _start(env: Env, op: str) -> None:
    """Bring the environment to the state `op` starts from (revert: applied, by root)."""
    if op == "revert":
        out = env.run("apply", env.patch)
        assert out.returncode == 0, out.stderr
        assert_settled(env, applied=True)


def snapshot(env: Env) -> dict[str, object]:
    """Every file under the venv (bytes, mode), except radpatch's lock and this test's fillers."""
    return {k: v for k, v in env.snapshot().items() if ".filler" not in k and ".probe" not in k}


def assert_refused_cleanly(
    env: Env, out: subprocess.CompletedProcess[str], before: dict[str, object], *paths: Path
) -> None:
    """Exit 4, a one-line error (plus hint) naming one of `paths`, nothing changed, no leftovers."""
    assert out.returncode == 4, f"exit {out.returncode}, expected 4 (environment):\n{out.stdout}{out.stderr}"
    lines = out.stderr.strip().splitlines()
    assert lines and lines[0].startswith("radpatch: error:"), out.stderr
    assert len(lines) <= 2 and "Traceback" not in out.stderr, f"not a short error:\n{out.stderr}"
    assert any(str(p) in lines[0] for p in paths), f"the error names none of {[str(p) for p in paths]}:\n{out.stderr}"
    after = snapshot(env)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"files changed although the run failed: {changed}"
    assert not env.leftovers(), f"left behind: {env.leftovers()}"


# --- a user who may not write the installation ------------------------------------------------------


@pytest.mark.parametrize("op", ["apply", "revert"])
def test_user_without_write_permission(demo_env: Env, op: str) -> None:
    """`nobody` (able to read everything, write nothing) on a venv owned by root."""
    env = demo_env
    _start(env, op)
    before = snapshot(env)
    out = env.run(op, env.patch, prefix=AS_NOBODY)
    assert_refused_cleanly(env, out, before, env.state_dir, *(env.path(r) for r in env.targets))


@pytest.mark.parametrize("op", ["apply", "revert"])
def test_second_module_directory_not_writable(demo_env: Env, op: str) -> None:
    """`nobody` may write radpatch's state and alpha's directory but not beta's: alpha is written
    first, beta fails, alpha must be restored at once."""
    env = demo_env
    _start(env, op)
    env.state_dir.mkdir(exist_ok=True)
    nobody = (65534, 65534)
    for p in [env.state_dir, *env.state_dir.rglob("*"), env.path("rphard_demo"), env.path(ALPHA)]:
        os.chown(p, *nobody)
    before = snapshot(env)
    out = env.run(op, env.patch, prefix=AS_NOBODY)
    assert_refused_cleanly(env, out, before, env.path(BETA))
    assert env.path(ALPHA).stat().st_uid == 65534


@contextlib.contextmanager
def read_only_bind(directory: Path) -> Iterator[None]:
    subprocess.run(["mount", "--bind", str(directory), str(directory)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(directory)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(directory)], check=True)


@pytest.mark.parametrize("op", ["apply", "revert"])
def test_read_only_mount_as_root(demo_env: Env, op: str) -> None:
    """Root cannot write a read-only mount either: beta's directory is one."""
    env = demo_env
    _start(env, op)
    with read_only_bind(env.path(BETA).parent):
        before = snapshot(env)
        out = env.run(op, env.patch)
        assert_refused_cleanly(env, out, before, env.path(BETA))
    assert_settled(env, applied=(op == "revert"))  # and afterwards everything is as it was


# --- a full disk ------------------------------------------------------------------------------------


@contextlib.contextmanager
def tmpfs(mountpoint: Path, size: str) -> Iterator[Path]:
    mountpoint.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mountpoint)], check=True)
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], check=True)


def fill(directory: Path) -> None:
    """Write until the filesystem is full (down to the last byte)."""
    for i, size in enumerate((1 << 20, 4096, 1)):
        with contextlib.suppress(OSError), open(directory / f".filler{i}", "wb", buffering=0) as fh:
            block = b"\0" * size
            while True:
                fh.write(block)
    st = os.statvfs(directory)
    assert st.f_bavail == 0, "the filesystem is not full"
    with pytest.raises(OSError), open(directory / ".probe", "wb", buffering=0) as fh:
        fh.write(b"x")


@pytest.mark.parametrize("op", ["apply", "revert"])
def test_full_disk(demo: Demo, tmp_path: Path, op: str) -> None:
    """The whole venv lives on a small tmpfs which is full."""
    with tmpfs(tmp_path / "fs", "8m") as fs:
        env = demo.fresh(fs / "venv")
        _start(env, op)
        fill(fs)
        before = snapshot(env)
        out = env.run(op, env.patch)
        assert_refused_cleanly(env, out, before, env.state_dir, *(env.path(r) for r in env.targets))


@pytest.mark.parametrize("op", ["apply", "revert"])
def test_full_disk_under_the_second_module(demo_env: Env, tmp_path: Path, op: str) -> None:
    """beta's directory is a full tmpfs; alpha's is not: alpha is written, beta fails, alpha restored."""
    env = demo_env
    _start(env, op)
    sub = env.path(BETA).parent
    keep = tmp_path / "sub-copy"
    shutil.copytree(sub, keep, symlinks=True)
    with tmpfs(sub, "64k"):
        shutil.copytree(keep, sub, symlinks=True, dirs_exist_ok=True)
        for p in keep.rglob("*"):
            shutil.copystat(p, sub / p.relative_to(keep))
        fill(sub)
        before = snapshot(env)
        out = env.run(op, env.patch)
        assert_refused_cleanly(env, out, before, env.path(BETA))


# --- a symlinked target -----------------------------------------------------------------------------


@pytest.mark.parametrize("which", [ALPHA, BETA])
@pytest.mark.parametrize("op", ["apply", "revert"])
def test_target_is_a_symlink(demo_env: Env, tmp_path: Path, op: str, which: str) -> None:
    env = demo_env
    _start(env, op)
    elsewhere = tmp_path / "elsewhere" / Path(which).name
    elsewhere.parent.mkdir()
    link = env.path(which)
    shutil.copy2(link, elsewhere)
    link.unlink()
    link.symlink_to(elsewhere)
    real_before = elsewhere.read_bytes()
    before = snapshot(env)
    out = env.run(op, env.patch)
    assert_refused_cleanly(env, out, before, link)
    assert "symlink" in out.stderr
    assert link.is_symlink() and os.readlink(link) == str(elsewhere)
    assert elsewhere.read_bytes() == real_before


@pytest.mark.parametrize("free", sample(range(0, 49153, 4096)))
def test_a_disk_that_fills_during_the_run_leaves_files_as_they_were_or_says_they_stay(
    demo: Demo, tmp_path: Path, free: int
) -> None:
    """att40 #2: the venv on a tmpfs left with `free` bytes. A run that fails part-way puts back what it
    wrote; where that cannot be done either (the record's write failed, then the put-back did), the
    files it wrote stay: the error says so and that the run is pending, not only that the record
    file "is unchanged". Freeing the space, the next apply completes the run."""
    with tmpfs(tmp_path / "fs", "8m") as fs:
        env = demo.fresh(fs / "venv")
        fill(fs)
        filler = fs / ".filler0"
        os.truncate(filler, max(0, filler.stat().st_size - free))
        before = env.read()
        out = env.run("apply", env.patch)
        assert out.returncode in (0, 4), out.stdout + out.stderr
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 2, out.stderr
        if out.returncode == 4 and env.read() != before:  # files it wrote stay
            assert "they stay as written and the run is pending" in out.stderr, out.stderr
            assert "radpatch apply` or `radpatch revert`" in out.stderr, out.stderr
            assert (env.state_dir / "journal").is_dir()
        for f in fs.glob(".filler*"):
            f.unlink()
        done = env.run("apply", env.patch)
        assert done.returncode == 0, done.stdout + done.stderr
        assert_settled(env, applied=True)
