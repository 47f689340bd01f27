"""Issue 6.5 — reinstall: `pip install --force-reinstall --no-deps` really run over a patched install.

The record still says "applied" but the files are pristine again: status must follow the files
(`not-applied`), `status --check` without names must fail (exit 3), and apply must work again.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.lib.installed import DEMO_DIST, DEMO_VERSION, VLLM_VERSION, Demo, Env, assert_settled, vllm_wheel_dir
from tests.lib.venvs import pip


def _reinstall_is_reconciled(env: Env, reinstall: Callable[[], None]) -> None:
    out = env.run("apply", env.patch)
    assert out.returncode == 0, out.stderr
    assert_settled(env, applied=True)
    assert env.run("status", "--check").returncode == 0

    reinstall()
    assert env.read() == env.original, "pip did not restore the files (test setup)"
    assert env.patch in env.record(), "the record is expected to still name the patch (pip does not know it)"

    st = env.status()
    assert st["state"] == "not-applied", f"after a reinstall status says {st['state']!r}: {st['reason']}"
    assert all(f["wheel_record_match"] is True and f["state"] == "not-applied" for f in st["files"]), st  # type: ignore[union-attr, index]
    check = env.run("status", "--check")  # no names: every patch the record says was applied
    assert check.returncode == 3, (
        f"status --check after a reinstall: exit {check.returncode}\n{check.stdout}{check.stderr}"
    )
    assert env.patch in check.stderr
    assert env.run("status", "--check", env.patch).returncode == 3

    out = env.run("revert", env.patch)
    assert out.returncode == 0 and "nothing to revert" in out.stdout, out.stdout + out.stderr
    assert env.read() == env.original

    out = env.run("apply", env.patch)
    assert out.returncode == 0, out.stderr
    assert f"{env.patch}: applied to" in out.stdout, out.stdout
    assert_settled(env, applied=True)
    assert env.run("status", "--check").returncode == 0
    out = env.run("revert", env.patch)
    assert out.returncode == 0, out.stderr
    assert_settled(env, applied=False)


def test_force_reinstall_is_reconciled(demo: Demo, demo_env: Env) -> None:
    def reinstall() -> None:
        pip(
            demo_env.python,
            "install",
            "--force-reinstall",
            "--no-deps",
            "--no-index",
            "--find-links",
            str(demo.wheel.parent),
            f"{DEMO_DIST}=={DEMO_VERSION}",
        )

    _reinstall_is_reconciled(demo_env, reinstall)


@pytest.mark.vllm
def test_force_reinstall_is_reconciled_kv_group_size(vllm_install_env: Env) -> None:
    def reinstall() -> None:
        pip(
            vllm_install_env.python,
            "install",
            "--force-reinstall",
            "--no-deps",
            "--no-index",
            "--find-links",
            str(vllm_wheel_dir()),
            f"vllm=={VLLM_VERSION}",
        )

    _reinstall_is_reconciled(vllm_install_env, reinstall)
