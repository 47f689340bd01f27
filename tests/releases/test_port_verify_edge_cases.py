"""Edge cases of `port` and `verify`: `port` editing odd but valid YAML in place, the option its
errors name, the matrix's JSON, a scope several modules define, dry runs, a damaged cache.

Each case is valid input a maintainer can write (an anchor on `supported:`, a block scalar, a
flow-style `modules:` mapping, a local version such as vLLM's `+cpu`) on which a promise broke.
The wheels are built here and served by the loopback index (tests/releases/conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.releases.summaries import obsolete_words
from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import DIST, GOOD, PKG, REWRITES
from tests.lib.toy_releases import RELEASES as TOY

# the toy's releases up to 2.0 (2.0 moves size() to planning.py)
RELEASES = {v: TOY[v] for v in ("1.0", "1.1", "2.0")}


def entry(supported: str, modules: str) -> str:
    return (
        "# an entry written by hand: port must keep what it does not change\n"
        "summary: Cap the toy's size by its buckets\n"
        "description: A toy patch.\n"
        f"distribution: {DIST}\n"
        f"{supported}\n"
        f"{modules}\n"
        f"{REWRITES}"
    )


@pytest.fixture
def index(loopback: Any) -> IndexServer:
    return loopback(DIST, RELEASES)  # type: ignore[no-any-return]


def test_port_keeps_an_anchor_on_supported_that_an_alias_uses(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    # the choice's range is the entry's range, written once: widening one widens both
    text = entry(
        'supported: &range "==1.0"   # one range',
        f"modules:\n  planner:\n    - {{versions: *range, module: {PKG}.core}}",
    )
    reg = write_registry("cap", text)
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_text()
    assert 'supported: &range ">=1.0,<=1.1"   # one range' in after
    assert yaml.safe_load(after)["modules"]["planner"][0]["versions"] == ">=1.0,<=1.1"


def test_port_rewrites_a_block_scalar_supported_without_eating_the_next_key(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry("supported: >-\n  ==1.0\n", f"modules:\n  planner: {PKG}.core"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1", "--dry-run")
    assert r.code == 0, r.out + r.err
    assert '+supported: ">=1.0,<=1.1"' in r.out
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_text()
    assert 'supported: ">=1.0,<=1.1"\n\nmodules:\n' in after
    assert yaml.safe_load(after)["supported"] == ">=1.0,<=1.1"


def test_port_keeps_a_tag_on_supported(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("cap", entry('supported: !!str "==1.0"', f"modules:\n  planner: {PKG}.core"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.out + r.err
    assert 'supported: !!str ">=1.0,<=1.1"\n' in (reg / "cap.yaml").read_text()


def test_port_adds_a_moved_module_inside_a_flow_modules_mapping(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry('supported: ">=1.0,<2"', f"modules: {{planner: {PKG}.core}}   # one module"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_text()
    assert (
        f'modules: {{planner: [{{versions: "<2.0", module: {PKG}.core}}, '
        f'{{versions: ">=2.0", module: {PKG}.planning}}]}}   # one module\n'
    ) in after
    assert radpatch("--registry", str(reg), "verify", "cap").code == 0


def test_a_bad_to_names_the_option_the_user_wrote(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("cap", entry('supported: "==1.0"', f"modules:\n  planner: {PKG}.core"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.x")
    assert r.code == 2
    assert "--to '1.x' is not a PEP 440 version range" in r.err and "--versions" not in r.err
    assert "Traceback" not in r.err and len(r.err.strip().splitlines()) <= 2


# --- more YAML layouts port must keep valid --------------------------------------------------------


def test_port_adds_a_choice_to_a_list_whose_dashes_are_followed_by_several_spaces(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    modules = f'modules:\n  planner:\n    -   versions: ">=1.0"\n        module: {PKG}.core'
    reg = write_registry("cap", entry('supported: ">=1.0,<2"', modules))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_text()
    assert yaml.safe_load(after)["modules"]["planner"] == [
        {"versions": ">=1.0,<2.0", "module": f"{PKG}.core"},
        {"versions": ">=2.0", "module": f"{PKG}.planning"},
    ]
    assert f'    - versions: ">=2.0"\n      module: {PKG}.planning\n' in after  # at the list's dash column


# --- the matrix's JSON -------------------------------------------------------------------------------


def test_the_matrix_json_entries_equal_verify_name_json_without_versions(
    index: IndexServer, write_registry: Any, radpatch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the docs: `entries` holds, per entry, exactly the object `verify NAME --json` prints
    from radpatch.registry import catalog

    (tmp_path / "none").mkdir()
    monkeypatch.setattr(catalog, "shipped_registry", lambda: tmp_path / "none")
    modules = f"modules:\n  planner: {PKG}.core"
    reg = write_registry("wide", entry('supported: ">=1.0,<2"', modules))
    write_registry("narrow", entry('supported: "==1.0"', modules))
    data = json.loads(radpatch("--registry", str(reg), "verify", "--all", "--json").out)
    assert [e["patch"] for e in data["entries"]] == ["narrow", "wide"]
    for e in data["entries"]:
        alone = json.loads(radpatch("--registry", str(reg), "verify", e["patch"], "--json").out)
        e.pop("fetched"), alone.pop("fetched")  # what each run read from the index
        assert e == alone


# --- moved: a scope name several modules define ------------------------------------------------------


def test_a_scope_that_two_modules_define_and_prove_is_not_silently_given_to_the_first(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    # 2.0 drops core.py; a compat shim and the new home both define size() with the same body:
    # which one the program calls cannot be told from the code, so port must not pick one by name
    loopback(
        DIST,
        {
            "1.0": {f"{PKG}/core.py": GOOD},
            "2.0": {f"{PKG}/compat.py": GOOD, f"{PKG}/planning.py": GOOD},
        },
    )
    reg = write_registry("cap", entry('supported: "==1.0"', f"modules:\n  planner: {PKG}.core"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 1, r.out + r.err
    assert f"{PKG}.compat" in r.out and f"{PKG}.planning" in r.out  # both named
    assert (reg / "cap.yaml").read_bytes() == before


# --- a rewrite's own `versions:` -------------------------------------------------------------------


def test_port_does_not_claim_a_release_where_no_rewrite_applies(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    # the only rewrite is for 1.0: on 1.1 the entry would change nothing, so 1.1 is not "still proves"
    text = entry('supported: "==1.0"', f"modules:\n  planner: {PKG}.core").replace(
        "  - id: cap\n", '  - id: cap\n    versions: "==1.0"\n'
    )
    reg = write_registry("cap", text)
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 1, r.out + r.err
    assert (reg / "cap.yaml").read_bytes() == before


# --- port --dry-run tells what a real run would do -------------------------------------------------

CLOSED = f'modules:\n  planner:\n    - {{versions: ">=1.0,<1.1", module: {PKG}.core}}'


def test_a_dry_run_of_an_edit_that_does_not_prove_says_so_and_fails(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, {**RELEASES, "2.1": TOY["2.1"]})
    # 2.1 is claimed and its size() is rewritten: the edit for 2.0 alone leaves it failing (1.1, which no
    # module choice covers, proves once the edit adds a second choice: apply picks rptoy.core there by its code)
    reg = write_registry("cap", entry('supported: ">=1.0,<2.2"', CLOSED))
    before = sorted((p.name, p.read_bytes()) for p in reg.iterdir())
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0", "--dry-run")
    assert r.code == 1, r.out + r.err
    assert "would not be written: the edited entry does not prove: 2.1 fail " in r.out
    assert "port a range that holds it too" in r.err and "no longer matches" not in r.err
    assert sorted((p.name, p.read_bytes()) for p in reg.iterdir()) == before  # not even a temporary file


def test_an_edit_that_does_not_load_is_named_by_the_registry_file_not_a_temporary_one(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    from radpatch.registry.loader import load_patch
    from radpatch.releases import port
    from radpatch.releases.wheels import Releases

    reg = write_registry("cap", entry('supported: "==1.0"', f"modules:\n  planner: {PKG}.core"))
    patch = load_patch(reg / "cap.yaml")
    broken = port.Port(patch, (), patch.source.read_text(), "supported: [\n", ("x",))
    ((version, why),) = port.prove_edit(broken, Releases.from_env())
    assert version is None and why.startswith(f"{reg / 'cap.yaml'}:"), why


def test_port_edits_at_the_right_place_after_a_bom_unicode_and_tabs(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    # character offsets, not bytes: a BOM, accents, a character outside the BMP and tabs before the edits
    text = entry('supported:\t"==1.0"\t# écrit pour 1.0 🚀', f"modules: {{planner:\t{PKG}.core}}  # ünïcödé")
    reg = write_registry("cap", "")
    # written as bytes by hand, not by tests/lib's writer: the test is about the file's bytes (a BOM
    # before the text), which the writer (text, dedented) does not write
    (reg / "cap.yaml").write_bytes(b"\xef\xbb\xbf" + text.replace("A toy patch.", "Ein Spielzeug — 玩具.").encode())
    r = radpatch("--registry", str(reg), "port", "cap", "--to", ">=1.1,<=2.0")
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_bytes().decode("utf-8")
    assert after.startswith("\ufeff# an entry")
    assert 'supported:\t">=1.0,<=2.0"\t# écrit pour 1.0 🚀\n' in after
    assert yaml.load(after.lstrip("\ufeff"), Loader=yaml.CSafeLoader)["modules"][
        "planner"
    ] == [  # as the registry reads it
        {"versions": "<2.0", "module": f"{PKG}.core"},
        {"versions": ">=2.0", "module": f"{PKG}.planning"},
    ]


def test_a_file_port_cannot_parse_is_named_in_one_line() -> None:
    from radpatch.releases import yamledit

    with pytest.raises(ValueError) as caught:
        yamledit.compose('supported: ">=1.0"\nmodules: [a,\n')
    assert "\n" not in str(caught.value) and str(caught.value).startswith("line "), str(caught.value)


# --- list's upstream notes on a damaged cache ----------------------------------------------------


def test_list_and_status_survive_a_summary_with_a_key_that_is_no_version(
    write_registry: Any, radpatch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from radpatch.registry.loader import load_patch
    from radpatch.releases.summaries import summary_path
    from radpatch.state.verified import cache_root

    monkeypatch.setenv("RADPATCH_CACHE", str(tmp_path / "cache"))
    text = (
        entry('supported: "==1.0"', f"modules:\n  planner: {PKG}.core") + "upstream: [https://github.com/o/r/pull/7]\n"
    )
    reg = write_registry("cap", text)
    path = summary_path(cache_root(), load_patch(reg / "cap.yaml"))
    path.parent.mkdir(parents=True)
    # a cache written by another version, or damaged: one bad key must not hide the others
    path.write_text(json.dumps({"patch": "cap", "obsolete": {"not a version": True, "1.0": True}}))
    r = radpatch("--registry", str(reg), "list")
    assert r.code == 0, r.err
    one = Version("1.0")
    assert f"upstream: cap: o/r#7, {obsolete_words((one, one))} (verify read no later release)" in r.out
    r = radpatch("--registry", str(reg), "status", "cap")
    assert r.code != 70 and "internal error" not in r.err, r.err


# --- writing the edit -------------------------------------------------------------------------------


def test_port_edits_the_file_a_registry_symlink_points_at_and_keeps_the_link(
    index: IndexServer, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    # a registry of links into a shared checkout: the checkout's file is the entry
    shared = write_registry("cap", entry('supported: "==1.0"', f"modules:\n  planner: {PKG}.core"), dirname="shared")
    reg = tmp_path / "links"
    reg.mkdir()
    (reg / "cap.yaml").symlink_to(shared / "cap.yaml")
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.out + r.err
    assert (reg / "cap.yaml").is_symlink()
    assert 'supported: ">=1.0,<=1.1"' in (shared / "cap.yaml").read_text()


def test_port_does_not_overwrite_a_file_changed_after_it_was_read(
    index: IndexServer, write_registry: Any, tmp_path: Path
) -> None:
    from radpatch.errors import RadpatchError
    from radpatch.registry.loader import load_patch
    from radpatch.releases import port
    from radpatch.releases.wheels import Releases

    reg = write_registry("cap", entry('supported: "==1.0"', f"modules:\n  planner: {PKG}.core"))
    plan = port.plan(load_patch(reg / "cap.yaml"), SpecifierSet("==1.1"), Releases.from_env())
    assert plan.after is not None
    edited = (reg / "cap.yaml").read_text().replace("A toy patch.", "A toy patch, edited meanwhile.")
    # by hand, not by tests/lib's writer: the test is about the file's text an editor saved while port
    # was proving (port must not overwrite it), not about an entry
    (reg / "cap.yaml").write_text(edited)
    with pytest.raises(RadpatchError) as caught:
        port.write(plan)
    assert "changed" in caught.value.message
    assert (reg / "cap.yaml").read_text() == edited


def test_port_back_to_a_release_that_used_the_old_module(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    # written for 2.0 (planning); a team on 1.1 wants it too: core for the older releases, planning kept
    reg = write_registry("cap", entry('supported: ">=2.0"', f"modules:\n  planner: {PKG}.planning"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.out + r.err
    after = yaml.safe_load((reg / "cap.yaml").read_text())
    assert after["supported"] == ">=1.1"
    assert after["modules"]["planner"] == [
        {"versions": "<2.0", "module": f"{PKG}.core"},
        {"versions": ">=2.0", "module": f"{PKG}.planning"},
    ]


def test_an_entry_port_leaves_for_a_hand_edit_is_not_a_success(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    # 2.0 moves size() to planning, 2.1 moves it again: port cannot write one variant, so nothing is ported
    loopback(
        DIST,
        {
            "1.0": {f"{PKG}/core.py": GOOD},
            "2.0": {f"{PKG}/planning.py": GOOD},
            "2.1": {f"{PKG}/placement.py": GOOD},
        },
    )
    reg = write_registry("cap", entry('supported: "==1.0"', f"modules:\n  planner: {PKG}.core"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", ">=2.0")
    assert "left alone" in r.out and "several modules" in r.out, r.out
    assert r.code == 1 and "not ported: cap" in r.err, r.err
    assert (reg / "cap.yaml").read_bytes() == before


def test_widening_a_range_of_exclusions_only_is_a_clear_usage_error_not_an_empty_range() -> None:
    from packaging.version import Version

    from radpatch.errors import UsageError
    from radpatch.releases.port_edits import widen

    with pytest.raises(UsageError) as caught:
        widen("!=1.1", [Version("1.1")])
    assert "claims every release" in caught.value.message
    assert widen(">=1.0, <2", [Version("2.0")]) == ">=1.0,<3"  # spaces after commas: still widened


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1"])
def test_a_registry_file_that_is_not_utf8_is_a_clear_error_not_an_internal_one(
    index: IndexServer, write_registry: Any, radpatch: Any, encoding: str
) -> None:
    text = entry('supported: "==1.0"   # für 1.0', f"modules:\n  planner: {PKG}.core")
    reg = write_registry("cap", "")
    # written as bytes by hand, not by tests/lib's writer: the test is about the file's encoding
    (reg / "cap.yaml").write_bytes(text.encode(encoding))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code in (0, 1, 2), r.err
    assert "internal error" not in r.err and len(r.err.strip().splitlines()[-2:]) <= 2
    if r.code != 0:
        assert (reg / "cap.yaml").read_bytes() == before
        assert "cap.yaml" in r.err


def test_verify_all_of_no_entries_says_so(radpatch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from radpatch.registry import catalog

    (tmp_path / "none").mkdir()
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(catalog, "shipped_registry", lambda: tmp_path / "none")
    r = radpatch("--registry", str(tmp_path / "empty"), "verify", "--all")
    assert r.code == 2 and "no entries" in r.err, r.err
    assert len(r.err.strip().splitlines()) <= 2 and r.out == ""
