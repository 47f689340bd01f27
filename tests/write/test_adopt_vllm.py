"""Adopt on a real vLLM 0.33.0 install (pip-installed from its wheel): kv_group_size's result put
into the file by hand, as a `sed` or `patch` step of an older image would, is adopted by `apply`
(its RECORD bytes read from the release's wheel with `--wheel`), reads applied, and `revert`
gives back the bytes pip installed."""

from __future__ import annotations

import hashlib

from tests.lib.installed import VLLM_TARGET, Env, vllm_wheel_dir
from tests.lib.site import recorded_sha256


def test_kv_group_size_applied_by_hand_is_adopted_and_reverted_to_record_bytes(vllm_install_env: Env) -> None:
    env = vllm_install_env
    target = env.path(VLLM_TARGET)
    record = recorded_sha256(next(env.site.glob("vllm-*.dist-info")) / "RECORD", VLLM_TARGET)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == record
    by_hand = b"# kv_group_size, applied by a sed step of an older image\n" + env.patched[VLLM_TARGET]
    target.write_bytes(by_hand)
    assert env.status()["state"] in ("drifted", "applied")  # no record of radpatch's either way

    r = env.run("apply", "kv_group_size", "--wheel", str(vllm_wheel_dir()))

    assert r.returncode == 0, r.stderr
    assert "kv_group_size: adopted: vllm.v1.core.kv_cache_planning already carries this patch's result" in r.stdout
    assert target.read_bytes() == by_hand
    assert env.status()["state"] == "applied"
    check = env.run("status", "--check", "kv_group_size")
    assert check.returncode == 0, check.stdout + check.stderr

    r = env.run("revert", "kv_group_size")

    assert r.returncode == 0, r.stderr
    assert hashlib.sha256(target.read_bytes()).hexdigest() == record
    assert target.read_bytes() == env.original[VLLM_TARGET]
    assert not env.state_dir.exists()
