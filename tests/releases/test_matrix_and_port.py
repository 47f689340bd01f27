"""`verify --all` (the matrix) and `port`, on real wheels built here and served by a loopback index.

The toy distribution's `size()` lives in rptoy/core.py up to 1.1; 2.0 moves it to rptoy/planning.py
(core.py only re-imports it); 2.1 rewrites its body (the rewrite's `find` is gone); 2.2 has no
core.py at all; 3.0 already carries the change upstream. Each cell comes from verify's own proof of
that wheel, read by range requests from a loopback IndexServer (tests/lib/index_server.py, through
the `loopback` fixture of tests/releases/conftest.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.index_server import IndexServer
from tests.lib.matrix import cells
from tests.lib.toy_releases import PKG, entry

# --- the matrix ---------------------------------------------------------------------------------


def test_the_matrix_names_each_cell_kind(
    index: IndexServer, write_registry: Any, radpatch: Any, no_shipped: None
) -> None:
    reg = write_registry("wide", entry(">=1.0,<4"))
    write_registry("narrow", entry("==1.0"))
    r = radpatch("--registry", str(reg), "verify", "--all")
    assert r.code == 1, r.err  # 2.0 and 2.1 are claimed by `wide` and fail as written
    table = cells(r.out)
    assert table["wide"] == {
        "1.0": "pass",
        "1.1": "pass",
        "2.0": "moved",
        "2.1": "no match",
        "2.2": "moved",
        "3.0": "obsolete",
    }
    assert table["narrow"] == {
        "1.0": "pass",
        "1.1": "out (pass)",
        "2.0": f"out (moved: {PKG}.planning)",  # port would carry it there
        "2.1": "out",
        "2.2": f"out (moved: {PKG}.planning)",
        "3.0": "obsolete",
    }
    assert f"wide 2.0: moved: {PKG}.core -> {PKG}.planning (the rewrites prove there)" in r.out
    assert f"wide 2.2: moved: {PKG}.core -> {PKG}.planning (the rewrites prove there)" in r.out  # module gone
    nearest = next(line for line in r.out.splitlines() if line.startswith("wide 2.1: no match"))
    assert f"nearest candidate {PKG}.core:3" in nearest and "n = len(list(items))" in nearest
    assert "wide 3.0: obsolete: the release already contains the change" in r.out
    assert "1.0 fail" not in r.out
    assert "wide 2.0 (module" in r.err or "wide 2.0 (match)" in r.err


def test_the_matrix_json_holds_verify_names_own_objects(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("wide", entry(">=1.0,<4"))
    write_registry("narrow", entry("==1.0"))
    r = radpatch("--registry", str(reg), "verify", "wide", "narrow", "--versions", ">=1.0", "--json")
    data = json.loads(r.out)
    assert [e["patch"] for e in data["entries"]] == ["wide", "narrow"]
    for e in data["entries"]:
        alone = json.loads(radpatch("--registry", str(reg), "verify", e["patch"], "--versions", ">=1.0", "--json").out)
        e.pop("fetched"), alone.pop("fetched")  # what the run read: the matrix read it, the second run did not
        assert e == alone
    wide = next(m for m in data["matrix"] if m["patch"] == "wide")
    by_version = {c["version"]: c for c in wide["cells"]}
    assert by_version["2.0"]["cell"] == "moved" and by_version["2.0"]["module"] == f"{PKG}.planning"
    assert by_version["2.0"]["proven"] is True
    assert by_version["3.0"]["cell"] == "obsolete"
    # two entries with the same insertion: each adds its copy, and either order writes the same code on the
    # release, so the order does not matter and no overlap is reported (as apply applies them; ovl47)
    assert not any(set(o["patches"]) == {"wide", "narrow"} for o in data["overlaps"]), data["overlaps"]


def test_an_entry_that_cannot_be_verified_gets_a_row_saying_why(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("wide", entry(">=1.0,<4"))
    r = radpatch("--registry", str(reg), "verify", "--all", "--versions", "<2")
    assert r.code == 1  # the shipped kv_group_size patches vllm, which this index does not have
    assert cells(r.out)["wide"] == {"1.0": "pass", "1.1": "pass"}
    assert "kv_group_size: not verified: distribution 'vllm' has no release on the package index" in r.out


def test_verify_without_names_or_all_is_a_usage_error(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("wide", entry(">=1.0,<4"))
    assert radpatch("--registry", str(reg), "verify").code == 2
    assert radpatch("--registry", str(reg), "verify", "wide", "--all").code == 2


# --- port ---------------------------------------------------------------------------------------


def test_port_widens_supported_where_every_rewrite_proves(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry("==1.0"))
    before = (reg / "cap.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.err
    after = (reg / "cap.yaml").read_text()
    assert after == before.replace('supported: "==1.0"', 'supported: ">=1.0,<=1.1"')  # one scalar, comments kept
    assert '-supported: "==1.0"    # the releases it was written for' in r.out
    assert "written:" in r.out and "(proven over its new range >=1.0,<=1.1)" in r.out  # the widened range
    assert radpatch("--registry", str(reg), "verify", "cap").code == 0  # the edited entry proves on 1.0 and 1.1


def test_port_dry_run_shows_the_diff_and_writes_nothing(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("cap", entry("==1.0"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1", "--dry-run")
    assert r.code == 0, r.err
    assert '+supported: ">=1.0,<=1.1"' in r.out and "dry run: nothing written" in r.out
    assert "the edit proves over its new range >=1.0,<=1.1)" in r.out
    assert (reg / "cap.yaml").read_bytes() == before


def test_port_adds_the_module_a_scope_moved_to(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("cap", entry(">=1.0,<2"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 0, r.err
    text = (reg / "cap.yaml").read_text()
    # `<3` would claim 2.1, which the index lists and which does not prove: the bound is the release
    assert 'supported: ">=1.0,<=2.0"    # the releases it was written for' in text
    assert (
        "modules:\n"
        "  planner:\n"
        f'    - versions: "<2.0"\n      module: {PKG}.core   # where size() lives\n'
        f'    - versions: ">=2.0"\n      module: {PKG}.planning\n'
    ) in text
    v = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--json").out)
    results = {x["version"]: x for x in v["results"]}
    assert results["2.0"]["ok"] and results["2.0"]["modules"] == [f"{PKG}.planning"]
    assert results["1.1"]["ok"] and results["1.1"]["modules"] == [f"{PKG}.core"]


@pytest.mark.parametrize(
    "modules, expected",
    [
        (
            f'  planner:\n    - {{versions: ">=1.0", module: {PKG}.core}}\n',
            f'  planner:\n    - {{versions: ">=1.0,<2.0", module: {PKG}.core}}\n'
            f'    - {{versions: ">=2.0", module: {PKG}.planning}}\n',
        ),
        (
            f'  planner: [{{versions: ">=1", module: {PKG}.core}}]\n',
            f'  planner: [{{versions: ">=1,<2.0", module: {PKG}.core}}, '
            f'{{versions: ">=2.0", module: {PKG}.planning}}]\n',
        ),
        (
            f'  planner:\n    - module: {PKG}.core\n      versions: ">=1.0"\n',
            f'  planner:\n    - module: {PKG}.core\n      versions: ">=1.0,<2.0"\n'
            f'    - module: {PKG}.planning\n      versions: ">=2.0"\n',
        ),
    ],
    ids=["flow-items", "flow-list", "block-items"],
)
def test_port_adds_a_choice_in_the_style_of_the_list(
    index: IndexServer, write_registry: Any, radpatch: Any, modules: str, expected: str
) -> None:
    reg = write_registry("cap", entry(">=1.0,<2", modules))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 0, r.err
    assert f"modules:\n{expected}" in (reg / "cap.yaml").read_text()


def test_port_leaves_an_entry_alone_where_a_rewrite_no_longer_matches(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry("==1.0"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", ">=1.1,<2.2")
    assert r.code == 1
    assert (reg / "cap.yaml").read_bytes() == before
    assert "2.1: no match: rewrite 'cap': nearest candidate rptoy.core:3" in r.out
    assert "left alone" in r.out and "not ported: cap" in r.err
    assert "---" not in r.out  # no diff: nothing is proposed


def test_port_of_a_release_with_the_change_upstream_leaves_the_entry_alone(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry("==1.0"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "3.0")
    # nothing to port: upstream has the change; the entry is to retire there, nothing is to fix
    assert r.code == 0, r.out + r.err
    assert "3.0: obsolete" in r.out and "3.0 already contains the change (obsolete there): nothing to port" in r.out
    assert "retire the entry" in r.out and "no longer matches" not in r.out + r.err
    assert (reg / "cap.yaml").read_bytes() == before


def test_widen_keeps_the_ranges_style() -> None:
    from packaging.version import Version

    from radpatch.releases.port_edits import widen

    assert widen(">=0.32.0,<0.34", [Version("0.34.0")]) == ">=0.32.0,<0.35"
    assert widen(">=0.32.0,<0.34.0", [Version("0.34.1")]) == ">=0.32.0,<0.35.0"
    assert widen("==0.32.0", [Version("0.33.0")]) == ">=0.32.0,<=0.33.0"
    assert widen(">=0.32,<=0.33.0", [Version("0.31.0"), Version("0.33.1")]) == ">=0.31.0,<=0.33.1"
    assert widen(">=0.32,!=0.33.0", [Version("0.33.0")]) == ">=0.32"
    known = [Version("0.34.0"), Version("0.34.1")]
    assert widen(">=0.32.0,<0.34", [Version("0.34.0")], known) == ">=0.32.0,<=0.34.0"
    assert widen(">=0.32.0,<0.34", known, known) == ">=0.32.0,<0.35"


def test_port_keeps_a_crlf_file_crlf(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("cap", entry(">=1.0,<2"))
    path = reg / "cap.yaml"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 0, r.err
    data = path.read_bytes()
    assert b"module: rptoy.planning\r\n" in data, data
    assert data.count(b"\n") == data.count(b"\r\n")


CLOSED = f'  planner:\n    - {{versions: ">=1.0,<1.1", module: {PKG}.core}}\n'


def test_a_release_no_module_choice_covers_gets_the_latest_choice_extended(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry(">=1.0,<2", CLOSED))
    write_registry("cap2", entry("==1.0"))  # a second entry: the matrix
    v = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap2", "--versions", "<1.2", "--json").out)
    (cell,) = [c for c in v["matrix"][0]["cells"] if c["version"] == "1.1"]
    assert (cell["cell"], cell["module"], cell["proven"]) == ("moved", f"{PKG}.core", True)
    assert cell["detail"].startswith(f"no `modules:` choice covers it; {PKG}.core still defines the scope")
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.err
    text = (reg / "cap.yaml").read_text()
    assert f'  planner:\n    - {{versions: ">=1.0,<1.2", module: {PKG}.core}}\n' in text
    assert 'supported: ">=1.0,<2"' in text  # already claimed: untouched
    assert "(proven over its new range >=1.0,<2)" in r.out  # the range it had: port did not widen it
    assert radpatch("--registry", str(reg), "verify", "cap", "--versions", "<1.2").code == 0


def test_releases_no_module_choice_covers_get_the_choice_extended_and_the_moved_module(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry(">=1.0,<2", CLOSED))
    before = (reg / "cap.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0", "--dry-run")
    # 1.1 is claimed and no choice covers it; with the choice for 2.0 added, apply picks core there by its
    # code (a gap between two choices), and so does verify: the edit proves (rel40)
    assert r.code == 0, r.out + r.err
    assert (reg / "cap.yaml").read_text() == before
    r = radpatch("--registry", str(reg), "port", "cap", "--to", ">=1.1,<2.1")
    assert r.code == 0, r.err
    text = (reg / "cap.yaml").read_text()
    assert (
        f'  planner:\n    - {{versions: ">=1.0,<1.2", module: {PKG}.core}}\n'
        f'    - {{versions: ">=2.0", module: {PKG}.planning}}\n'
    ) in text
    assert 'supported: ">=1.0,<=2.0"' in text  # `<3` would claim 2.1 and 2.2, listed and not proven
