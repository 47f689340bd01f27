"""A record written by a newer radpatch (an unknown `format:`) is refused by every command, with
exit 4 and what to do (upgrade radpatch), never read or acted on: its fields may mean what this
radpatch cannot know. On a real wheel pip-installed into a venv (tests/lib/installed.py's demo)."""

from __future__ import annotations

import json

import pytest

from tests.lib.installed import DEMO_PATCH, Env


@pytest.mark.parametrize("command", [("status",), ("status", "--check"), ("revert", DEMO_PATCH), ("apply", DEMO_PATCH)])
def test_a_record_of_a_newer_format_is_refused_never_acted_on(demo_env: Env, command: tuple[str, ...]) -> None:
    assert demo_env.run("apply", DEMO_PATCH).returncode == 0
    path = demo_env.state_dir / "record.json"
    record = json.loads(path.read_text())
    record["format"] += 95  # what a radpatch from the future writes
    path.write_text(json.dumps(record))
    before = demo_env.snapshot()
    out = demo_env.run(*command)
    assert out.returncode == 4, out.stdout + out.stderr
    assert "written by a newer radpatch" in out.stderr and "upgrade radpatch" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert demo_env.snapshot() == before  # nothing written: not the files, not the record


@pytest.mark.parametrize("value", ['"4"', "0", "true", "null"])
def test_a_record_whose_format_is_no_format_number_is_unreadable(demo_env: Env, value: str) -> None:
    assert demo_env.run("apply", DEMO_PATCH).returncode == 0
    path = demo_env.state_dir / "record.json"
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "format": json.loads(value)}))
    out = demo_env.run("status")
    assert out.returncode == 4 and "record.json is unreadable" in out.stderr, out.stdout + out.stderr
