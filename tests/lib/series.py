"""What every real-series test checks once a series is imported (tests/importing/test_real_*series.py):
radpatch runs as its own process on the venv the release is pip-installed in; the entries apply and
each file they change is the file GNU patch made of the same sections (AST-equal for a module,
byte-equal otherwise); `status --check` exits 0 with every entry applied; `revert` gives RECORD's
bytes back and removes the modules the series created."""

from __future__ import annotations

import ast
import hashlib
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from tests.lib.importing import clean_env
from tests.lib.site import recorded_sha256


def radpatch(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """radpatch as its own process, pointed at `python`'s environment (no RADPATCH_* settings)."""
    return subprocess.run(
        [sys.executable, "-m", "radpatch", "--python", str(python), *args],
        capture_output=True,
        text=True,
        timeout=3600,
        env=clean_env(),
        check=False,
    )


def apply_like_gnu(python: Path, reg: Path, names: Sequence[str], site: Path, gnu: Path, changed: Iterable[str]) -> int:
    """`apply` the entries `names` (in that order on the command line); every file of `changed` must
    then be what GNU patch made of it under `gnu` (a module compared as a syntax tree). Returns how
    many are byte-equal as well."""
    applied = radpatch(python, "--registry", str(reg), "apply", *names)
    assert applied.returncode == 0, applied.stderr
    same_bytes = 0
    for rel in changed:
        mine, theirs = (site / rel).read_bytes(), (gnu / rel).read_bytes()
        if rel.endswith(".py"):
            assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(theirs)), rel
        else:
            assert mine == theirs, rel
        same_bytes += mine == theirs
    return same_bytes


def check_applied(python: Path, reg: Path, names: Sequence[str]) -> None:
    """`status --check` exits 0 and says each of `names` is applied."""
    status = radpatch(python, "--registry", str(reg), "status", "--check", *names)
    assert status.returncode == 0, status.stdout + status.stderr
    states = {ln.split()[0]: ln.split()[1] for ln in status.stdout.splitlines()[1:] if ln.strip()}
    assert states == {n: "applied" for n in names}, status.stdout


def revert_to_record(
    python: Path,
    reg: Path,
    names: Sequence[str],
    site: Path,
    package: str,
    pristine: dict[str, bytes],
    created: Iterable[str] = (),
) -> None:
    """`revert` the entries `names`: each file of `pristine` has those bytes again, the ones the RECORD
    of the distribution named like `package` hashes, and each of `created` is gone."""
    reverted = radpatch(python, "--registry", str(reg), "revert", *names)
    assert reverted.returncode == 0, reverted.stderr
    (dist_info,) = (d for d in site.glob("*.dist-info") if d.name.lower().startswith(package))
    for rel, data in pristine.items():
        assert (site / rel).read_bytes() == data, rel
        assert recorded_sha256(dist_info / "RECORD", rel) == hashlib.sha256(data).hexdigest(), rel
    for rel in created:
        assert not (site / rel).exists(), rel
