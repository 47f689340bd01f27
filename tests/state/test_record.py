"""radpatch's own state on a fake installation (radpatch/state/): the record, the kept originals and
the journal stay honest across new revisions of an entry, layout edits, interrupted runs, damaged
or hostile state files, stacked patches and upgrades. tests/state/test_state_safety.py repeats the
state-safety cases on pip-installed wheels.

Every refusal must leave every file of the installation byte-identical (Site.snapshot).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.lib.fifo import fifo_in_place_of
from tests.lib.site import Site
from tests.lib.toy import ORIGINAL, one_rewrite, refused, sources


def test_a_new_revision_of_the_entry_is_reapplied_from_the_kept_original(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    pristine = site.snapshot()
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    entry = toy / "toy.yaml"
    entry.write_text(entry.read_text().replace("with: x * 3", "with: x * 4"))  # the entry's bug fix
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 0 and "re-applying the current one" in r.out
    assert "x * 4" in (site.root / "toypkg/util.py").read_text()
    assert radpatch("--registry", str(toy), "apply", "toy").out.endswith("nothing to do\n")
    assert radpatch("--registry", str(toy), "revert", "toy").code == 0
    sources = lambda snap: {k: v for k, v in snap.items() if k.endswith(".py")}  # noqa: E731
    assert sources(site.snapshot()) == sources(pristine)


def test_revert_after_a_new_revision_restores_the_kept_original(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    util = site.root / "toypkg/util.py"
    original = util.read_bytes()
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    entry = toy / "toy.yaml"
    entry.write_text(entry.read_text().replace("with: x * 3", "with: x * 4"))
    assert radpatch("--registry", str(toy), "revert", "toy").code == 0
    assert util.read_bytes() == original


def test_a_comment_added_after_patching_is_kept_by_revert(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    util = site.root / "toypkg/util.py"
    util.write_text(util.read_text() + "# a note someone added\n")
    assert radpatch("--registry", str(toy), "status", "--check", "toy").code == 0
    r = radpatch("--registry", str(toy), "revert", "toy")
    assert r.code == 0 and "they are kept" in r.out
    assert util.read_text().endswith("# a note someone added\n") and "x * 2" in util.read_text()


def test_an_interrupted_run_fails_status_check_until_completed(site: Site, toy: Path, radpatch, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from radpatch.state import record as store

    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    # a journal left by a run killed before its record: the next apply/revert rolls it back
    util = site.root / "toypkg/util.py"
    store.Store(site.root).begin("killed-run", "revert", ["toy"], {util: (util.read_bytes(), b"never written")})
    assert radpatch("--registry", str(toy), "status", "--check", "toy").code == 3
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    assert radpatch("--registry", str(toy), "status", "--check", "toy").code == 0


def test_a_record_of_the_wrong_shape_is_a_clean_error(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    (site.root / ".radpatch/record.json").write_text("[]")
    r = radpatch("--registry", str(toy), "status", "toy")
    assert r.code == 4 and "record.json is unreadable" in r.err and "Traceback" not in r.err


def test_a_record_nested_too_deeply_is_a_clean_error(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    (site.root / ".radpatch/record.json").write_text("[" * 100_000 + "]" * 100_000)
    for cmd in (["status", "toy"], ["apply", "toy"], ["revert", "toy"]):
        r = radpatch("--registry", str(toy), *cmd)
        assert r.code == 4 and "record.json is unreadable" in r.err and "internal error" not in r.err, (cmd, r.err)


def test_a_journal_plan_nested_too_deeply_is_a_damaged_journal(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    from radpatch.state import record as store

    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    util = site.root / "toypkg/util.py"
    store.Store(site.root).begin("killed-run", "revert", ["toy"], {util: (util.read_bytes(), b"never written")})
    (site.root / ".radpatch/journal/plan.json").write_text('{"files": ' + "[" * 100_000 + "]" * 100_000 + "}")
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 4 and "plan.json is unreadable" in r.err and "internal error" not in r.err, r.err


def test_a_record_that_is_a_fifo_is_an_error_not_a_hang(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    record = site.root / ".radpatch/record.json"
    with fifo_in_place_of(record):
        r = radpatch("--registry", str(toy), "status", "toy")
    assert r.code == 4 and "record.json is unreadable" in r.err and "not a regular file" in r.err, r.err


def test_a_kept_original_that_is_a_fifo_is_written_again(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    pristine = sources(site)
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    assert radpatch("--registry", str(toy), "revert", "toy").code == 0
    originals = site.root / ".radpatch" / "originals"
    originals.mkdir(parents=True)
    kept = originals / hashlib.sha256(pristine["toypkg/core.py"]).hexdigest()
    kept.write_bytes(pristine["toypkg/core.py"])  # what a reader that blocked on the FIFO is fed
    with fifo_in_place_of(kept):
        assert radpatch("--registry", str(toy), "apply", "toy").code == 0
        assert kept.is_file(), "the FIFO was taken for the kept original"
    assert kept.read_bytes() == pristine["toypkg/core.py"]
    assert radpatch("--registry", str(toy), "revert", "toy").code == 0 and sources(site) == pristine


@pytest.mark.parametrize("link", ["originals", "record.json", ".radpatch", "salvaged.json"])
def test_a_symbolic_link_in_radpatch_state_is_refused_never_followed(
    site: Site, toy: Path, radpatch, tmp_path: Path, link: str
) -> None:  # type: ignore[no-untyped-def]
    """A link could send the record's write, or the pruning of kept originals, anywhere."""
    pristine = sources(site)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "notes.txt").write_text("keep me")
    state = site.root / ".radpatch"
    if link == ".radpatch":
        state.symlink_to(victim, target_is_directory=True)
    else:
        state.mkdir()
        (state / link).symlink_to(victim if link == "originals" else victim / "record.json")
    r = radpatch("--registry", str(toy), "apply", "toy")
    assert r.code == 4 and "is a symbolic link; radpatch never writes or deletes through one" in r.err, r.err
    assert sorted(p.name for p in victim.iterdir()) == ["notes.txt"] and (victim / "notes.txt").read_text() == "keep me"
    assert sources(site) == pristine


def test_a_directory_at_a_kept_original_does_not_break_revert(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    pristine = sources(site)
    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    for kept in (site.root / ".radpatch" / "originals").iterdir():
        kept.unlink()
        kept.mkdir()
    r = radpatch("--registry", str(toy), "revert", "toy")
    assert r.code == 0, r.err
    assert sources(site) == pristine
    st = json.loads(radpatch("--registry", str(toy), "status", "--json", "toy").out)[0]
    assert st["state"] == "not-applied", st


def test_stacked_patches_come_off_newest_first_whatever_the_command_line_order(
    site: Site, toy: Path, write_registry, radpatch
) -> None:  # type: ignore[no-untyped-def]
    write_registry("low", one_rewrite('- replace: {scope: groups, find: plan(spec), with: "plan(spec[:8])"}\n'))
    write_registry("high", one_rewrite('- replace: {scope: groups, find: "plan(spec[:8])", with: "plan(spec[:4])"}\n'))
    assert radpatch("--registry", str(toy), "apply", "low").code == 0
    assert radpatch("--registry", str(toy), "apply", "high").code == 0
    st = json.loads(radpatch("--registry", str(toy), "status", "--json", "low", "high").out)
    assert [s["state"] for s in st] == ["applied", "applied"], st
    err = refused(site, radpatch, toy, "revert", "low")
    assert "radpatch revert low high" in err
    r = radpatch("--registry", str(toy), "revert", "low", "high")  # the CLI's reverse would be wrong
    assert r.code == 0, r.err
    assert sources(site) == ORIGINAL and not (site.root / ".radpatch").exists()


def test_a_record_from_another_version_is_not_trusted(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    import shutil

    assert radpatch("--registry", str(toy), "apply", "toy").code == 0
    patched = sources(site)
    shutil.rmtree(site.root / "toypkg-1.0.dist-info")
    site.install("toypkg", "1.1", {rel: data.decode() for rel, data in patched.items()})  # 1.1 ships the patched bytes
    st = json.loads(radpatch("--registry", str(toy), "status", "--json", "toy").out)[0]
    assert st["state"] == "not-applied" and "not trusted" in st["reason"], st
    assert radpatch("--registry", str(toy), "revert", "toy").code == 0
    assert sources(site) == patched, "revert wrote 1.0's original into 1.1"
    err = refused(site, radpatch, toy, "apply", "toy")
    assert "already contains what the patch adds" in err
