"""Adopt: `apply` on a file that already carries a patch's result (a hand edit, a sed or `patch`
step in an older image) records the patch as applied and keeps the file's bytes; the original
kept for `revert` is the file's RECORD bytes, read from the installed version's wheel (a loopback
index by range requests, or `--wheel FILE` offline) and checked against RECORD."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.site import Site, recorded_sha256
from tests.lib.toy import ORIGINAL, PATCHED_CORE, PATCHED_UTIL, TOY_PATCH, refused
from tests.lib.wheels import build_wheel

CORE, UTIL = "toypkg/core.py", "toypkg/util.py"
# a second entry stacked on `toy`'s core.py (it requires toy)
ON_TOP = """\
    summary: On top of toy
    description: Doubles what plan returns, on top of toy's change.
    distribution: toypkg
    supported: ">=1.0,<2"
    requires: [toy]
    modules:
      core: toypkg.core
    rewrites:
      - id: twice
        replace: {scope: plan, find: return size, with: return size * 2}
    """


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def wheel(site: Site, tmp_path: Path) -> Path:
    """toypkg 1.0 installed into the fake site from its wheel, as pip lays it out; returns the wheel."""
    built = build_wheel(tmp_path / "wheels", "toypkg", "1.0", ORIGINAL)
    with zipfile.ZipFile(built) as zf:
        zf.extractall(site.root)
    return built


@pytest.fixture
def registry(write_registry: Callable[..., Path]) -> Path:
    write_registry("toy", TOY_PATCH)
    return write_registry("on_top", ON_TOP)


@pytest.fixture
def index(wheel: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[IndexServer]:
    """A loopback index serving the installed wheel (with Range), radpatch pointed at it."""
    for var in [v for v in os.environ if v.startswith("PIP_") or v.lower().endswith("_proxy")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("RADPATCH_CACHE", str(tmp_path / "cache"))
    served = tmp_path / "served"
    served.mkdir()
    (served / wheel.name).write_bytes(wheel.read_bytes())
    server = IndexServer(served)
    server.thread.start()
    monkeypatch.setenv("PIP_INDEX_URL", server.url)
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def record_of(site: Site, rel: str) -> str | None:
    return recorded_sha256(site.root / "toypkg-1.0.dist-info" / "RECORD", rel)


def state(radpatch: Any, registry: Path, name: str) -> str:
    r = radpatch("--registry", str(registry), "status", name, "--json")
    assert r.code == 0, r.err
    return str(json.loads(r.out)[0]["state"])


def test_a_hand_edit_equal_to_the_result_is_adopted_offline_and_revert_gives_record_bytes(
    site: Site, wheel: Path, registry: Path, radpatch: Any, offline: None
) -> None:
    core, util = site.root / CORE, site.root / UTIL
    core.write_text(PATCHED_CORE)
    util.write_text(PATCHED_UTIL)
    assert state(radpatch, registry, "toy") == "applied"  # by its code; radpatch has no record of it
    check = radpatch("--registry", str(registry), "status", "--check")
    assert check.code == 0 and "no patch is recorded" in check.err, check  # nothing named, nothing recorded
    check = radpatch("--registry", str(registry), "status", "--check", "toy")
    assert check.code == 3 and "radpatch has no record of it" in check.err, check  # adopt it first
    assert "radpatch apply toy" in check.err, check

    r = radpatch("--registry", str(registry), "apply", "toy", "--wheel", str(wheel))

    assert r.code == 0, r.err
    assert "toy: adopted: toypkg.core, toypkg.util already carry this patch's result (AST-equal)" in r.out, r.out
    assert wheel.name in r.out and "applied to" not in r.out, r.out
    assert core.read_text() == PATCHED_CORE and util.read_text() == PATCHED_UTIL
    record = json.loads((site.root / ".radpatch" / "record.json").read_text())["patches"]["toy"]
    assert {f["path"]: f["original_sha256"] for f in record["files"]} == {
        CORE: record_of(site, CORE),
        UTIL: record_of(site, UTIL),
    }
    assert state(radpatch, registry, "toy") == "applied"
    assert radpatch("--registry", str(registry), "status", "--check", "toy").code == 0
    assert radpatch("--registry", str(registry), "apply", "toy").code == 0  # nothing to do: no wheel asked

    r = radpatch("--registry", str(registry), "revert", "toy")

    assert r.code == 0, r.err
    assert "byte for byte" in r.out, r.out
    assert sha(core.read_bytes()) == record_of(site, CORE) and sha(util.read_bytes()) == record_of(site, UTIL)
    assert not (site.root / ".radpatch").exists()


def test_a_layout_different_hand_edit_is_adopted_from_the_index_and_its_bytes_kept(
    site: Site, wheel: Path, registry: Path, radpatch: Any, index: IndexServer
) -> None:
    """A sed-style edit: the same code as the patch's result, other comments and spacing. It reads
    applied by its code, without a record (undoing and re-applying gives its code, not its bytes);
    apply adopts it, reading core.py from the index."""
    core, util = site.root / CORE, site.root / UTIL
    edited = "# patched by hand in an older image\n" + PATCHED_CORE.replace("spec, cfg=None", "spec,  cfg = None")
    core.write_text(edited)
    util.write_text(PATCHED_UTIL)
    st = json.loads(radpatch("--registry", str(registry), "status", "--json", "toy").out)[0]
    assert st["state"] == "applied" and "radpatch has no record of it" in st["reason"], st
    assert radpatch("--registry", str(registry), "status", "--check", "toy").code == 3

    r = radpatch("--registry", str(registry), "apply", "toy")

    assert r.code == 0, r.err
    assert "adopted" in r.out and "range requests" in r.out, r.out
    assert server_read(index) > 0
    assert core.read_text() == edited  # kept as it is
    assert state(radpatch, registry, "toy") == "applied"
    assert radpatch("--registry", str(registry), "status", "--check", "toy").code == 0
    assert radpatch("--registry", str(registry), "revert", "toy").code == 0
    assert core.read_bytes() == ORIGINAL[CORE] and util.read_bytes() == ORIGINAL[UTIL]


def server_read(server: IndexServer) -> int:
    return server.sent(".whl")


def test_a_hand_edit_that_differs_from_the_result_is_refused_as_drifted(
    site: Site, wheel: Path, registry: Path, radpatch: Any, offline: None
) -> None:
    core = site.root / CORE
    core.write_text(PATCHED_CORE.replace("size = 4", "size = 40"))
    (site.root / UTIL).write_text(PATCHED_UTIL)
    st = json.loads(radpatch("--registry", str(registry), "status", "--json", "toy").out)[0]
    if st["state"] == "applied":  # by its code: never counted by --check without a record
        assert "radpatch has no record of it" in st["reason"], st
    check = radpatch("--registry", str(registry), "status", "--check", "toy")
    assert check.code == 3, check
    err = refused(site, radpatch, registry, "apply", "toy", "--wheel", str(wheel))
    assert "not adopted: toypkg/core.py's code is not what the patch makes of its RECORD bytes" in err, err
    assert len(err.strip().splitlines()) <= 2 and "carries it by its code" not in err, err  # the reason once
    line = PATCHED_CORE.splitlines().index("        size = 4") + 1
    assert f"(other edits at line {line})" in err, err
    assert "radpatch restore toypkg/core.py" in err, err
    assert not (site.root / ".radpatch" / "record.json").exists()


def test_without_the_index_or_a_wheel_the_refusal_says_what_to_give(
    site: Site, wheel: Path, registry: Path, radpatch: Any, offline: None
) -> None:
    edited = PATCHED_CORE + "# by hand\n\n"
    (site.root / CORE).write_text(edited.replace("spec, cfg=None", "spec, cfg = None"))
    (site.root / UTIL).write_text(PATCHED_UTIL)
    r = radpatch("--registry", str(registry), "apply", "toy")  # it carries the code: nothing to write
    assert r.code == 0 and "not recorded: not adopted (cannot reach the package index" in r.out, r
    assert "radpatch apply --wheel FILE toy" in r.out, r.out
    assert not (site.root / ".radpatch" / "record.json").exists()
    assert radpatch("--registry", str(registry), "status", "--check", "toy").code == 3


def test_a_wheel_of_other_bytes_is_refused_and_nothing_recorded(
    site: Site, wheel: Path, registry: Path, radpatch: Any, offline: None, tmp_path: Path
) -> None:
    other = build_wheel(tmp_path / "other", "toypkg", "1.0", {**ORIGINAL, CORE: ORIGINAL[CORE] + b"# other\n"})
    (site.root / CORE).write_text(PATCHED_CORE + "# by hand\n")
    (site.root / UTIL).write_text(PATCHED_UTIL)
    err = refused(site, radpatch, registry, "apply", "toy", "--wheel", str(other.parent))
    assert "does not hash to the installed RECORD" in err, err


def test_a_stacked_pair_carried_by_hand_is_adopted_together_and_reverted_top_first(
    site: Site, wheel: Path, registry: Path, radpatch: Any, offline: None
) -> None:
    core, util = site.root / CORE, site.root / UTIL
    both = PATCHED_CORE.replace("    return size\n", "    return size * 2\n")
    core.write_text("# both patches, by hand\n" + both)
    util.write_text(PATCHED_UTIL)

    alone = radpatch("--registry", str(registry), "apply", "toy", "--wheel", str(wheel))  # toy alone is not it
    assert alone.code == 1 and "not adopted" in alone.err, alone.err
    assert "carries on_top too: `radpatch apply toy on_top` adopts both" in alone.err, alone.err

    r = radpatch("--registry", str(registry), "apply", "on_top", "--wheel", str(wheel.parent))

    assert r.code == 0, r.err
    assert r.out.count("adopted") == 2, r.out
    assert core.read_text() == "# both patches, by hand\n" + both
    assert state(radpatch, registry, "toy") == "applied" and state(radpatch, registry, "on_top") == "applied"
    assert radpatch("--registry", str(registry), "status", "--check").code == 0
    r = radpatch("--registry", str(registry), "revert", "on_top")
    assert r.code == 0, r.err
    assert sha(core.read_bytes()) != record_of(site, CORE)  # toy is still on
    assert radpatch("--registry", str(registry), "revert", "toy").code == 0
    assert sha(core.read_bytes()) == record_of(site, CORE) and sha(util.read_bytes()) == record_of(site, UTIL)


def test_a_dry_run_says_it_would_adopt_and_records_nothing(
    site: Site, wheel: Path, registry: Path, radpatch: Any, offline: None
) -> None:
    (site.root / CORE).write_text(PATCHED_CORE)
    (site.root / UTIL).write_text(PATCHED_UTIL)
    before = site.snapshot()
    r = radpatch("--registry", str(registry), "apply", "--dry-run", "toy", "--wheel", str(wheel))
    assert r.code == 0, r.err
    assert "toy: would be adopted" in r.out, r.out
    assert site.snapshot() == before


# a half-applied hand edit: one of toy's two changes to core.py made, the other not (its line still
# has the code the patch replaces), with or without an edit of its own elsewhere (att20b F2)
HALF = [
    ("def plan(spec, cfg=None):", "def plan(spec):"),
    ("    return plan(spec, None)", "    return plan(spec)"),
]


@pytest.mark.parametrize(("missing", "also"), sample([(m, a) for m in range(len(HALF)) for a in (False, True)]))
def test_a_half_applied_file_is_refused_naming_the_missing_part(
    site: Site, wheel: Path, registry: Path, radpatch: Any, offline: None, missing: int, also: bool
) -> None:
    patched, original = HALF[missing]
    text = PATCHED_CORE.replace(patched, original)
    if also:
        text = text.replace("size = 4", "size = 40")
    (site.root / CORE).write_text(text)
    (site.root / UTIL).write_text(PATCHED_UTIL)
    before = (site.root / CORE).read_bytes()

    err = refused(site, radpatch, registry, "apply", "toy", "--wheel", str(wheel))

    lines = text.splitlines()
    gap = lines.index(original) + 1
    assert f"the file carries only part of the patch: its change at line {gap} is not there" in err, err
    edited = lines.index("        size = 40") + 1 if also else None
    assert (f"other edits at line {edited}" in err) is also, err
    assert f"other edits at line {gap}" not in err and len(err.strip().splitlines()) <= 2, err
    assert (site.root / CORE).read_bytes() == before


@pytest.mark.parametrize(("missing", "also"), sample([(m, a) for m in range(len(HALF)) for a in (False, True)]))
def test_status_of_a_half_applied_file_says_which_rewrites_it_carries(
    site: Site, wheel: Path, registry: Path, radpatch: Any, missing: int, also: bool
) -> None:
    """att20b F3: the drifted detail starts with the rewrites the file carries and the ones it lacks."""
    patched, original = HALF[missing]
    text = PATCHED_CORE.replace(patched, original)
    (site.root / CORE).write_text(text.replace("size = 4", "size = 40") if also else text)
    (site.root / UTIL).write_text(PATCHED_UTIL)

    st = json.loads(radpatch("--registry", str(registry), "status", "--json", "toy").out)[0]

    ids = ["cfg-param", "pass-cfg"]
    lacks = ids.pop(missing)
    assert st["state"] == "drifted", st
    assert f"{CORE}: carries 1 of 2 rewrites ('{ids[0]}'; not '{lacks}'): matches neither form" in st["reason"], st


# other entries of the registry that rewrite toypkg/core.py, each with what it makes of the line it
# changes: on top of toy (requires it), or beside it (no order: a statement toy does not touch)
OTHERS = {
    "on_top": ("    return size\n", "    return size * 2\n", "requires: [toy]"),
    "side_a": ("        size = 4\n", "        size = 8\n", ""),
    "side_b": ("    size = len(spec)\n", "    size = len(spec) + 1\n", ""),
}


def _other_entry(name: str) -> str:
    find, with_, requires = OTHERS[name]
    return f"""\
    summary: {name}
    description: Another change of toypkg.core, made by hand beside toy's.
    distribution: toypkg
    supported: ">=1.0,<2"
    {requires}
    modules:
      core: toypkg.core
    rewrites:
      - id: {name.replace("_", "-")}
        replace: {{scope: plan, find: {find.strip()!r}, with: {with_.strip()!r}}}
    """


def _hand_applied(
    site: Site, write_registry: Callable[..., Path], carried: tuple[str, ...], stray: bool
) -> tuple[Path, str]:
    """toy and the OTHERS entries in a registry; core.py written by hand with toy's change, the
    `carried` entries' and a `stray` edit no entry makes: the registry and core.py's text."""
    write_registry("toy", TOY_PATCH)
    for name in OTHERS:
        registry = write_registry(name, _other_entry(name))
    text = PATCHED_CORE
    for name in carried:
        text = text.replace(OTHERS[name][0], OTHERS[name][1])
    text += "\nSTRAY = 1\n" if stray else ""
    (site.root / CORE).write_text(text)
    (site.root / UTIL).write_text(PATCHED_UTIL)
    return registry, text


CARRIED = [(c, stray) for k in (0, 1, 2) for c in itertools.combinations(sorted(OTHERS), k) for stray in (False, True)]


@pytest.mark.parametrize(("carried", "stray"), sample(CARRIED))
def test_a_refused_adoption_names_the_other_entries_whose_code_the_file_carries(
    site: Site,
    wheel: Path,
    write_registry: Callable[..., Path],
    radpatch: Any,
    offline: None,
    carried: tuple[str, ...],
    stray: bool,
) -> None:
    """`apply toy` on a core.py that carries toy's change and, by hand, other entries' (and perhaps a
    stray edit no entry makes): refused naming exactly those entries, and the command the hint gives
    adopts them all; with a stray edit, or none of theirs, no entry is named. Oracle: the entries
    written into the file, and the hint's own command run (then revert gives RECORD's bytes back)."""
    registry, text = _hand_applied(site, write_registry, carried, stray)
    core = site.root / CORE

    r = radpatch("--registry", str(registry), "apply", "toy", "--wheel", str(wheel))

    if not carried and not stray:
        assert r.code == 0 and "toy: adopted" in r.out, r
        return
    assert r.code == 1 and "not adopted" in r.err, r
    named = re.search(r"carries ([\w, ]+) too: `radpatch apply ([\w ]+)` adopts", r.err)
    if stray or not carried:
        assert named is None and "radpatch restore" in r.err, r.err
        assert core.read_text() == text
        return
    assert named is not None, r.err
    assert named.group(1).split(", ") == list(carried), r.err
    again = radpatch("--registry", str(registry), "apply", *named.group(2).split(), "--wheel", str(wheel))
    assert again.code == 0 and again.out.count("adopted") == 1 + len(carried), again
    assert core.read_text() == text
    assert radpatch("--registry", str(registry), "status", "--check").code == 0
    for name in [*(n for n in carried if n == "on_top"), *(n for n in carried if n != "on_top"), "toy"]:
        assert radpatch("--registry", str(registry), "revert", name).code == 0
    assert sha(core.read_bytes()) == record_of(site, CORE)


@pytest.mark.parametrize(("carried", "stray"), sample(CARRIED))
def test_status_of_a_hand_edited_file_says_what_else_it_carries(
    site: Site,
    wheel: Path,
    write_registry: Callable[..., Path],
    radpatch: Any,
    carried: tuple[str, ...],
    stray: bool,
) -> None:
    """Plain `status` of toy applied by hand (no record of radpatch's): nothing else, the other
    entries' code (named: the apply it gives adopts them all), or other edits - read from the files
    and RECORD only (no wheel is given). Oracle: what was written into the file."""
    registry, _ = _hand_applied(site, write_registry, carried, stray)

    r = radpatch("--registry", str(registry), "status", "--json")

    assert r.code == 0, r.err
    reason = next(s["reason"] for s in json.loads(r.out) if s["patch"] == "toy")
    assert ("nothing else is there" in reason) is (not carried and not stray), reason
    assert ("other edits too" in reason) is stray, reason
    named = re.search(r"and ([\w, ]+)'s code, by hand too.*`radpatch apply ([\w ]+)` adopts", reason)
    assert (named is not None) is (bool(carried) and not stray), reason
    if named is not None:
        assert named.group(1).split(", ") == list(carried), reason
        again = radpatch("--registry", str(registry), "apply", *named.group(2).split(), "--wheel", str(wheel))
        assert again.code == 0 and again.out.count("adopted") == 1 + len(carried), again
