"""A command asked for JSON prints JSON on stdout whatever stops it (docs/cli.md "JSON on
errors"): an error object whose `error` and `hint` are what stderr says and whose `exit_code` is
the exit status; a report it printed is not followed by a second object.

Generated: every way of asking for JSON × every kind of early failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample

ASKS = [
    ("verify", "toy", "--json"),
    ("verify", "--all", "--json"),
    ("status", "--json"),
    ("status", "toy", "--json"),
    ("status", "--format", "json"),
    ("status", "--format=json", "toy"),
    ("status", "--format", "cyclonedx"),  # a BOM is JSON a program reads: an error is the same object
    ("status", "--format=cyclonedx", "toy"),
]
INVALID = "summary: x\ndescription: y\ndistribution: toypkg\nsupported: >=1.0,<1.1   # x\nmodules:\n  m: toypkg.core\n"


def _failure(kind: str, toy: Path, tmp_path: Path) -> tuple[list[str], list[str]]:
    """(global options, extra command arguments) that make the command stop early."""
    if kind == "invalid registry file":
        bad = tmp_path / "bad"
        bad.mkdir()
        (bad / "toy.yaml").write_text(INVALID)  # the entry the command names, when it names one
        return ["--registry", str(bad)], []
    if kind == "unknown patch":
        return ["--registry", str(toy)], ["nosuch"]
    if kind == "unknown option":
        return ["--registry", str(toy)], ["--no-such-option"]
    return ["--registry", str(tmp_path / "missing")], []  # a registry directory that is not there


KINDS = ["invalid registry file", "unknown patch", "unknown option", "missing registry"]


@pytest.mark.parametrize(("ask", "kind"), sample([(a, k) for a in ASKS for k in KINDS]))
def test_stdout_is_one_json_error_object_saying_what_stderr_says(
    ask: tuple[str, ...], kind: str, toy: Path, tmp_path: Path, radpatch: Any
) -> None:
    options, extra = _failure(kind, toy, tmp_path)
    got = radpatch(*options, *ask, *extra)
    assert got.code == 2, (got.code, got.err)
    data = json.loads(got.out)
    assert isinstance(data, dict) and data["exit_code"] == got.code and data["schema_version"] == 1
    said = got.err.strip().splitlines()
    assert data["error"] and data["error"].splitlines()[0] in got.err, (data, got.err)
    assert (data["hint"] is None) == (not any(line.startswith("  hint: ") for line in said))


def test_no_error_object_without_json_and_none_after_a_report(toy: Path, radpatch: Any) -> None:
    assert radpatch("--registry", str(toy), "status", "nosuch").out == ""
    got = radpatch("--registry", str(toy), "status", "--json", "--check", "toy")
    assert got.code == 3  # the report, then the failed check: one list on stdout
    assert isinstance(json.loads(got.out), list)
    bom = radpatch("--registry", str(toy), "status", "--format", "cyclonedx", "--check")
    assert bom.code == 2 and json.loads(bom.out)["exit_code"] == 2  # refused before a BOM: the error object
