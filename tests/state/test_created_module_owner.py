"""Who owns a module an entry creates (issues 20, 21; att63 F5; docs/state.md, "Who owns a created
module"): radpatch, when it wrote the bytes (revert deletes them), or whoever put them there before
apply recorded them (revert leaves them).

On the demo wheel pip-installed into a real venv, radpatch run as its own process: `n` creates
rphard_demo/extra/newmod.py (a directory the wheel does not have), `s` (`requires: [n]`) changes it.
- radpatch wrote the module, then `pip install -U` (the module is in no RECORD: pip leaves it): n and s
  read applied without a record for this install; `apply n s` records them again, `revert n s` deletes it;
- an apply killed once the module is written, then `pip install -U`: the recovery removes the module;
- the module written by hand (n's content, or n's then s's): apply adopts it, revert leaves it;
- a record of format 5 (before radpatch said who wrote a created module): revert deletes the entry's own
  bytes (its content file), and leaves any other bytes.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.lib.installed import DEMO_DIST, DEMO_FILES, Env
from tests.lib.registry import write_entry
from tests.lib.venvs import pip
from tests.lib.wheels import build_wheel

NEW = "rphard_demo/extra/newmod.py"
MADE = 'def hello():\n    return "hi"\n'
CHANGED = MADE.replace('"hi"', '"hello"')
N = """\
    summary: n
    description: creates rphard_demo.extra.newmod
    distribution: rphard-demo
    supported: ">=1.0,<2"
    modules:
      m: rphard_demo.extra.newmod
    rewrites:
      - id: create
        file: m
        create_module: {content: newmod.py}
    """
S = """\
    summary: s
    description: changes it
    distribution: rphard-demo
    supported: ">=1.0,<2"
    requires: [n]
    modules:
      m: rphard_demo.extra.newmod
    rewrites:
      - id: r
        file: m
        replace: {scope: hello, find: return "hi", with: return "hello"}
    """


@pytest.fixture
def env(demo_env: Env, tmp_path: Path) -> Env:
    reg = tmp_path / "reg"
    write_entry(reg, "n", N, {"newmod.py": MADE})
    write_entry(reg, "s", S)
    return dataclasses.replace(demo_env, registries=(reg,))


def ok(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 0, f"exit {out.returncode}:\n{out.stdout}{out.stderr}"
    return out.stdout


def upgrade(env: Env, tmp: Path) -> None:
    """pip install -U: another release of the demo distribution (another install: the record is stale)."""
    files = {**DEMO_FILES, "rphard_demo/alpha.py": DEMO_FILES["rphard_demo/alpha.py"].replace("upstream", "newer")}
    wheel = build_wheel(tmp / "wheels-up", DEMO_DIST, "1.0.1", files)
    pip(env.python, "install", "--no-deps", "--no-index", str(wheel))


def states(env: Env, *names: str) -> dict[str, tuple[str, bool]]:
    """name -> (state, recorded for this install)."""
    out = json.loads(ok(env.run("status", "--json", *names)))
    return {s["patch"]: (s["state"], s["applied_registry_digest"] is not None) for s in out}


def links(env: Env, name: str) -> list[dict[str, object]]:
    return json.loads((env.state_dir / "record.json").read_text())["patches"][name]["files"]


@pytest.mark.parametrize("then", ["apply", "revert"])
def test_radpatchs_own_module_left_by_an_upgrade_is_its_own(env: Env, tmp_path: Path, then: str) -> None:
    """att63 F5: n read drifted ("delete the file"), s drifted, `apply n s` adopted it as a module
    someone else wrote, `revert n s` was refused. Its bytes are exactly what radpatch's record (of the
    old install) says radpatch wrote from no file: both read applied, unrecorded for this install;
    `apply n s` records it as radpatch's (revert deletes it), and `revert n s` deletes it at once."""
    ok(env.run("apply", "n", "s"))
    upgrade(env, tmp_path)
    assert env.path(NEW).read_text() == CHANGED  # pip left it
    assert states(env, "n", "s") == {"n": ("applied", False), "s": ("applied", False)}
    said = ok(env.run("status", "n"))
    assert "shows radpatch wrote it from no file: n, then s" in said and "radpatch apply n s" in said, said
    assert env.run("status", "--check", "n", "s").returncode == 3  # no record for this install yet
    if then == "apply":
        out = ok(env.run("apply", "n", "s"))
        assert "n: adopted" in out and "revert removes it (radpatch's record shows it wrote it)" in out, out
        assert links(env, "n")[0]["written"] is True
        assert states(env, "n", "s") == {"n": ("applied", True), "s": ("applied", True)}
        ok(env.run("status", "--check", "n", "s"))
    out = ok(env.run("revert", "n", "s"))
    assert "removed (the patch created it)" in out, out
    assert not env.path(NEW).exists() and not env.path("rphard_demo/extra").exists()
    assert not env.state_dir.exists()


def test_a_module_an_apply_wrote_before_it_was_killed_and_pip_upgraded_is_removed(env: Env, tmp_path: Path) -> None:
    """fix65's leftover: the apply that created the module was killed before its record, then pip
    upgraded the distribution. The journal says the run created the file, and it is exactly the run's
    bytes, in no RECORD: the recovery removes it (as it does on the same install), and the next apply
    writes it anew as radpatch's own."""
    out = env.run("apply", "n", fault="before-record:1")
    assert out.returncode == -signal.SIGKILL, (out.returncode, out.stderr)
    assert env.path(NEW).read_text() == MADE
    upgrade(env, tmp_path)
    out = ok(env.run("apply", "n"))
    assert f"removed {env.path(NEW)} (that interrupted apply created it; no install has it)" in out, out
    assert "n: applied to" in out, out
    assert links(env, "n")[0]["written"] is True
    ok(env.run("revert", "n"))
    assert not env.path("rphard_demo/extra").exists()


@pytest.mark.parametrize("names", [("n",), ("n", "s")])
def test_a_module_written_by_hand_is_adopted_and_revert_leaves_it(env: Env, names: tuple[str, ...]) -> None:
    """The module exactly as n (then s) makes it, written by hand: apply adopts it as a module it found
    (its link from its bytes to themselves, kept as its original), and revert leaves it in place (s's
    change taken out, as for any adopted change), saying so; n then reads applied by its code."""
    env.path(NEW).parent.mkdir()
    env.path(NEW).write_text(CHANGED if "s" in names else MADE)
    out = ok(env.run("apply", *names))
    assert "n: adopted" in out and "revert leaves it in place (radpatch did not write it)" in out, out
    (link,) = links(env, "n")
    assert link["original_sha256"] == link["patched_sha256"] and link["made_dirs"] == [] and "written" not in link
    assert '+    return "hi"' in ok(env.run("diff", "n"))  # the entry's change is the module all the same
    out = ok(env.run("revert", *names))
    assert "rphard_demo.extra.newmod left in place (it was there when radpatch recorded it" in out, out
    assert env.path(NEW).read_text() == MADE
    assert states(env, "n") == {"n": ("applied", False)}


def _as_format_5(env: Env, name: str, from_no_file: bool = False) -> None:
    """radpatch's record rewritten as a radpatch before format 6 wrote it: no `written`; a module it
    adopted was a link from no file too (`from_no_file`)."""
    path = env.state_dir / "record.json"
    record = json.loads(path.read_text())
    record["format"] = 5
    for link in record["patches"][name]["files"]:
        link.pop("written", None)
        if from_no_file:
            link["original_sha256"], link["made_dirs"] = "0" * 64, []
    path.write_text(json.dumps(record))


def test_a_record_from_before_radpatch_said_who_wrote_a_module_deletes_the_entrys_own_bytes(env: Env) -> None:
    """A record of format 5 cannot show radpatch wrote a module from no file; but a file still exactly
    the bytes recorded and the entry's content file is the registry's own: revert deletes it, as radpatch
    did before format 6 (nothing is lost), and leaves nothing in place."""
    ok(env.run("apply", "n"))
    _as_format_5(env, "n")
    assert states(env, "n") == {"n": ("applied", True)}
    out = ok(env.run("revert", "n"))
    assert "left in place" not in out, out
    assert not env.path(NEW).exists()


def test_a_record_from_before_radpatch_said_who_wrote_a_module_leaves_other_bytes(env: Env) -> None:
    """An older capture or apply recorded a hand-written module (AST-equal to the content, with a comment
    of its own) as created, a link from no file: a record of format 5 cannot show radpatch wrote it, and
    its bytes are not the registry's, so revert leaves it in place, saying so."""
    mine = "# mine\n" + MADE
    env.path(NEW).parent.mkdir(parents=True, exist_ok=True)
    env.path(NEW).write_text(mine)
    ok(env.run("apply", "n"))  # adopted: a found link
    _as_format_5(env, "n", from_no_file=True)
    assert states(env, "n") == {"n": ("applied", True)}
    out = ok(env.run("revert", "n"))
    assert "cannot show radpatch wrote it: delete it if it is left over" in out, out
    assert env.path(NEW).read_text() == mine
    assert textwrap.dedent(out).count("left in place") == 1


def test_a_found_module_deleted_by_hand_reads_not_applied(env: Env) -> None:
    """A module apply found (adopted), then deleted by hand: as a module radpatch created and someone
    deleted, n reads not applied (its state before it made the module), in status and the engine-start
    check's hashes alike; revert forgets the record, and apply writes the module as radpatch's own."""
    env.path(NEW).parent.mkdir()
    env.path(NEW).write_text(MADE)
    ok(env.run("apply", "n"))
    env.path(NEW).unlink()
    assert states(env, "n")["n"][0] == "not-applied"
    assert env.run("status", "--check", "n").returncode == 3
    assert "nothing to revert" in ok(env.run("revert", "n"))
    assert "n: applied to" in ok(env.run("apply", "n"))
    assert links(env, "n")[0]["written"] is True
