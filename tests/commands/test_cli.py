"""The command line through radpatch.cli.main: the real error handler, exit codes and output."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from radpatch import __version__
from radpatch.cli import cli
from tests.lib.registry import shipped_range
from tests.lib.site import Site


def test_list_shows_every_registry_with_a_readable_range(toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    r = radpatch("--registry", str(toy), "list")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].split() == ["PATCH", "TARGET", "SUPPORTED", "SUMMARY"]
    rows = {line.split()[0]: line.split(None, 3) for line in lines[1:]}
    assert rows["toy"] == ["toy", "toypkg", ">=1.0,<2", "Toy two-file patch"]
    assert rows["kv_group_size"][1:3] == ["vllm", shipped_range()]


def test_show_describes_modules_rewrites_and_knobs(toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    r = radpatch("--registry", str(toy), "show", "toy")
    assert r.code == 0, r.err
    assert r.out.startswith("toy: Toy two-file patch\n")
    assert "  target:        toypkg >=1.0,<2\n" in r.out
    assert "    core: toypkg.core  (versions any)\n" in r.out
    assert "    cfg-param: add parameter cfg=None to plan()  (versions all; core)\n" in r.out
    assert "    triple: replace code in scale  (versions all; util)\n" in r.out
    assert r.out.rstrip().endswith("Adds a parameter, passes it, and changes a factor in a second module.")
    shipped = radpatch("show", "kv_group_size")
    assert shipped.code == 0 and "RADIANCE_KV_GROUP_OPT (default '1')" in shipped.out


def test_apply_dry_run_writes_nothing(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    before = site.snapshot()
    r = radpatch("--registry", str(toy), "apply", "--dry-run", "toy")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"toy: would patch {site.root / 'toypkg/core.py'} (")
    assert lines[1].startswith(f"toy: would patch {site.root / 'toypkg/util.py'} (")
    assert site.snapshot() == before
    assert radpatch("--registry", str(toy), "status", "--check", "toy").code == 3


# unified diff context for an empty line is one space: written \x20 so that editors keep it
EXPECTED_DIFF = """\
--- a/toypkg/core.py
+++ b/toypkg/core.py
@@ -1,4 +1,4 @@
-def plan(spec):
+def plan(spec, cfg=None):
     size = len(spec)
     if size > 4:
         size = 4
@@ -6,4 +6,4 @@
\x20
\x20
 def groups(spec):
-    return plan(spec)
+    return plan(spec, None)
--- a/toypkg/util.py
+++ b/toypkg/util.py
@@ -1,2 +1,2 @@
 def scale(x):
-    return x * 2
+    return x * 3
"""


def test_diff_is_the_same_before_and_after_apply_and_writes_nothing(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    before = site.snapshot()
    r = radpatch("--registry", str(toy), "diff", "toy")
    assert r.code == 0, r.err
    assert r.out == EXPECTED_DIFF
    assert site.snapshot() == before
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    again = radpatch("--registry", str(toy), "diff", "toy")
    assert (again.code, again.out) == (0, EXPECTED_DIFF)


def test_status_text(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    r = radpatch("--registry", str(toy), "status", "toy")
    assert (r.code, r.out) == (
        0,
        "PATCH  STATE        INSTALLED   SUPPORTS  DETAIL\ntoy    not-applied  toypkg 1.0  >=1.0,<2\n",
    )
    radpatch("--registry", str(toy), "apply", "toy")
    r = radpatch("--registry", str(toy), "status")
    lines = r.out.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["PATCH", "STATE"],
        ["kv_group_size", "not-installed"],
        ["toy", "applied"],
    ]
    # aligned: every column starts where its header does
    for header in ("STATE", "INSTALLED", "SUPPORTS", "DETAIL"):
        at = lines[0].index(header)
        assert all(line[at - 2 : at] == "  " and line[at] != " " for line in lines[1:] if len(line) > at), header
    assert lines[2].split("  ")[0] == "toy" and "toypkg 1.0" in lines[2] and lines[2].rstrip().endswith(">=1.0,<2")
    assert "vllm is not installed in" in lines[1]


def test_status_json(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    def status() -> dict[str, Any]:
        r = radpatch("--registry", str(toy), "status", "--json", "toy")
        assert r.code == 0, r.err
        (entry,) = json.loads(r.out)
        return entry  # type: ignore[no-any-return]

    entry = status()
    assert {
        k: entry[k]
        for k in (
            "schema_version",
            "patch",
            "state",
            "package",
            "distribution",
            "provides",
            "installed_version",
            "supported",
            "pending",
        )
    } == {
        "schema_version": 2,
        "patch": "toy",
        "state": "not-applied",
        "package": "toypkg",
        "distribution": "toypkg",
        "provides": None,
        "installed_version": "1.0",
        "supported": ">=1.0,<2",
        "pending": False,
    }
    files = {Path(f["path"]): f for f in entry["files"]}
    assert set(files) == {site.root / "toypkg/core.py", site.root / "toypkg/util.py"}
    for path, f in files.items():
        assert f["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert f["wheel_record_sha256"] == f["sha256"]
        assert f["wheel_record_match"] is True

    radpatch("--registry", str(toy), "apply", "toy")
    entry = status()
    assert entry["state"] == "applied" and entry["applied_registry_digest"] == entry["registry_digest"]
    assert not {"record_sha256", "record_match", "recorded_digest"} & {*entry, *entry["files"][0]}
    for f in entry["files"]:
        assert f["sha256"] == hashlib.sha256(Path(f["path"]).read_bytes()).hexdigest()
        assert f["wheel_record_match"] is False  # patched: no longer what the wheel's RECORD says


def test_status_check_exit_codes(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    r = radpatch("--registry", str(toy), "status", "--check", "toy")
    assert r.code == 3
    assert "radpatch: error: toy is not-applied" in r.err and "radpatch apply toy" in r.err
    radpatch("--registry", str(toy), "apply", "toy")
    assert radpatch("--registry", str(toy), "status", "--check", "toy").code == 0
    # without names: every patch recorded as applied in the environment
    assert radpatch("--registry", str(toy), "status", "--check").code == 0
    (site.root / "toypkg/util.py").write_text("def scale(x):\n    return x * 2\n")  # half reverted by hand
    r = radpatch("--registry", str(toy), "status", "--check")
    assert r.code == 3 and "toy is drifted" in r.err


def test_unknown_patch_is_a_one_line_usage_error(toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    for argv in (["show", "nope"], ["apply", "nope"], ["diff", "nope"], ["status", "nope"]):
        r = radpatch("--registry", str(toy), *argv)
        assert r.code == 2, argv
        lines = r.err.splitlines()
        assert lines[0] == "radpatch: error: unknown patch 'nope'; known patches: kv_group_size, toy"
        assert all(line.startswith("  hint: ") for line in lines[1:]) and len(lines) <= 2
        assert r.out == ""


def test_bad_command_line_is_exit_2(radpatch) -> None:  # type: ignore[no-untyped-def]
    r = radpatch("frobnicate")
    assert r.code == 2 and r.err.startswith("radpatch: error: no such command 'frobnicate'")
    r = radpatch("apply")
    assert r.code == 2 and r.err.startswith("radpatch: error: missing argument")


def test_internal_error_is_exit_70_without_a_traceback(toy: Path, radpatch, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from radpatch.commands import status

    def broken(*args: object) -> int:
        raise KeyError("boom")

    monkeypatch.setattr(status, "run", broken)
    r = radpatch("--registry", str(toy), "status")
    assert r.code == 70
    assert r.err == "radpatch: internal error: KeyError: 'boom' (run with --debug for the traceback)\n"
    r = radpatch("--debug", "--registry", str(toy), "status")
    assert r.code == 70
    assert "Traceback (most recent call last)" in r.err and "in broken" in r.err


def test_refusal_is_exit_1_with_hint(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    site.install("vllm", "0.11.0", {"vllm/__init__.py": ""})
    for argv in (["apply", "kv_group_size"], ["diff", "kv_group_size"]):
        r = radpatch(*argv)
        assert r.code == 1, (argv, r.err)
        assert f"vllm 0.11.0 is installed; kv_group_size supports {shipped_range()}" in r.err
    r = radpatch("status", "kv_group_size")
    assert r.out.splitlines()[1].split("  ")[:4] == ["kv_group_size", "incompatible", "vllm 0.11.0", shipped_range()]


def test_python_option_with_a_missing_interpreter_is_an_environment_error(tmp_path: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    r = radpatch("--python", str(tmp_path / "nope" / "python"), "status")
    assert r.code == 4
    assert r.err.startswith(f"radpatch: error: --python {tmp_path / 'nope' / 'python'}: no such interpreter")


def test_version_and_help() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.output == f"radpatch, version {__version__}\n"
    result = runner.invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in ("apply", "diff", "list", "revert", "show", "status"):
        assert f"\n  {command} " in result.output


def _complete(words: str, cwd: Path) -> list[str]:
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "_RADPATCH_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    env.pop("RADPATCH_REGISTRY", None)
    done = subprocess.run(
        [sys.executable, "-m", "radpatch"], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if line]


def test_shell_completion_completes_patch_names(toy: Path, tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[2]
    assert _complete(f"radpatch --registry {toy} apply ", repo) == ["kv_group_size", "toy"]
    assert _complete(f"radpatch --registry {toy} status t", repo) == ["toy"]
    assert _complete(f"radpatch --registry {toy} revert toy ", repo) == ["kv_group_size"]  # given names are left out
    assert _complete("radpatch show k", repo) == ["kv_group_size"]
    assert _complete(f"radpatch --registry {tmp_path / 'missing'} apply ", repo) == []  # quiet on a bad registry
