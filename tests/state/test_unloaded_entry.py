"""A recorded entry whose registry entry is not loaded (renamed, dropped from the shipped registry,
or its --registry not given) is still in the install: `status` lists it, reading its state from
the record alone (as the engine-start check does), `status --check` passes only when its files
are as radpatch wrote them, and `revert` takes it off from the record alone (kept originals,
only onto files exactly as radpatch left them). On a real wheel pip-installed into a venv
(tests/lib/installed.py's demo), radpatch run as its own process."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.lib.installed import DEMO_PATCH, DEMO_TARGETS, Env
from tests.lib.registry import entry_head, write_entry


def _applied_then_unloaded(env: Env) -> tuple[str, ...]:
    out = env.run("apply", DEMO_PATCH)
    assert out.returncode == 0, out.stderr
    registries, env.registries = env.registries, ()  # the entry is in no registry given now
    return tuple(str(r) for r in registries)


def _listed(env: Env) -> dict[str, dict[str, object]]:
    out = env.run("status", "--json")
    assert out.returncode == 0, out.stderr
    return {s["patch"]: s for s in json.loads(out.stdout)}


def test_status_lists_it_and_check_passes_while_its_files_are_as_radpatch_wrote_them(demo_env: Env) -> None:
    _applied_then_unloaded(demo_env)
    listed = _listed(demo_env)
    assert DEMO_PATCH in listed, listed.keys()
    st = listed[DEMO_PATCH]
    assert st["state"] == "applied" and "not loaded" in str(st["reason"]), st
    assert st["registry_digest"] is None and st["applied_registry_digest"], st
    assert {f["state"] for f in st["files"]} == {"applied"}, st  # type: ignore[attr-defined]
    table = demo_env.run("status")
    assert table.returncode == 0 and DEMO_PATCH in table.stdout and "not loaded" in table.stdout, table.stdout
    assert demo_env.run("status", "--check").returncode == 0
    assert demo_env.run("status", "--check", DEMO_PATCH).returncode == 0


def test_check_fails_when_a_file_of_it_changed_since(demo_env: Env) -> None:
    _applied_then_unloaded(demo_env)
    path = demo_env.path(DEMO_TARGETS[1])
    path.write_text(path.read_text().replace("return min(n, cap)", "return max(n, cap)"))
    check = demo_env.run("status", "--check")
    assert check.returncode == 3, check.stdout + check.stderr
    assert DEMO_PATCH in check.stderr and "drifted" in check.stderr, check.stderr
    assert _listed(demo_env)[DEMO_PATCH]["state"] == "drifted"
    out = demo_env.run("revert", DEMO_PATCH)  # nothing is written over someone else's code
    assert out.returncode == 1, out.stdout + out.stderr
    assert demo_env.path(DEMO_TARGETS[0]).read_bytes() == demo_env.patched[DEMO_TARGETS[0]]


def test_revert_restores_the_kept_originals_from_the_record_alone(demo_env: Env) -> None:
    _applied_then_unloaded(demo_env)
    out = demo_env.run("revert", DEMO_PATCH)
    assert out.returncode == 0, out.stdout + out.stderr
    assert demo_env.read() == demo_env.original
    assert not demo_env.state_dir.exists()  # nothing is recorded any more
    assert DEMO_PATCH not in _listed(demo_env)


def test_revert_of_a_file_with_a_comment_added_since_keeps_it_from_the_record_alone(demo_env: Env) -> None:
    """The link's kept original and kept result carry the comment over (prove.undo, att21c F8)."""
    _applied_then_unloaded(demo_env)
    path = demo_env.path(DEMO_TARGETS[0])
    path.write_text(path.read_text() + "# a comment added since\n")
    out = demo_env.run("revert", DEMO_PATCH)
    assert out.returncode == 0, out.stdout + out.stderr
    assert path.read_bytes() == demo_env.original[DEMO_TARGETS[0]] + b"# a comment added since\n"
    assert demo_env.read()[DEMO_TARGETS[1]] == demo_env.original[DEMO_TARGETS[1]]


def test_revert_of_a_file_edited_since_without_its_kept_result_rebuilds_it_from_the_record_alone(
    demo_env: Env,
) -> None:
    """A record from before results were kept, a comment added apart from the patch's lines: the
    result is rebuilt from the kept original (state.kept, proven by its sha256) and the comment
    carried over, with no registry (before: refused naming --registry)."""
    _applied_then_unloaded(demo_env)
    path = demo_env.path(DEMO_TARGETS[0])
    (demo_env.state_dir / "originals" / hashlib.sha256(path.read_bytes()).hexdigest()).unlink()
    path.write_text(path.read_text() + "# a comment added since\n")
    out = demo_env.run("revert", DEMO_PATCH)
    assert out.returncode == 0, out.stdout + out.stderr
    assert path.read_bytes() == demo_env.original[DEMO_TARGETS[0]] + b"# a comment added since\n"
    assert "byte for byte" not in out.stdout, out.stdout
    assert demo_env.read()[DEMO_TARGETS[1]] == demo_env.original[DEMO_TARGETS[1]]


def test_revert_of_a_file_edited_beside_the_patch_without_its_kept_result_is_refused_naming_the_registry(
    demo_env: Env,
) -> None:
    """A record from before results were kept, a comment right below the patch's line (one line
    edit with it): the result cannot be rebuilt, so only the entry's rewrites can undo the file."""
    registries = _applied_then_unloaded(demo_env)
    path = demo_env.path(DEMO_TARGETS[0])
    (demo_env.state_dir / "originals" / hashlib.sha256(path.read_bytes()).hexdigest()).unlink()
    line = "    y = _rphard_double(y)\n"
    assert line in path.read_text()
    path.write_text(path.read_text().replace(line, line + "    # a comment added since\n"))
    assert _listed(demo_env)[DEMO_PATCH]["state"] == "applied"  # the code is radpatch's: the code hash
    out = demo_env.run("revert", DEMO_PATCH)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "--registry" in out.stderr, out.stderr
    assert demo_env.read()[DEMO_TARGETS[1]] == demo_env.patched[DEMO_TARGETS[1]]  # all or nothing
    again = demo_env.run("--registry", registries[0], "revert", DEMO_PATCH)  # the way out the hint names
    assert again.returncode == 0, again.stdout + again.stderr
    assert demo_env.read()[DEMO_TARGETS[1]] == demo_env.original[DEMO_TARGETS[1]]
    assert "    # a comment added since\n" in path.read_text()


STACKED = entry_head("s", "rphard-demo", {"m": "rphard_demo.alpha"}) + (
    '  - {op}: {{scope: {scope}, find: "{find}", code: "{code}"}}\n'
)


def test_a_stacked_pair_whose_lower_entry_is_not_loaded(demo_env: Env, tmp_path: Path) -> None:
    reg = tmp_path / "stack-registry"
    low = STACKED.format(op="insert_after", scope="compute", find="y = x + 1", code="y = y + 100")
    write_entry(reg, "low", low)
    high = STACKED.format(op="insert_before", scope="caller", find="return compute(2)", code="_high = 1")
    write_entry(reg, "high", high)
    demo_env.registries = (reg,)
    assert demo_env.run("apply", "low", "high").returncode == 0
    (reg / "low.yaml").rename(tmp_path / "low.yaml")  # renamed, or dropped from the registry
    listed = _listed(demo_env)
    assert (listed["low"]["state"], listed["high"]["state"]) == ("applied", "applied"), listed
    assert demo_env.run("status", "--check").returncode == 0
    # high is stacked on it and does not require it: lifted, it comes off, low comes off (from its
    # record alone), and high goes on again in one run (gx23; this was refused before)
    alone = demo_env.run("revert", "low")
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert "high: taken off and put on again without low" in alone.stdout
    # the file still carries high: low's change is taken out of it, the file is not "restored"
    said = next(line for line in alone.stdout.splitlines() if line.startswith("low: reverted"))
    assert said == "low: reverted; rphard_demo.alpha: its change taken out byte for byte (high stays on it)", said
    assert _listed(demo_env)["high"]["state"] == "applied"
    assert demo_env.run("status", "--check").returncode == 0
    rest = demo_env.run("revert", "high")
    assert rest.returncode == 0, rest.stdout + rest.stderr
    assert demo_env.read() == demo_env.original
    assert not demo_env.state_dir.exists()


def test_after_a_reinstall_it_reads_not_applied_and_revert_forgets_it(demo_env: Env) -> None:
    _applied_then_unloaded(demo_env)
    for rel, data in demo_env.original.items():  # what a reinstall does to the files: RECORD's bytes back
        demo_env.path(rel).write_bytes(data)
    assert _listed(demo_env)[DEMO_PATCH]["state"] == "not-applied"
    check = demo_env.run("status", "--check")
    assert check.returncode == 3 and DEMO_PATCH in check.stderr, check.stdout + check.stderr
    out = demo_env.run("revert", DEMO_PATCH)
    assert out.returncode == 0 and "nothing to revert" in out.stdout, out.stdout + out.stderr
    assert demo_env.read() == demo_env.original
    assert DEMO_PATCH not in demo_env.record()


def test_a_stacked_refusal_blames_the_patch_below_only_when_the_entry_applies_without_it(
    demo_env: Env, tmp_path: Path
) -> None:
    """attack37: with `low` applied, an entry refused by the proof on the installed bytes as well
    was told "cannot both be applied as written: revert low first", which does not help; the hint
    names `low` only when the entry applies on the installed bytes (its find is what low changed)."""
    reg = tmp_path / "blame-registry"
    write_entry(reg, "low", STACKED.format(op="insert_after", scope="compute", find="y = x + 1", code="y = y + 100"))
    # refused anywhere: reads a name nothing binds
    write_entry(
        reg, "broken", STACKED.format(op="insert_before", scope="caller", find="return compute(2)", code="_z = nowhere")
    )
    # applies on the installed bytes, not on what `lower` (a replace of its find) left, which it says it goes on
    swap = STACKED.format(op="replace", scope="compute", find="y = x + 1", code="y = x + 3").replace("code:", "with:")
    write_entry(reg, "lower", swap)
    clash = swap.replace("y = x + 3", "y = x + 2").replace("rewrites:", "requires: [lower]\nrewrites:", 1)
    write_entry(reg, "clash", clash)
    demo_env.registries = (reg,)
    assert demo_env.run("apply", "low").returncode == 0
    alone = demo_env.run("apply", "broken")
    assert alone.returncode == 1 and "nowhere" in alone.stderr, alone.stderr
    assert "cannot both be applied as written" not in alone.stderr, alone.stderr
    assert demo_env.run("revert", "low").returncode == 0
    assert demo_env.run("apply", "lower").returncode == 0
    both = demo_env.run("apply", "clash")
    assert both.returncode == 1, both.stdout + both.stderr
    assert "clash and lower cannot both be applied as written" in both.stderr, both.stderr
