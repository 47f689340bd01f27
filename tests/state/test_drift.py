"""Issue 6.4 — drift: files really edited after radpatch (or before it, by formatting only).

* A patched file edited by hand is `drifted`; status names the rewrite/scope that differs; apply
  and revert refuse with exit 1 and leave the file alone.
* A pristine file that differs from RECORD only in comments/formatting is not drift: status
  `not-applied`, apply works, revert gives that very file back byte for byte.
"""

from __future__ import annotations

import pytest

from tests.lib.installed import VLLM_TARGET, Env, assert_settled

ALPHA, BETA = "rphard_demo/alpha.py", "rphard_demo/sub/beta.py"

# (file, old, new, rewrite id the edit breaks or None, scope the edit is in)
DEMO_EDITS = {
    "inserted-statement": (
        ALPHA,
        "    y = _rphard_double(y)\n",
        "    y = _rphard_double(y) + 1\n",
        "alpha-double",
        "compute",
    ),
    "injected-definition": (ALPHA, "    return v * 2\n", "    return v * 3\n", "alpha-helper", "_rphard_double"),
    "replaced-statement": (BETA, "    cap = 20\n", "    cap = 30\n", "beta-cap", "limit"),
    "other-line-of-patched-function": (ALPHA, "        print(y)\n", "        print(y, flush=True)\n", None, "compute"),
}
VLLM_EDITS = {
    "inserted-statement": (
        VLLM_TARGET,
        "group_size = _radiance_kv_group_size(layer_buckets, spec_buckets, group_size, vllm_config)\n",
        "group_size = _radiance_kv_group_size(layer_buckets, spec_buckets, group_size, None)\n",
        "choose-size",
        "_get_kv_cache_groups_uniform_page_size",
    ),
    "injected-definition": (
        VLLM_TARGET,
        "    return -(-a // b)\n",
        "    return -(-a // b) + 0\n",
        "inject-selector",
        "_radiance_cdiv",
    ),
    "other-line-of-patched-function": (
        VLLM_TARGET,
        "        num_groups = cdiv(len(layers), group_size)\n",
        "        num_groups = cdiv(len(layers), group_size) + 0\n",
        None,
        "_get_kv_cache_groups_uniform_page_size",
    ),
}


def _edit_patched(env: Env, rel: str, old: str, new: str) -> bytes:
    out = env.run("apply", env.patch)
    assert out.returncode == 0, out.stderr
    assert_settled(env, applied=True)
    text = env.path(rel).read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in the patched {rel}"
    edited = text.replace(old, new).encode()
    env.path(rel).write_bytes(edited)  # in place, as an editor would
    return edited


def _drift_is_refused(env: Env, rel: str, old: str, new: str) -> None:
    edited = _edit_patched(env, rel, old, new)
    problems = []
    st = env.status()
    file_state = {f["path"]: f["state"] for f in st["files"]}[str(env.path(rel))]  # type: ignore[union-attr, index]
    if st["state"] != "drifted" or file_state != "drifted":
        problems.append(f"status says {st['state']!r} (file: {file_state!r}) for a hand-edited patched file")
    for op in ("apply", "revert"):
        out = env.run(op, env.patch)
        if out.returncode != 1:
            problems.append(f"`{op}` exits {out.returncode}, not 1: {(out.stdout + out.stderr).strip()[:200]}")
        if env.path(rel).read_bytes() != edited:
            problems.append(f"`{op}` changed the drifted file")
            env.path(rel).write_bytes(edited)
    check = env.run("status", "--check", env.patch)
    if check.returncode != 3:
        problems.append(f"`status --check` exits {check.returncode}, not 3")
    assert not problems, "\n".join(problems)


def _drift_is_named(env: Env, rel: str, old: str, new: str, rewrite: str | None, scope: str) -> None:
    _edit_patched(env, rel, old, new)
    st = env.status()
    reason = str(st["reason"])
    assert st["state"] == "drifted", f"reported {st['state']!r}: {reason}"
    assert scope in reason, f"status does not name the scope {scope!r}: {reason}"
    if rewrite is not None:
        assert rewrite in reason, f"status does not name the rewrite {rewrite!r}: {reason}"


@pytest.mark.parametrize("edit", list(DEMO_EDITS))
def test_hand_edited_patched_file_is_drift_and_refused(demo_env: Env, edit: str) -> None:
    rel, old, new, _, _ = DEMO_EDITS[edit]
    _drift_is_refused(demo_env, rel, old, new)


@pytest.mark.parametrize("edit", list(DEMO_EDITS))
def test_drift_status_names_rewrite_and_scope(demo_env: Env, edit: str) -> None:
    _drift_is_named(demo_env, *DEMO_EDITS[edit])


@pytest.mark.vllm
@pytest.mark.parametrize("edit", list(VLLM_EDITS))
def test_hand_edited_patched_file_is_drift_and_refused_kv_group_size(vllm_install_env: Env, edit: str) -> None:
    rel, old, new, _, _ = VLLM_EDITS[edit]
    _drift_is_refused(vllm_install_env, rel, old, new)


@pytest.mark.vllm
@pytest.mark.parametrize("edit", list(VLLM_EDITS))
def test_drift_status_names_rewrite_and_scope_kv_group_size(vllm_install_env: Env, edit: str) -> None:
    _drift_is_named(vllm_install_env, *VLLM_EDITS[edit])


# --- formatting / comments only: not drift -----------------------------------------------------------

DEMO_COSMETIC = {
    "comment-line-elsewhere": (ALPHA, "import os\n", "import os\n# a local note, not in the wheel\n"),
    "reformatted-anchor": (ALPHA, "    y = x + 1\n", "    y = (x+1)  # reformatted\n"),
    "comment-in-replaced-function": (BETA, "    cap = 10\n", "    # the cap\n    cap = 10  # upstream\n"),
}
VLLM_COSMETIC = {
    "comment-line-elsewhere": (
        VLLM_TARGET,
        "\ndef get_uniform_page_size(",
        "\n# a local note, not in the wheel\ndef get_uniform_page_size(",
    ),
    "reformatted-anchor": (
        VLLM_TARGET,
        "    if max_num_layers < min_num_layers * 1.5:\n",
        "    if (max_num_layers < min_num_layers*1.5):  # reformatted\n",
    ),
}


def _cosmetic_is_not_drift(env: Env, rel: str, old: str, new: str) -> None:
    text = env.path(rel).read_text()
    assert text.count(old) == 1
    edited = text.replace(old, new, 1).encode()
    env.path(rel).write_bytes(edited)
    env.original[rel] = edited  # the "original" is now this file
    st = env.status()
    assert st["state"] == "not-applied", f"a comment/formatting change is reported {st['state']!r}: {st['reason']}"
    f = {f["path"]: f for f in st["files"]}[str(env.path(rel))]  # type: ignore[union-attr, index]
    assert f["wheel_record_match"] is False and f["state"] == "not-applied"
    out = env.run("apply", env.patch)
    assert out.returncode == 0, out.stderr
    patched = env.path(rel).read_bytes()
    comments = [line.split("#", 1)[1] for line in new.splitlines() if "#" in line]
    assert patched != edited and all(c.encode() in patched for c in comments), "apply lost the comments"
    env.patched[rel] = patched
    assert env.status()["state"] == "applied"
    out = env.run("revert", env.patch)
    assert out.returncode == 0, out.stderr
    assert env.path(rel).read_bytes() == edited, "revert did not give back the edited file byte for byte"
    assert_settled(env, applied=False)


@pytest.mark.parametrize("edit", list(DEMO_COSMETIC))
def test_comment_or_formatting_change_is_not_drift(demo_env: Env, edit: str) -> None:
    _cosmetic_is_not_drift(demo_env, *DEMO_COSMETIC[edit])


@pytest.mark.vllm
@pytest.mark.parametrize("edit", list(VLLM_COSMETIC))
def test_comment_or_formatting_change_is_not_drift_kv_group_size(vllm_install_env: Env, edit: str) -> None:
    _cosmetic_is_not_drift(vllm_install_env, *VLLM_COSMETIC[edit])
