"""A hand-written insert anchored where undoing it would take away an identical statement beside it
(att20 F1): on the release the file reads as patched, and apply refuses it as "already contains".
The code cannot tell the two apart, so the refusal stays; its hint says how to write the entry so
that it can (anchor on the twin), and the entry written that way applies and reverts byte for byte.
The demo distribution is pip-installed in a real venv (tests/lib/installed.py); radpatch runs as
its own process."""

from __future__ import annotations

from pathlib import Path

from tests.lib.installed import DEMO_FILES, Env, add_registry, beta_entry

BETA = "rphard_demo/sub/beta.py"


def entry(env: Env, tmp: Path, name: str, op: str) -> None:
    add_registry(env, tmp, name, beta_entry(op, rewrite_id="twin"))


def test_an_insert_whose_undo_takes_its_twin_is_refused_with_the_anchor_that_works(
    demo_env: Env, tmp_path: Path
) -> None:
    env = demo_env
    pristine = env.path(BETA).read_bytes()
    entry(env, tmp_path, "below", 'insert_before: {scope: limit, find: "return min(n, cap)", code: "cap = 10"}')
    out = env.run("apply", "below")
    assert out.returncode == 1 and "already contains" in out.stderr, out
    assert "anchor the insert on that statement" in out.stderr, out.stderr
    assert env.path(BETA).read_bytes() == pristine

    entry(env, tmp_path, "twin", 'insert_after: {scope: limit, find: "cap = 10", code: "cap = 10", occurrence: 1}')
    out = env.run("apply", "twin")
    assert out.returncode == 0, out.stderr
    assert env.path(BETA).read_text() == DEMO_FILES[BETA].replace("cap = 10\n", "cap = 10\n    cap = 10\n")
    assert env.run("status", "--check", "twin").returncode == 0
    assert env.run("revert", "twin").returncode == 0
    assert env.path(BETA).read_bytes() == pristine
