"""The engine on a fake installation: apply/revert round trips, idempotency, refusals, all-or-nothing.

Every refusal must leave every file of the installation byte-identical (Site.snapshot).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lib.registry import shipped_range
from tests.lib.site import Site, record_hash
from tests.lib.toy import ORIGINAL, ORIGINAL_CORE, PATCHED_CORE, PATCHED_UTIL, one_rewrite, refused, sources

# --- the round trip ----------------------------------------------------------------------------


def test_apply_writes_the_planned_files_then_revert_restores_every_byte(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 0, r.err
    assert "toy: applied to toypkg 1.0" in r.out
    assert (site.root / "toypkg/core.py").read_text() == PATCHED_CORE
    assert (site.root / "toypkg/util.py").read_text() == PATCHED_UTIL
    record = json.loads((site.root / ".radpatch/record.json").read_text())
    files = {f["path"]: f for f in record["patches"]["toy"]["files"]}
    assert set(files) == {"toypkg/core.py", "toypkg/util.py"}

    r = radpatch("--registry", str(toy), "revert", "toy")
    assert r.code == 0, r.err
    assert "restored byte for byte" in r.out
    assert sources(site) == ORIGINAL
    assert not (site.root / ".radpatch").exists(), "nothing is recorded any more: radpatch leaves no trace"
    record_lines = (site.root / "toypkg-1.0.dist-info/RECORD").read_text()
    for rel, data in ORIGINAL.items():
        assert f"{rel},sha256={record_hash(data)}," in record_lines


def test_second_apply_writes_nothing(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    watched = [site.root / "toypkg/core.py", site.root / "toypkg/util.py", site.root / ".radpatch/record.json"]
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in watched}
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 0, r.err
    assert "already applied" in r.out and "nothing to do" in r.out
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in watched} == before


def test_revert_of_an_unapplied_patch_is_a_no_op(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    before = site.snapshot()
    r = radpatch("--registry", str(toy), "revert", "toy")
    assert r.code == 0 and "not applied; nothing to revert" in r.out
    assert site.snapshot() == before


def test_dry_run_proves_and_writes_nothing(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    before = site.snapshot()
    r = radpatch("--registry", str(toy), "apply", "--dry-run", "toy")
    assert r.code == 0, r.err
    assert r.out.count("would patch") == 2 and "reverses byte for byte" in r.out
    assert site.snapshot() == before


# --- refusals leave every byte alone -----------------------------------------------------------


def test_missing_anchor_names_the_scope_and_the_closest_candidate(
    site: Site, toy: Path, write_registry, radpatch
) -> None:  # type: ignore[no-untyped-def]
    reg = write_registry(
        "nofind",
        one_rewrite("""\
        - id: cap
          insert_after: {scope: plan, find: "size = 44", code: "size = size + 1"}
        """),
    )
    err = refused(site, radpatch, reg, "apply", "nofind")
    assert "rewrite 'cap'" in err
    assert "not found in plan" in err
    assert "closest candidate (line 4" in err and "size = 4" in err


def test_ambiguous_anchor_says_how_many(site: Site, toy: Path, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    reg = write_registry(
        "many",
        one_rewrite("""\
        - id: rename
          replace: {scope: plan, find: size, with: n}
        """),
    )
    err = refused(site, radpatch, reg, "apply", "many")
    assert "matches 4 times in plan" in err and "ambiguous" in err


def test_version_out_of_range_is_refused_with_a_readable_range(site: Site, radpatch) -> None:  # type: ignore[no-untyped-def]
    site.install("vllm", "0.11.0", {"vllm/__init__.py": "", "vllm/v1/core/kv_cache_utils.py": "x = 1\n"})
    before = site.snapshot()
    r = radpatch("apply", "kv_group_size")
    assert r.code == 1, r.err
    assert f"vllm 0.11.0 is installed; kv_group_size supports {shipped_range()}" in r.err
    assert site.snapshot() == before


def test_payload_that_does_not_parse_is_a_registry_error(site: Site, toy: Path, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    reg = write_registry(
        "badpayload",
        one_rewrite("""\
        - insert_definitions:
            payload: payload.py
            after: plan
        """),
        payloads={"payload.py": "def helper(:\n    pass\n"},
    )
    err = refused(site, radpatch, reg, "apply", "badpayload", code=2)
    assert f"{reg / 'badpayload.yaml'}:9:16: at rewrites[0].insert_definitions.payload" in err
    assert "payload.py:1 does not parse" in err


def test_new_undefined_name_is_refused(site: Site, toy: Path, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    reg = write_registry(
        "undef",
        one_rewrite("""\
        - insert_after: {scope: plan, find: "size = len(spec)", code: "size = clamp(size)"}
        """),
    )
    err = refused(site, radpatch, reg, "apply", "undef")
    assert "would use undefined names: `clamp` (line 3, in plan()) is defined nowhere" in err


def test_patch_that_does_not_compile_is_refused(site: Site, toy: Path, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    reg = write_registry(
        "nocompile",
        one_rewrite("""\
        - replace: {scope: plan, find: "size = 4", with: "break"}
        """),
    )
    err = refused(site, radpatch, reg, "apply", "nocompile")
    assert "does not compile" in err and "'break' outside loop" in err


def test_apply_writes_the_checked_hash_bytecode_of_what_it_wrote(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    import importlib.util
    import marshal

    core = site.root / "toypkg/core.py"
    stale = Path(importlib.util.cache_from_source(str(core)))
    stale.parent.mkdir(parents=True, exist_ok=True)  # __pycache__, or its tree under PYTHONPYCACHEPREFIX
    stale.write_bytes(b"stale")  # an old .pyc of the unpatched module
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    source = core.read_bytes()
    assert source == PATCHED_CORE.encode()
    data = stale.read_bytes()  # the same name: the .pyc this interpreter imports
    assert data[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(data[4:8], "little") == 0b11  # hash-based, checked on every import
    assert data[8:16] == importlib.util.source_hash(source)
    assert marshal.loads(data[16:]) == compile(source, str(core), "exec", dont_inherit=True)
    assert radpatch("--registry", str(toy), "revert", "toy").code == 0
    data = stale.read_bytes()
    assert data[8:16] == importlib.util.source_hash(core.read_bytes())  # revert's bytecode is the original's
    assert marshal.loads(data[16:]) == compile(core.read_bytes(), str(core), "exec", dont_inherit=True)


def test_drifted_target_is_reported_and_apply_and_revert_refuse(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    core = site.root / "toypkg/core.py"
    core.write_text(PATCHED_CORE.replace("plan(spec, None)", "plan(spec, 0)"))  # someone else's edit
    r = radpatch("--registry", str(toy), "status", "toy")
    assert r.code == 0
    assert r.out.splitlines()[1].startswith("toy    drifted  toypkg 1.0")
    assert "toypkg/core.py: matches neither form" in r.out and "rewrite '" in r.out
    for argv in (("apply", "toy"), ("revert", "toy")):
        err = refused(site, radpatch, toy, *argv)
        assert f"toy: cannot {argv[0]}: drifted" in err
    assert radpatch("--registry", str(toy), "status", "--check", "toy").code == 3


def test_drifted_status_names_the_closest_candidate_both_ways_and_searches_once(  # type: ignore[no-untyped-def]
    site: Site, toy: Path, write_registry, radpatch, monkeypatch: pytest.MonkeyPatch
) -> None:
    from radpatch.rewrite import nearest

    reg = write_registry(
        "two",
        one_rewrite("""\
        - id: prep
          insert_before: {scope: plan, find: "size = len(spec)", code: "spec = list(spec)"}
        - id: clamp
          insert_after:
            scope: plan
            find: |
              if size > 4:
                  size = 4
            code: "size = max(size, 1)"
        """),
    )
    core = site.root / "toypkg/core.py"
    core.write_text(ORIGINAL_CORE.replace("size = 4", "size = 5"))  # a hand edit of the code `clamp` anchors on
    searched = []
    real = nearest._closest
    monkeypatch.setattr(nearest, "_closest", lambda *a: searched.append(a) or real(*a))
    r = radpatch("--registry", str(reg), "status", "two")
    assert r.code == 0, r.err
    applying, undoing = r.out.split("; undoing stops at ")
    assert "matches neither form: applying stops at rewrite 'clamp'" in applying
    for half in (applying, undoing):  # on the file's own lines (3), not after `prep` added one
        assert "closest candidate (line 3, " in half and "size = 5" in half
    assert len(searched) == 1  # undoing and applying ask the same of the same definition


ENGINE_CLASS = """\
class Engine:
    timeout = 10

    def start(self, n):
        total = 0
        for i in range(n):
            total += i
        return total

    def stop(self):
        total = 0
        self.log("stopped")
        return total
"""


def test_drifted_status_gives_the_files_own_lines_when_undoing_stops(site: Site, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": ENGINE_CLASS})
    reg = write_registry(
        "two",
        one_rewrite("""\
        - id: stop-total
          replace: {scope: Engine.stop, find: total = 0, with: total = 5}
        - id: add-lines
          insert_after: {scope: Engine.start, find: total = 0, code: "extra = 1\\nextra += 2\\nextra += 3"}
        """),
    )
    assert radpatch("--registry", str(reg), "apply", "two").code == 0
    core = site.root / "toypkg/core.py"
    text = core.read_text().replace('        self.log("stopped")\n', '        self.log("stopped")\n        total = 5\n')
    core.write_text(text)  # a hand edit: a second `total = 5` in stop
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "total = 5"]
    assert len(lines) == 2
    r = radpatch("--registry", str(reg), "status", "two")
    undoing = r.out.split("; undoing stops at ")[1]
    assert "rewrite 'stop-total'" in undoing and f"ambiguous): lines {lines[0]}, {lines[1]}" in undoing, r.out


def test_revert_refuses_when_undoing_would_not_give_the_recorded_original(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    util = site.root / "toypkg/util.py"
    util.write_text("def scale(x):\n    x = abs(x)\n    return x * 3\n")  # still patched, but edited since
    err = refused(site, radpatch, toy, "revert", "toy")
    assert "toypkg/util.py" in err


# --- all or nothing ----------------------------------------------------------------------------


def test_one_refused_patch_refuses_the_whole_command(site: Site, toy: Path, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    write_registry(
        "bad",
        one_rewrite("""\
        - replace: {scope: groups, find: plan(spex), with: plan(spec)}
        """),
    )
    err = refused(site, radpatch, toy, "apply", "toy", "bad")
    assert "bad: rewrite 'replace#1'" in err and "not found in groups" in err
    assert radpatch("--registry", str(toy), "status", "--check", "toy").code == 3


def test_two_patches_on_one_file_apply_and_revert_together(site: Site, toy: Path, write_registry, radpatch) -> None:  # type: ignore[no-untyped-def]
    write_registry(
        "first",
        one_rewrite("""\
        - add_parameter: {function: plan, name: cfg, default: "None"}
        """),
    )
    write_registry(
        "second",
        one_rewrite("""\
        - insert_after: {scope: plan, find: "size = len(spec)", code: "size += 1"}
        """),
    )
    r = radpatch("--registry", str(toy), "apply", "first", "second")
    assert r.code == 0, r.err
    core = (site.root / "toypkg/core.py").read_text()
    assert core.startswith("def plan(spec, cfg=None):\n    size = len(spec)\n    size += 1\n")
    assert radpatch("--registry", str(toy), "status", "--check", "first", "second").code == 0
    r = radpatch("--registry", str(toy), "revert", "first", "second")
    assert r.code == 0, r.err
    assert sources(site) == ORIGINAL


def test_failed_second_write_restores_the_first_file_at_once(
    site: Site, toy: Path, radpatch, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        if Path(dst).name == "util.py":
            raise OSError(errno.EIO, "injected write failure")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    before = site.snapshot()
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 4, (r.out, r.err)
    assert "util.py" in r.err and "injected write failure" in r.err and "Traceback" not in r.err
    assert sources(site) == ORIGINAL  # core.py was written first and must already be back
    assert not (site.root / ".radpatch/journal").exists()
    after = site.snapshot()
    assert {k: v for k, v in after.items() if "__pycache__" not in k} == before

    monkeypatch.setattr(os, "replace", real_replace)
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    assert sources(site)["toypkg/util.py"] == PATCHED_UTIL.encode()


@pytest.mark.parametrize("fault", ["after-file:1", "before-record:1"])
def test_killed_apply_is_rolled_back_by_the_journal_on_the_next_run(site: Site, toy: Path, fault: str) -> None:
    def cli(*argv: str, fault: str = "") -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(site.root), "RADPATCH_FAULT": fault}
        return subprocess.run(
            [sys.executable, "-m", "radpatch", "--registry", str(toy), *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )

    killed = cli("apply", "toy", fault=fault)
    assert killed.returncode == -9, killed.stderr
    assert (site.root / ".radpatch/journal").is_dir()
    assert sources(site)["toypkg/core.py"] == PATCHED_CORE.encode()  # the run died after writing it

    nxt = cli("revert", "toy")
    assert nxt.returncode == 0, nxt.stderr
    assert "recovered from an interrupted run: restored" in nxt.stdout and "core.py" in nxt.stdout
    assert sources(site) == ORIGINAL
    assert not (site.root / ".radpatch/journal").exists()
