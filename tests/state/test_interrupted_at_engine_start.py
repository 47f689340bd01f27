"""A run killed while re-applying a revised entry leaves files radpatch wrote that its record does
not name yet: the engine-start self-check says the run was interrupted and that the next apply or
revert finishes it, not only that the file "changed since radpatch wrote it" (which reads as
someone else's edit). On a real wheel pip-installed into a venv (tests/lib/installed.py's demo)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from radpatch import plugin
from radpatch.plugin import Seen
from tests.lib.installed import DEMO_PATCH, Env


def test_an_interrupted_reapply_is_named_at_engine_start(demo_env: Env, tmp_path: Path) -> None:
    assert demo_env.run("apply", DEMO_PATCH).returncode == 0
    (before,) = plugin.check(demo_env.site)
    assert before.state is Seen.APPLIED and "interrupted" not in before.detail
    revised = tmp_path / "revised"
    revised.mkdir()
    for f in demo_env.registries[0].iterdir():
        (revised / f.name).write_bytes(f.read_bytes())
    entry = revised / f"{DEMO_PATCH}.yaml"
    entry.write_text(entry.read_text().replace("with: cap = 20", "with: cap = 30"))
    demo_env.registries = (revised,)
    killed = demo_env.run("apply", DEMO_PATCH, fault="after-file:1")
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    assert (demo_env.state_dir / "journal").is_dir()
    (check,) = plugin.check(demo_env.site)
    assert check.state is not Seen.APPLIED
    assert "a radpatch run was interrupted" in check.detail and "the next apply or revert" in check.detail, check.detail
    done = demo_env.run("apply", DEMO_PATCH)  # what the note says: the next run completes it
    assert done.returncode == 0, done.stdout + done.stderr
    (after,) = plugin.check(demo_env.site)
    assert after.state is Seen.APPLIED and "interrupted" not in after.detail, after.detail


@pytest.mark.parametrize("fault", ["after-file:1", "before-record:1"])
def test_an_interrupted_first_apply_is_named_at_engine_start(demo_env: Env, fault: str) -> None:
    """att40 #1: killed after it wrote the file, before any record of radpatch's existed, the run left
    a patched file and a journal; the engine-start check said only "no radpatch patch recorded" (and,
    with the patch required, "no record"), never that a run was interrupted."""
    killed = demo_env.run("apply", DEMO_PATCH, fault=fault)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    assert (demo_env.state_dir / "journal").is_dir()
    assert plugin.check(demo_env.site) == [] or all(c.record is None for c in plugin.check(demo_env.site))
    said = plugin.summary(plugin.check(demo_env.site), demo_env.site)
    assert "a radpatch run was interrupted" in said, said
    (required,) = plugin.check(demo_env.site, (DEMO_PATCH,))
    assert not required.satisfied
    assert "a radpatch run was interrupted" in required.detail and "the next apply or revert" in required.detail
    done = demo_env.run("apply", DEMO_PATCH)  # what the note says: the next run completes it
    assert done.returncode == 0, done.stdout + done.stderr
    (after,) = plugin.check(demo_env.site, (DEMO_PATCH,))
    assert after.state is Seen.APPLIED and after.satisfied and "interrupted" not in after.detail, after.detail
