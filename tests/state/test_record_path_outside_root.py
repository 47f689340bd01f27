"""A hand-edited record.json whose file path (or made directory) is absolute or leaves the install
root (att54 #7: `/etc/passwd`, `../../x.py`) was accepted, and revert's hint said "remove /etc/passwd".

Generated: the bad path (absolute at a real file outside the root, `..` out of the root, `..` in the
middle, empty) x the field it is in (the file's path, a made directory) x the command (every one that
reads the record). Oracle: the file it points at, outside the root, is never written; the command
refuses with the record's documented one-or-two-line "record.json is unreadable" shape (exit 4,
naming the patch and the bad path), and the hint, followed (remove the record), lets status run."""

from __future__ import annotations

import itertools
import json
import logging
import sys
import types
from pathlib import Path

import pytest

from radpatch import plugin
from tests.lib.generated import sample
from tests.lib.site import Site

PATHS = ["absolute", "dotdot", "dotdot-inside", "empty"]
FIELDS = ["path", "made_dirs"]
COMMANDS = [("status",), ("status", "--check", "toy"), ("diff", "toy"), ("apply", "toy"), ("revert", "toy")]


def _bad(kind: str, outside: Path, root: Path) -> str:
    return {
        "absolute": str(outside),
        "dotdot": "../" + outside.name,
        "dotdot-inside": "toypkg/../../" + outside.name,
        "empty": "",
    }[kind]


def _damage(root: Path, field: str, bad: str) -> None:
    record = root / ".radpatch/record.json"
    data = json.loads(record.read_text())
    first = data["patches"]["toy"]["files"][0]
    first[field] = bad if field == "path" else [bad]
    record.write_text(json.dumps(data))


@pytest.mark.parametrize(("kind", "field", "command"), sample(itertools.product(PATHS, FIELDS, COMMANDS)))
def test_a_record_path_outside_the_root_is_an_unreadable_record(  # type: ignore[no-untyped-def]
    site: Site, toy: Path, radpatch, kind: str, field: str, command: tuple[str, ...]
) -> None:
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    outside = site.root.parent / "outside.py"
    outside.write_bytes(b"KEEP = 1\n")
    bad = _bad(kind, outside, site.root)
    _damage(site.root, field, bad)
    before = site.snapshot()
    r = radpatch("--registry", str(toy), *command)
    assert r.code == 4 and "record.json is unreadable" in r.err, (r.code, r.out, r.err)
    assert "'toy'" in r.err and repr(bad) in r.err, r.err
    assert len(r.err.strip().splitlines()) <= 2 and "remove " + str(outside) not in r.err, r.err
    assert outside.read_bytes() == b"KEEP = 1\n" and site.snapshot() == before
    # the hint, followed: without the record, status re-derives the states from the files
    assert "remove it" in r.err
    (site.root / ".radpatch/record.json").unlink()
    assert radpatch("--registry", str(toy), "status").code == 0


@pytest.mark.parametrize(("kind", "field"), sample(itertools.product(PATHS, FIELDS)))
def test_the_engine_start_check_says_unreadable_and_does_not_raise(  # type: ignore[no-untyped-def]
    site: Site,
    toy: Path,
    radpatch,
    kind: str,
    field: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    outside = site.root.parent / "outside.py"
    outside.write_bytes(b"KEEP = 1\n")
    bad = _bad(kind, outside, site.root)
    _damage(site.root, field, bad)
    module = types.ModuleType("vllm")
    module.__file__ = str(site.root / "toypkg" / "__init__.py")
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.delenv(plugin.REQUIRE_ENV, raising=False)
    monkeypatch.setattr(plugin, "_own_site", lambda root: True)
    caplog.set_level(logging.INFO, logger=plugin.LOGGER)
    plugin.register()  # never raises without RADPATCH_REQUIRE
    said = " ".join(r.getMessage() for r in caplog.records if r.name == plugin.LOGGER)
    assert "record.json is unreadable" in said and repr(bad) in said, said
    assert "restore it or remove it" in said, said  # the hint status gives, not only the error's type
    assert outside.read_bytes() == b"KEEP = 1\n"
