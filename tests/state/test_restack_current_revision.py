"""A re-apply that rebuilds a file's chain (a revised entry under a stacked one) puts each patch
back only as a fresh `apply` of its current revision would (docs/state.md, "What apply and revert
do with it"): one whose entry no longer supports the installed version is refused, naming it; one
whose entry now declares the version `obsolete:` is taken off and not put back. On a real wheel
pip-installed into a venv (tests/lib/installed.py's demo), radpatch run as its own process."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.lib.installed import DEMO_DIST, Env, alpha_entry
from tests.lib.registry import write_entry

ALPHA = "rphard_demo/alpha.py"


def entry(scope: str, find: str, code: str) -> str:
    return alpha_entry("insert_after", scope, find, code)


LOW = ("compute", "y = x + 1", "y = y + 100")


def high(extra: str = "", supported: str = ">=1.0,<2") -> str:
    return (
        textwrap.dedent(f"""\
        summary: s
        description: d
        distribution: {DEMO_DIST}
        supported: "{supported}"
        modules:
          m: rphard_demo.alpha
        rewrites:
          - insert_before: {{scope: caller, find: "return compute(2)", code: "_high = 1000"}}
        """)
        + extra
    )


@pytest.fixture
def stacked(demo_env: Env, tmp_path: Path) -> tuple[Env, Path]:
    reg = tmp_path / "stack-registry"
    write_entry(reg, "low", entry(*LOW))
    write_entry(reg, "high", high())
    demo_env.registries = (*demo_env.registries, reg)
    out = demo_env.run("apply", "low", "high")
    assert out.returncode == 0, out.stdout + out.stderr
    text = demo_env.path(ALPHA).read_text()
    assert "y = y + 100" in text and "_high = 1000" in text
    return demo_env, reg


def _states(env: Env) -> dict[str, str]:
    out = env.run("status", "--json", "low", "high")
    assert out.returncode == 0, out.stderr
    return {s["patch"]: s["state"] for s in json.loads(out.stdout)}


def test_a_stacked_entry_whose_current_revision_refuses_the_version_is_not_put_back(stacked: tuple[Env, Path]) -> None:
    env, reg = stacked
    write_entry(reg, "high", high(supported="<1.0"))
    write_entry(reg, "low", entry("compute", "y = x + 1", "y = y + 400"))
    before = env.path(ALPHA).read_bytes()
    fresh = env.run("apply", "high")  # what a fresh apply of the current revision says of it
    out = env.run("apply", "low", "high")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "high" in out.stderr and "<1.0" in out.stderr, out.stderr
    assert "radpatch revert high" in out.stderr, out.stderr  # the way out
    assert env.path(ALPHA).read_bytes() == before  # nothing written
    assert fresh.returncode == 0 and "high" in fresh.stdout  # applied and declined: only revert applies
    # the way out the refusal names works, and the chain is rebuilt with the new revision of low
    assert env.run("revert", "high").returncode == 0
    again = env.run("apply", "low")
    assert again.returncode == 0, again.stderr
    text = env.path(ALPHA).read_text()
    assert "y = y + 400" in text and "y = y + 100" not in text and "_high" not in text
    assert env.run("revert", "low").returncode == 0
    assert env.read() == env.original


def test_a_stacked_entry_now_declared_obsolete_is_taken_off_and_not_put_back(stacked: tuple[Env, Path]) -> None:
    env, reg = stacked
    write_entry(reg, "high", high(extra='obsolete: ">=1.0"\n'))
    write_entry(reg, "low", entry("compute", "y = x + 1", "y = y + 400"))
    out = env.run("apply", "low", "high")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "high" in out.stdout and "not put back" in out.stdout, out.stdout
    text = env.path(ALPHA).read_text()
    assert "y = y + 400" in text and "y = y + 100" not in text
    assert "_high" not in text  # what a fresh apply of high's current revision does on this version: nothing
    assert _states(env) == {"low": "applied", "high": "obsolete"}
    assert "high" not in json.loads((env.state_dir / "record.json").read_text())["patches"]
    assert env.run("status", "--check").returncode == 0
    assert env.run("revert", "low").returncode == 0
    assert env.read() == env.original
