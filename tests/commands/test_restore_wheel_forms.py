"""`restore --wheel` takes what `apply --wheel` takes: a wheel, a directory of wheels (the installed
version's chosen), repeated; and refuses what apply refuses (click refused `restore --wheel DIR` as
"is a directory" while apply read the wheel in it).

For each way of giving --wheel, the same toypkg 1.0 installed from its wheel, offline: `restore` of
a file edited by hand, and `apply` adopting a file that carries the toy patch by hand (where apply
reads the installed bytes from the wheel). The oracle: the two verbs accept and refuse alike, and
what restore writes hashes to the installed RECORD (what apply adopts keeps RECORD's sha256 as the
original)."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site, recorded_sha256
from tests.lib.toy import ORIGINAL, PATCHED_CORE, PATCHED_UTIL, TOY_PATCH
from tests.lib.wheels import build_wheel

CORE, UTIL = "toypkg/core.py", "toypkg/util.py"


def _forms(tmp: Path, installed: Path) -> dict[str, list[Path]]:
    """Each way of giving --wheel (one Path per --wheel), built under `tmp`."""
    other = build_wheel(tmp / "other", "toypkg", "1.1", ORIGINAL)
    both = tmp / "both"
    both.mkdir()
    shutil.copy(installed, both)
    shutil.copy(other, both)
    empty = tmp / "empty"
    empty.mkdir()
    return {
        "the wheel": [installed],
        "its directory": [installed.parent],
        "a directory with another version too": [both],
        "another version, then the wheel": [other, installed],
        "another version's directory, then the wheel's": [other.parent, installed.parent],
        "another version's wheel": [other],
        "another version's directory": [other.parent],
        "a directory of no wheel": [empty],
        "no such file": [tmp / "nope-1.0-py3-none-any.whl"],
    }


FORMS = [
    "the wheel",
    "its directory",
    "a directory with another version too",
    "another version, then the wheel",
    "another version's directory, then the wheel's",
    "another version's wheel",
    "another version's directory",
    "a directory of no wheel",
    "no such file",
]


def _installed(site: Site, tmp_path: Path) -> Path:
    built = build_wheel(tmp_path / "wheels", "toypkg", "1.0", ORIGINAL)
    with zipfile.ZipFile(built) as zf:
        zf.extractall(site.root)
    return built


def _record(site: Site, rel: str) -> str | None:
    return recorded_sha256(site.root / "toypkg-1.0.dist-info" / "RECORD", rel)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("form", sample(FORMS))
def test_restore_and_apply_take_the_same_wheels(
    site: Site, radpatch: Any, write_registry: Callable[..., Path], tmp_path: Path, offline: None, form: str
) -> None:
    wheel = _installed(site, tmp_path)
    given = [a for w in _forms(tmp_path / "given", wheel)[form] for a in ("--wheel", str(w))]
    registry = write_registry("toy", TOY_PATCH)

    (site.root / CORE).write_text(PATCHED_CORE)  # apply adopts it: its RECORD bytes read from --wheel
    (site.root / UTIL).write_text(PATCHED_UTIL)
    adopt = radpatch("--registry", str(registry), "apply", "toy", *given)
    if adopt.code == 0:
        record = json.loads((site.root / ".radpatch" / "record.json").read_text())["patches"]["toy"]
        assert {f["path"]: f["original_sha256"] for f in record["files"]} == {
            CORE: _record(site, CORE),
            UTIL: _record(site, UTIL),
        }
        assert radpatch("--registry", str(registry), "revert", "toy").code == 0
    else:
        for rel in (CORE, UTIL):
            (site.root / rel).write_bytes(ORIGINAL[rel])

    (site.root / CORE).write_text("edited by hand\n")  # restore reads the same bytes from the same --wheel
    restore = radpatch("restore", *given, CORE)
    assert (restore.code == 0) == (adopt.code == 0), f"apply: {adopt.code} {adopt.err}\nrestore: {restore.err}"
    holds = any(w == wheel or (w.is_dir() and (w / wheel.name).is_file()) for w in map(Path, given[1::2]))
    assert (restore.code == 0) == holds, restore.err  # the installed version's wheel is among those given
    assert "Traceback" not in restore.err and "Traceback" not in adopt.err
    if restore.code == 0:
        assert _sha((site.root / CORE).read_bytes()) == _record(site, CORE)
    else:
        assert (site.root / CORE).read_text() == "edited by hand\n"
