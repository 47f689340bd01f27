"""Issue 10 classes 4-7 and issue 11.6 on real installs: radpatch never writes bytes it did not
plan, never trusts a record across installs, and never mistakes upstream's code for its own.

Every target is a wheel pip-installed into a real venv (tests/lib/installed.py); radpatch
runs as its own process. Other versions of the demo distribution are built here as real wheels
and installed over it with pip, as an upgrade would be.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.lib.installed import (
    DEMO_DIST,
    DEMO_FILES,
    DEMO_REGISTRY,
    Env,
    add_registry,
    assert_settled,
    beta_entry,
    sha256,
)
from tests.lib.registry import write_entry
from tests.lib.venvs import pip
from tests.lib.wheels import build_wheel

ALPHA, BETA = "rphard_demo/alpha.py", "rphard_demo/sub/beta.py"


def install_version(env: Env, tmp: Path, version: str, files: dict[str, str]) -> None:
    """pip installs another version of the demo distribution over the current one (an upgrade)."""
    wheel = build_wheel(tmp / f"wheels-{version}", DEMO_DIST, version, files)
    pip(env.python, "install", "--no-deps", "--no-index", "--find-links", str(wheel.parent), f"{DEMO_DIST}=={version}")


def ok(out: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert out.returncode == 0, f"exit {out.returncode}:\n{out.stdout}{out.stderr}"
    return out


def one_patch(scope: str, find: str, with_: str) -> str:
    return beta_entry(f'replace: {{scope: {scope}, find: "{find}", with: "{with_}"}}')


# --- class 4: upstream already has the change -----------------------------------------------------


def test_a_release_that_already_contains_the_change_is_not_radpatchs(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    upstream = {**DEMO_FILES, ALPHA: env.patched[ALPHA].decode(), BETA: env.patched[BETA].decode()}
    install_version(env, tmp_path, "1.1.0", upstream)  # upstream took the change, byte for byte
    st = env.status()
    assert st["state"] == "not-applied", st  # pristine (RECORD's hashes), never "applied"
    out = env.run("apply", env.patch)
    assert out.returncode == 1, out
    assert "already contains what the patch adds" in out.stderr and "obsolete" in out.stderr, out.stderr
    out = ok(env.run("revert", env.patch))
    assert "not applied; nothing to revert" in out.stdout
    assert env.read() == {rel: upstream[rel].encode() for rel in env.targets}, "revert deleted upstream's own code"


def test_a_release_that_already_has_one_rewrites_code_is_refused(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    add_registry(
        env,
        tmp_path,
        "two",
        textwrap.dedent("""\
        summary: s
        description: d
        distribution: rphard-demo
        supported: ">=1.0,<2"
        modules:
          beta: rphard_demo.sub.beta
        rewrites:
          - id: grow
            file: beta
            insert_after: {scope: limit, find: "cap = 10", code: "cap = cap + 5"}
          - id: widen
            file: beta
            replace: {scope: limit, find: "min(n, cap)", with: "max(n, cap)"}
        """),
    )
    upstream = {**DEMO_FILES, BETA: DEMO_FILES[BETA].replace("cap = 10\n", "cap = 10\n    cap = cap + 5\n")}
    install_version(env, tmp_path, "1.1.0", upstream)  # the release already has the inserted statement
    out = env.run("apply", "two")
    assert out.returncode == 1 and "already contains what rewrite 'grow' adds" in out.stderr, out
    assert env.path(BETA).read_text().count("cap = cap + 5") == 1


# --- class 5: state trusted across versions, writes over files that changed ------------------------


def test_after_an_upgrade_the_old_record_is_not_trusted(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    new = {**DEMO_FILES, ALPHA: env.patched[ALPHA].decode(), BETA: env.patched[BETA].decode()}
    install_version(env, tmp_path, "1.1.0", new)  # the new release's files equal the old patched bytes
    st = env.status()
    assert st["state"] == "not-applied" and "not trusted" in str(st["reason"]), st
    out = ok(env.run("revert", env.patch))
    assert env.read() == {rel: new[rel].encode() for rel in env.targets}, "revert wrote 1.0.0's original into 1.1.0"
    assert env.patch not in env.record(), out.stdout


def test_recovery_leaves_a_file_pip_replaced_since_the_interrupted_run(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    killed = env.run("apply", env.patch, fault="after-file:1")
    assert killed.returncode == -signal.SIGKILL
    newer = {**DEMO_FILES, ALPHA: DEMO_FILES[ALPHA].replace("x + 1", "x + 2")}
    install_version(env, tmp_path, "1.0.1", newer)
    out = env.run("revert", env.patch)
    assert out.returncode == 0, out.stderr
    assert "left" in out.stdout and ALPHA in out.stdout, out.stdout
    assert env.path(ALPHA).read_bytes() == newer[ALPHA].encode(), "recovery overwrote the newer module"
    assert not (env.state_dir / "journal").exists()


def test_a_file_replaced_between_planning_and_writing_is_not_overwritten(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    proc = env.popen("apply", env.patch, fault="before-file:1:stop")
    for _ in range(100_000):  # bounded: wait for the stop, whatever the machine's load
        if proc.poll() is not None or _stopped(proc.pid):
            break
        os.sched_yield()
    assert _stopped(proc.pid), proc.communicate()
    theirs = DEMO_FILES[ALPHA].replace("x + 1", "x + 3").encode()
    tmp = env.path(ALPHA).with_name(".pip-tmp")
    tmp.write_bytes(theirs)
    os.replace(tmp, env.path(ALPHA))  # a concurrent writer (pip) replaces the file under the run
    os.kill(proc.pid, signal.SIGCONT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 4, err
    assert "changed while radpatch was writing" in err, err
    assert env.path(ALPHA).read_bytes() == theirs
    assert env.path(BETA).read_bytes() == env.original[BETA]
    assert not (env.state_dir / "journal").exists() and env.patch not in env.record()


def _stopped(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return False


def test_a_run_over_two_site_directories_is_refused_up_front(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    other = tmp_path / "other-site"
    wheel = build_wheel(
        tmp_path / "two",
        "rphard-two",
        "1.0",
        {"rphard_two/__init__.py": "", "rphard_two/mod.py": "def f():\n    n = 1\n    return n\n"},
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(other), str(wheel)],
        check=True,
    )
    add_registry(
        env,
        tmp_path,
        "rptwo",
        """\
        summary: s
        description: d
        distribution: rphard-two
        supported: ">=1.0"
        modules:
          m: rphard_two.mod
        rewrites:
          - id: r
            file: m
            replace: {scope: f, find: "n = 1", with: "n = 2"}
        """,
    )
    before = (other / "rphard_two/mod.py").read_bytes()
    out = env.run("apply", env.patch, "rptwo", PYTHONPATH=str(other))
    assert out.returncode == 1, out
    assert "2 installation directories" in out.stderr, out.stderr
    assert env.read() == env.original and (other / "rphard_two/mod.py").read_bytes() == before
    ok(env.run("apply", "rptwo", PYTHONPATH=str(other)))  # one directory per run works


# --- class 6: misleading states ----------------------------------------------------------------------


def test_an_edit_to_radpatchs_injected_code_is_drift(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    add_registry(
        env,
        tmp_path,
        "grow",
        beta_entry('insert_after: {scope: limit, find: "cap = 10", code: "cap = cap + 5"}'),
    )
    ok(env.run("apply", "grow"))
    beta = env.path(BETA)
    beta.write_text(beta.read_text().replace("cap = cap + 5", "cap = cap + 6"))  # someone edits radpatch's line
    st = env.status("grow")
    assert st["state"] == "drifted" and "edited since it was applied" in str(st["reason"]), st
    assert env.run("apply", "grow").returncode == 1
    assert "cap = cap + 5" not in beta.read_text(), "apply stacked the patch on the edited one"


def test_reordering_statements_is_drift_not_layout(demo_env: Env) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    alpha = env.path(ALPHA)
    text = alpha.read_text()
    head, caller = text.split("\n\ndef caller", 1)
    body_start = head.index("\n\ndef _rphard_double")
    alpha.write_text(head[:body_start] + "\n\ndef caller" + caller.rstrip("\n") + "\n" + head[body_start:] + "\n")
    assert "def caller" in alpha.read_text().split("def compute")[0]
    st = env.status()
    assert st["state"] == "drifted" and "moved" in str(st["reason"]), st
    assert env.run("revert", env.patch).returncode == 1


def test_a_patch_with_no_rewrite_for_the_installed_version_says_so(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    add_registry(
        env,
        tmp_path,
        "later",
        one_patch("limit", "cap = 10", "cap = 11").replace("  - id: r\n", '  - id: r\n    versions: ">=1.5"\n'),
    )
    st = env.status("later")
    assert st["state"] == "incompatible" and "has no rewrite for rphard-demo 1.0.0" in str(st["reason"]), st
    assert "reinstall" not in str(st["reason"])


def test_an_entry_declaring_the_version_obsolete_later_does_not_hide_a_patched_file(demo_env: Env) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    obsolete = DEMO_REGISTRY.replace('supported: ">=1.0,<2"\n', 'supported: ">=1.0,<2"\nobsolete: ">=1.0"\n')
    write_entry(env.registries[0], env.patch, obsolete, dedent=False)
    try:
        st = env.status()
        assert st["state"] == "applied", st
        out = ok(env.run("apply", env.patch))  # the entry declines this version now: apply changes nothing
        assert "nothing to apply" in out.stdout and env.read() == env.patched, out.stdout
        ok(env.run("revert", env.patch))
        assert env.read() == env.original
    finally:
        write_entry(env.registries[0], env.patch, DEMO_REGISTRY, dedent=False)  # the demo's registry is shared


def test_two_patches_overlapping_on_one_file(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    add_registry(env, tmp_path, "low", one_patch("limit", "cap = 10", "cap = 15"))
    add_registry(env, tmp_path, "high", one_patch("limit", "cap = 15", "cap = 30"))
    ok(env.run("apply", "low"))
    ok(env.run("apply", "high"))
    for name in ("low", "high"):
        st = env.status(name)
        assert st["state"] == "applied", st  # never "drifted ... reinstall": that would wipe radpatch's own patch
    out = env.run("revert", "low")
    assert out.returncode == 1 and "radpatch revert low high" in out.stderr and "reinstall" not in out.stderr, (
        out.stderr
    )
    ok(env.run("revert", "high", "low"))  # in any order on the command line: newest first
    assert env.path(BETA).read_bytes() == env.original[BETA]


def test_stacked_status_is_decided_by_hashes_alone(demo_env: Env, tmp_path: Path) -> None:
    env = demo_env
    add_registry(env, tmp_path, "low", one_patch("limit", "cap = 10", "cap = 15"))
    add_registry(env, tmp_path, "high", one_patch("limit", "cap = 15", "cap = 30"))
    ok(env.run("apply", "low", "high"))
    code = (
        "import sys; from radpatch.cli import main; rc = main(sys.argv[1:]); "
        "print('LIBCST' if 'libcst' in sys.modules else 'HASHES'); sys.exit(rc)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *env.cmd("status", "--check", "low", "high")[3:]],
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("HASHES"), out.stdout


# --- class 7: broken state is exit 4 with the way out --------------------------------------------------


@pytest.mark.parametrize("damage", ["shape", "blob"])
def test_a_damaged_journal_is_a_clear_error(demo_env: Env, damage: str) -> None:
    env = demo_env
    assert env.run("apply", env.patch, fault="after-file:1").returncode == -signal.SIGKILL
    journal = env.state_dir / "journal"
    if damage == "shape":
        (journal / "plan.json").write_text(json.dumps({"run": "x", "op": "apply", "patches": [], "files": 3}))
    else:
        (journal / "0.before").unlink()
    st = env.status()
    assert "is damaged" in str(st["reason"]), st
    for op in ("apply", "revert"):
        out = env.run(op, env.patch)
        assert out.returncode == 4, out
        assert str(journal) in out.stderr and "remove" in out.stderr and "internal error" not in out.stderr, out.stderr
    assert env.path(ALPHA).read_bytes() == env.patched[ALPHA]  # nothing written on a guess


@pytest.mark.parametrize("fault", ["after-file:1", "before-record:1"])
def test_check_without_names_fails_while_a_run_is_pending(demo_env: Env, fault: str) -> None:
    """A run killed before its record leaves no record to name the patch: the journal is read
    first, so `status --check` (every patch recorded or pending) fails on the half-patched install."""
    env = demo_env
    assert env.run("apply", env.patch, fault=fault).returncode == -signal.SIGKILL
    assert not (env.state_dir / "record.json").exists()
    check = env.run("status", "--check")
    assert check.returncode == 3 and "interrupted run is pending" in check.stderr, check
    ok(env.run("apply", env.patch))
    ok(env.run("status", "--check"))


@pytest.mark.parametrize("target", ["dangling", "a record"])
def test_a_record_that_is_a_symbolic_link_is_a_clear_error_for_every_command(demo_env: Env, target: str) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    record = env.state_dir / "record.json"
    if target == "dangling":
        record.unlink()
        record.symlink_to(env.state_dir / "gone.json")
    else:
        record.rename(env.state_dir / "real.json")
        record.symlink_to(env.state_dir / "real.json")
    for args in (("status", "--check"), ("status", env.patch), ("revert", env.patch)):
        out = env.run(*args)
        assert out.returncode == 4 and "symbolic link" in out.stderr, (args, out)
    assert env.path(ALPHA).read_bytes() == env.patched[ALPHA]


def test_a_record_with_fields_of_the_wrong_type_is_a_clear_error(demo_env: Env) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    rec = json.loads((env.state_dir / "record.json").read_text())
    rec["patches"][env.patch]["files"][0]["patched_sha256"] = 7
    (env.state_dir / "record.json").write_text(json.dumps(rec))
    out = env.run("status", env.patch)
    assert out.returncode == 4 and "record.json is unreadable" in out.stderr, out


# --- issue 11.6: leave no trace; an uninstall is said plainly -----------------------------------------


def test_no_state_directory_once_nothing_is_recorded(demo_env: Env) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    ok(env.run("revert", env.patch))
    assert not env.state_dir.exists()
    ok(env.run("revert", env.patch))  # a no-op leaves nothing either
    assert not env.state_dir.exists()


def test_status_after_an_uninstall_says_so(demo_env: Env) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    pip(env.python, "uninstall", "-y", DEMO_DIST)
    assert env.state_dir.is_dir()  # pip leaves radpatch's state behind
    out = env.run("status", env.patch)
    assert "rphard-demo was uninstalled" in out.stdout and "record of rphard remains" in out.stdout, out.stdout
    check = env.run("status", "--check")
    assert check.returncode == 3 and "rphard-demo was uninstalled" in check.stderr, check
    out = ok(env.run("revert", env.patch))
    assert "forgot radpatch's record" in out.stdout, out.stdout
    assert not env.state_dir.exists()
    assert ok(env.run("status", "--check")).stderr.startswith("radpatch: no patch is recorded")


def test_revert_is_byte_exact_from_the_kept_original_and_settles(demo_env: Env) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    kept = sorted(p.name for p in (env.state_dir / "originals").iterdir())
    # each file's original, and its result (what an undo after comment edits goes by: prove.undo)
    assert kept == sorted({sha256(b) for r in env.targets for b in (env.original[r], env.read()[r])})
    out = ok(env.run("revert", env.patch))
    assert "restored byte for byte" in out.stdout
    assert_settled(env, applied=False)


def test_without_the_kept_original_revert_accepts_only_a_proven_inverse(demo_env: Env) -> None:
    env = demo_env
    ok(env.run("apply", env.patch))
    for kept in (env.state_dir / "originals").iterdir():
        kept.unlink()  # the kept originals are gone: the structural inverse must prove itself
    ok(env.run("revert", env.patch))
    assert env.read() == env.original
    ok(env.run("apply", env.patch))
    for kept in (env.state_dir / "originals").iterdir():
        kept.write_bytes(b"# not the original\n")  # damaged: never written back
    ok(env.run("revert", env.patch))
    assert env.read() == env.original
