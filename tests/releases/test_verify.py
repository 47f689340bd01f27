"""`radpatch verify`: real wheels built in the test, served by a loopback package index.

The index (tests/lib/index_server.py) logs every request and every byte it sends, so a test can
prove what a run read: nothing on a warm cache, a fraction of a wheel on a cold one, only the new
member for a new patch. radpatch reaches it through pip's own settings (PIP_INDEX_URL,
PIP_CONFIG_FILE=os.devnull).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.errors import UsageError
from radpatch.releases import proof, verify
from radpatch.releases.pipconf import read_settings
from radpatch.releases.results import JSON_SCHEMA_VERSION
from radpatch.releases.wheels import Releases
from tests.lib import REPO
from tests.lib.index_server import IndexServer, pip_to_loopback, servers
from tests.lib.toy_releases import GOOD, PATCHED
from tests.lib.wheels import build_wheel

DIST = "radpatch-toy"
PKG = "rptoy"

REGISTRY = f"""\
summary: Cap the toy's size by its buckets
description: A toy patch whose code moved to another module in 2.0.
distribution: {DIST}
supported: ">=1.0,<3"
modules:
  planner:
    - versions: "<2"
      module: {PKG}.core
    - versions: ">=2"
      module: {PKG}.planning
rewrites:
  - id: cap
    insert_after:
      scope: size
      find: n = len(items)
      code: n = min(n, len(buckets))
"""

NO_BUCKETS = """\
def size(items):
    n = len(items)
    return n
"""
OTHER_CODE = """\
def size(items):
    return len(items)
"""

# version -> files of its wheel
RELEASES: dict[str, dict[str, str]] = {
    "0.8": {f"{PKG}/core.py": OTHER_CODE},  # below the range, fails: stops the walk down
    "0.9": {f"{PKG}/core.py": GOOD},  # below the range, passes: the range could be widened
    "1.0": {f"{PKG}/core.py": GOOD, f"{PKG}/big.py": "DATA = 1\n"},
    "1.1": {f"{PKG}/core.py": NO_BUCKETS},  # the rewrite would read an undefined name
    "2.0": {f"{PKG}/planning.py": GOOD, f"{PKG}/core.py": "from rptoy.planning import size\n"},  # moved
    "3.0": {f"{PKG}/planning.py": PATCHED},  # upstream did it: obsolete
}


@pytest.fixture
def serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """serve(ranges=True, api="html") -> an IndexServer over tmp_path/wheels, and pip's settings pointing at it."""
    pip_to_loopback(monkeypatch, tmp_path / "cache")
    with servers() as serve:

        def start(ranges: bool = True, api: str = "html", tls: ssl.SSLContext | None = None) -> IndexServer:
            server = serve(tmp_path / "wheels", ranges, api, tls)
            monkeypatch.setenv("PIP_INDEX_URL", server.url)
            return server

        yield start


@pytest.fixture
def index(tmp_path: Path, serve: Any) -> IndexServer:
    for version, files in RELEASES.items():
        build_wheel(tmp_path / "wheels", DIST, version, dict(files))
    return serve()  # type: ignore[no-any-return]


@pytest.fixture
def toyreg(write_registry: Any) -> Path:
    return write_registry("vtoy", REGISTRY)  # type: ignore[no-any-return]


def table(out: str) -> dict[str, list[str]]:
    lines = out.splitlines()
    head = lines[1].split()
    assert head[:11] == [
        "RELEASE",
        "RANGE",
        "WHEEL",
        "MODULE",
        "PRISTINE",
        "MATCH",
        "COMPILE",
        "NAMES",
        "PLACEMENT",
        "REVERSE",
        "IDEMPOTENT",
    ]
    return {ln.split()[0]: ln.split()[1:12] for ln in lines[2:] if re.match(r"^\d[\w.]*\s+(in|out)\s", ln)}


# --- what verify says ------------------------------------------------------------------------------


def test_table_says_which_check_fails_for_which_release_and_why(
    index: IndexServer, toyreg: Path, radpatch: Any
) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert r.code == 1
    rows = table(r.out)
    assert rows == {
        "0.8": ["out", "ok", "ok", "ok", "FAIL", "-", "-", "-", "-", "-", "FAIL"],
        "0.9": ["out", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"],
        "1.0": ["in", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"],
        "1.1": ["in", "ok", "ok", "ok", "ok", "ok", "FAIL", "-", "-", "-", "FAIL"],
        "2.0": ["in", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"],
        "3.0": ["out", "ok", "ok", "FAIL", "-", "-", "-", "-", "-", "-", "FAIL"],
    }
    assert (
        "1.1: names: the patched rptoy/core.py would use undefined names: `buckets` (line 3, in size()) is defined "
        "nowhere (NameError)\n" in r.out
    )
    assert "0.8: match: rewrite 'cap' (vtoy.yaml:12:5) on rptoy/core.py: statement `find` not found" in r.out
    assert "2 of 3 releases in the declared range pass." in r.out
    assert "range could be widened to include 0.9" in r.out
    assert "radpatch-toy 3.0 already contains the change (the patch is obsolete there)" in r.out
    assert next(ln for ln in r.out.splitlines() if ln.startswith("2.0 ")).endswith(" rptoy.planning")
    err = [ln for ln in r.err.splitlines() if ln.startswith("radpatch: error:")]
    assert err == ["radpatch: error: vtoy: 1 of 3 releases of radpatch-toy in >=1.0,<3 fail: 1.1 (names)"]
    assert "Traceback" not in r.err


def test_json_lists_every_release_with_its_checks(index: IndexServer, toyreg: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    assert r.code == 1
    data = json.loads(r.out)
    assert data["schema_version"] == JSON_SCHEMA_VERSION == 1
    assert data["patch"] == "vtoy" and data["distribution"] == DIST and data["supported"] == ">=1.0,<3"
    results = {x["version"]: x for x in data["results"]}
    assert list(results) == ["0.8", "0.9", "1.0", "1.1", "2.0", "3.0"]
    assert {k for x in data["results"] for k in x} == {
        "version",
        "in_range",
        "ok",
        "checks",
        "error",
        "modules",
        "note",
        "chosen",
        "not_checked",
        "stale_vouched_exec",  # the entry's vouched_exec: items matching nothing there (att52 #3)
        "absent_vouched_exec",  # the entry's vouched_exec: items whose file is not there (vouch2 #2)
    }
    assert [v for v, x in results.items() if x["in_range"]] == ["1.0", "1.1", "2.0"]
    assert [v for v, x in results.items() if x["ok"]] == ["0.9", "1.0", "2.0"]
    assert results["1.1"]["checks"] == {
        "wheel": True,
        "module": True,
        "requires": True,  # it requires nothing
        "pristine": True,
        "match": True,
        "compile": True,
        "names": False,
        "placement": None,
        "reverse": None,
        "idempotent": None,
    }
    assert (
        results["1.1"]["error"]
        == "names: the patched rptoy/core.py would use undefined names: `buckets` (line 3, in size()) is defined "
        "nowhere (NameError)"
    )
    assert results["1.0"]["error"] is None and all(results["1.0"]["checks"].values())
    assert results["2.0"]["modules"] == ["rptoy.planning"]
    assert data["widen"] == ["0.9"] and data["obsolete"] == ["3.0"]
    assert (data["claimed"], data["passed"]) == (3, 2)
    wheel_bytes = sum(p.stat().st_size for p in index.root.glob("*.whl"))
    assert data["fetched"] == {"releases": 6, "bytes": index.sent(), "wheel_bytes": wheel_bytes, "whole_wheels": 0}


def test_every_json_key_is_documented_in_the_cli_reference(index: IndexServer, toyreg: Path, radpatch: Any) -> None:
    data = json.loads(radpatch("--registry", str(toyreg), "verify", "vtoy", "--json").out)
    # the CLI reference: docs/cli.md once the README's reference moves there (issue 22, item 2)
    (reference, *_) = [p for p in (REPO / "docs" / "cli.md", REPO / "README.md") if p.is_file()]
    readme = reference.read_text()
    section = readme[readme.index("verify --json") :]
    keys = {*data, *data["results"][0], *data["fetched"]}
    assert [k for k in sorted(keys) if f"`{k}`" not in section] == []


def test_explicit_versions_verify_just_those(index: IndexServer, toyreg: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0", "--json")
    assert r.code == 0, r.err
    assert [x["version"] for x in json.loads(r.out)["results"]] == ["1.0"]  # no neighbours probed


@pytest.mark.parametrize("where", ["under-a-file", "read-only"])
def test_a_cache_that_cannot_be_written_is_an_environment_error_not_a_crash(
    index: IndexServer, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, where: str
) -> None:
    if where == "under-a-file":
        (tmp_path / "file").write_text("")
        cache = tmp_path / "file" / "cache"  # its parent is a regular file: NotADirectoryError
    else:
        cache = tmp_path / "ro"
        cache.mkdir(mode=0o500)
        if os.access(cache, os.W_OK):  # root ignores the mode
            cache = Path("/proc/radpatch-test/cache")
    monkeypatch.setenv("RADPATCH_CACHE", str(cache))
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0")
    assert r.code == 4, r.err
    assert r.err.startswith(f"radpatch: error: cannot write radpatch's release cache at {cache}")
    assert "hint: set RADPATCH_CACHE to a writable directory" in r.err


def test_a_spec_outside_the_declared_range_verifies_nothing_claimed_and_fails(
    index: IndexServer, toyreg: Path, radpatch: Any
) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "<1", "--json")
    assert r.code == 2
    data = json.loads(r.out)  # the releases asked for are still reported
    assert [(x["version"], x["ok"]) for x in data["results"]] == [("0.8", False), ("0.9", True)]
    assert (data["claimed"], data["passed"]) == (0, 0)
    assert r.err.splitlines()[-2:] == [
        "radpatch: error: vtoy: none of the releases verified (0.8, 0.9) is in the declared range >=1.0,<3: nothing "
        "the patch claims was verified",
        "  hint: drop --versions to verify the declared range, or widen `supported` to claim these releases",
    ]


def test_pre_releases_are_verified_only_when_named(
    index: IndexServer, tmp_path: Path, toyreg: Path, radpatch: Any
) -> None:
    build_wheel(index.root, DIST, "1.5rc1", dict(RELEASES["1.0"]))
    default = json.loads(radpatch("--registry", str(toyreg), "verify", "vtoy", "--json").out)
    assert "1.5rc1" not in [x["version"] for x in default["results"]]
    named = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", ">=1.5rc1,<2", "--json")
    assert [x["version"] for x in json.loads(named.out)["results"]] == ["1.5rc1"]


# --- what verify reads -----------------------------------------------------------------------------

BIG = {f"{PKG}/core.py": GOOD, f"{PKG}/extra.py": "EXTRA = 1\n" * 2000, f"{PKG}/data.bin": os.urandom(1 << 20)}


def test_a_cold_run_reads_a_fraction_of_each_wheel(serve: Any, tmp_path: Path, toyreg: Path, radpatch: Any) -> None:
    wheel = build_wheel(tmp_path / "wheels", DIST, "1.0", BIG)
    index = serve()
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    assert r.code == 0, r.err
    size = wheel.stat().st_size
    assert size > 1 << 20  # the random member does not compress
    assert 0 < index.sent(wheel.name) < size // 10
    assert all(h.status == 206 for h in index.requests("/files/"))
    assert f"of a {size / (1 << 20):.1f} MiB wheel" in r.err
    assert re.search(r"radpatch: read 1 of 1 wheel\(s\) of radpatch-toy: [\d.]+ KiB of 1\.\d MiB \(\d+\.\d\d%\)", r.err)


def test_warm_cache_reads_nothing_from_the_index(index: IndexServer, toyreg: Path, radpatch: Any) -> None:
    cold = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert len(index.requests("/simple/")) == 1
    # stderr is no terminal here: one line per release read (the range and the first neighbours,
    # then 0.8, probed because 0.9 passed), with its bytes
    lines = [ln for ln in cold.err.splitlines() if re.match(r"radpatch: \[\d/\d\] radpatch-toy ", ln)]
    assert [ln.split()[1] for ln in lines] == [*(f"[{i}/5]" for i in range(1, 6)), "[1/1]"]
    assert all(re.search(r": [\d.]+ (B|KiB) of a [\d.]+ (B|KiB) wheel \([\d.]+%\)", ln) for ln in lines), lines
    index.log.clear()
    warm = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert (warm.code, warm.out) == (cold.code, cold.out)
    assert index.log == [] and "read" not in warm.err


def test_the_cache_is_content_addressed_and_keeps_only_what_patches_read(
    index: IndexServer, toyreg: Path, radpatch: Any, tmp_path: Path
) -> None:
    radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0")
    cache = tmp_path / "cache"
    entry = json.loads((cache / DIST / "1.0" / "radpatch_toy-1.0-py3-none-any.whl.json").read_text())
    info = "radpatch_toy-1.0.dist-info"
    assert sorted(entry["members"]) == [f"{info}/METADATA", f"{info}/RECORD", f"{info}/WHEEL", f"{PKG}/core.py"]
    # asked for (a choice of the target, as a module and as a package: an import name is either), not in 1.0
    assert sorted(entry["absent"]) == [f"{PKG}/core/__init__.py", f"{PKG}/planning.py", f"{PKG}/planning/__init__.py"]
    blobs = {p.name: p.read_bytes() for p in (cache / "blobs").iterdir()}
    assert blobs[entry["members"][f"{PKG}/core.py"]] == GOOD.encode()
    assert all(hashlib.sha256(data).hexdigest() == name for name, data in blobs.items())
    assert entry["tail"]["sha256"] in blobs and not list(cache.rglob("*.whl"))
    # a module shared by several releases is stored once
    radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "0.9")
    assert (
        json.loads((cache / DIST / "0.9" / "radpatch_toy-0.9-py3-none-any.whl.json").read_text())["members"][
            f"{PKG}/core.py"
        ]
        == entry["members"][f"{PKG}/core.py"]
    )


def test_an_entry_of_the_old_layout_is_replaced(
    index: IndexServer, toyreg: Path, radpatch: Any, tmp_path: Path
) -> None:
    old = tmp_path / "cache" / DIST / "1.0"
    (old / PKG).mkdir(parents=True)
    (old / PKG / "core.py").write_text(GOOD)
    (old / "manifest.json").write_text(
        json.dumps({"format": 1, "version": "1.0", "members": [f"{PKG}/core.py"], "absent": []})
    )
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0")
    assert r.code == 0, r.err
    assert sorted(p.name for p in old.iterdir()) == ["radpatch_toy-1.0-py3-none-any.whl.json"]


def test_a_new_patch_reads_only_the_members_it_adds(
    serve: Any, tmp_path: Path, write_registry: Any, radpatch: Any
) -> None:
    wheel = build_wheel(tmp_path / "wheels", DIST, "1.0", BIG)
    index = serve()
    reg = write_registry("vtoy", REGISTRY)
    write_registry("vextra", REGISTRY.replace(f"{PKG}.core", f"{PKG}.extra").replace("scope: size", "scope: nowhere"))
    radpatch("--registry", str(reg), "verify", "vtoy", "--versions", "1.0")
    index.log.clear()
    second = radpatch("--registry", str(reg), "verify", "vextra", "--versions", "1.0", "--json")
    assert json.loads(second.out)["results"][0]["modules"] == [f"{PKG}.extra"]
    with zipfile.ZipFile(wheel) as zf:
        extra = zf.getinfo(f"{PKG}/extra.py")
    (hit,) = index.requests("/files/")  # no tail, no dist-info again: one request for the new member
    assert hit.range and hit.range.startswith(f"bytes={extra.header_offset}-")
    assert extra.compress_size <= hit.sent < extra.compress_size + 200


def test_a_server_without_ranges_means_whole_downloads_and_says_so(
    serve: Any, tmp_path: Path, toyreg: Path, radpatch: Any
) -> None:
    for version in ("0.9", "1.0", "1.1"):
        build_wheel(tmp_path / "wheels", DIST, version, dict(RELEASES[version]))
    plain = serve(ranges=False)
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    data = json.loads(r.out)
    assert [(x["version"], x["ok"]) for x in data["results"]] == [("0.9", True), ("1.0", True), ("1.1", False)]
    assert (
        "radpatch: the server ignores range requests (it answered 200): downloading whole wheels of radpatch-toy"
        in r.err
    )
    assert data["fetched"]["whole_wheels"] == 3
    assert plain.sent() == sum(p.stat().st_size for p in plain.root.glob("*.whl")) == data["fetched"]["bytes"]
    assert "(whole download)" in r.err


def test_a_pep_691_json_index_gives_the_same_answer(serve: Any, tmp_path: Path, toyreg: Path, radpatch: Any) -> None:
    for version, files in RELEASES.items():
        build_wheel(tmp_path / "wheels", DIST, version, dict(files))
    html_index = serve(api="html")
    by_html = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    json_index = serve(api="json")
    os.environ["RADPATCH_CACHE"] = str(tmp_path / "cache-json")
    by_json = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    assert json.loads(by_json.out)["results"] == json.loads(by_html.out)["results"]
    assert html_index.requests("/simple/") and json_index.requests("/simple/")


def test_a_killed_fetch_leaves_no_cache_entry(index: IndexServer, tmp_path: Path) -> None:
    releases = Releases(tmp_path / "cache", read_settings())
    releases.versions(DIST, SpecifierSet(">=1"))
    needs = frozenset({f"{PKG}/core.py"})

    def killed(n: int) -> None:
        raise KeyboardInterrupt  # the run dies while the wheel's bytes arrive

    with pytest.raises(KeyboardInterrupt):
        releases.fetch(DIST, Version("1.0"), needs, killed)
    assert releases.cached(DIST, Version("1.0"), needs) is None
    assert not (tmp_path / "cache" / DIST / "1.0").exists()
    got = releases.get(DIST, Version("1.0"), needs)
    assert got.read(f"{PKG}/core.py") == GOOD.encode()


def test_a_corrupt_blob_is_read_again(index: IndexServer, toyreg: Path, radpatch: Any, tmp_path: Path) -> None:
    cold = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0")
    entry = json.loads((tmp_path / "cache" / DIST / "1.0" / "radpatch_toy-1.0-py3-none-any.whl.json").read_text())
    (tmp_path / "cache" / "blobs" / entry["members"][f"{PKG}/core.py"]).write_text("garbage = 1\n")
    index.log.clear()
    again = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0")
    assert again.out == cold.out and index.requests("/files/")


def test_an_entry_grows_when_another_module_is_needed(index: IndexServer, tmp_path: Path) -> None:
    releases = Releases(tmp_path / "cache", read_settings())
    releases.versions(DIST, SpecifierSet(">=1"))
    first = releases.get(DIST, Version("1.0"), frozenset({f"{PKG}/core.py"}))
    assert first.read(f"{PKG}/big.py") is None
    both = releases.get(DIST, Version("1.0"), frozenset({f"{PKG}/big.py"}))
    assert both.read(f"{PKG}/core.py") == GOOD.encode() and both.read(f"{PKG}/big.py") == b"DATA = 1\n"
    reads = len(index.requests("/files/"))
    releases.get(DIST, Version("1.0"), frozenset({f"{PKG}/core.py", f"{PKG}/big.py"}))
    assert len(index.requests("/files/")) == reads


def test_the_list_of_releases_is_reused_for_a_day(index: IndexServer, tmp_path: Path) -> None:
    now = [1000.0]
    releases = Releases(tmp_path / "cache", read_settings(), clock=lambda: now[0])
    anything = SpecifierSet(">=1")
    assert releases.versions(DIST, anything).versions[-1] == Version("3.0")
    now[0] += 23 * 3600
    assert releases.versions(DIST, anything).from_cache
    build_wheel(index.root, DIST, "3.1", dict(RELEASES["3.0"]))
    assert Version("3.1") in releases.versions(DIST, SpecifierSet("==3.1")).versions  # a pinned release the list lacks
    now[0] += 25 * 3600
    assert not releases.versions(DIST, anything).from_cache
    assert len(index.requests("/simple/")) == 3


def test_other_index_settings_list_again(index: IndexServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Releases(tmp_path / "cache", read_settings()).versions(DIST, SpecifierSet(">=1"))
    monkeypatch.setenv("PIP_INDEX_URL", index.url.replace("127.0.0.1", "localhost"))
    assert not Releases(tmp_path / "cache", read_settings()).versions(DIST, SpecifierSet(">=1")).from_cache
    assert len(index.requests("/simple/")) == 2


# --- proofs ------------------------------------------------------------------------------------------


def test_identical_modules_are_proven_once_and_a_proof_is_kept(
    index: IndexServer, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_wheel(index.root, DIST, "1.0.1", dict(RELEASES["1.0"]))
    build_wheel(index.root, DIST, "1.0.2", dict(RELEASES["1.0"]))
    proofs = []
    real = proof.prove
    monkeypatch.setattr(proof, "prove", lambda job: proofs.append(job) or real(job))
    reg = write_registry("vtoy", REGISTRY)
    r = radpatch("--registry", str(reg), "verify", "vtoy", "--versions", ">=1.0,<1.1", "--json")
    assert [x["ok"] for x in json.loads(r.out)["results"]] == [True, True, True]
    assert len(proofs) == 1
    again = radpatch("--registry", str(reg), "verify", "vtoy", "--versions", ">=1.0,<1.1", "--json")
    assert (
        json.loads(again.out)["results"] == json.loads(r.out)["results"] and len(proofs) == 1
    )  # the kept proof answers
    write_registry("vtoy", REGISTRY.replace("n = min(n, len(buckets))", "n = max(n, len(buckets))"))
    radpatch("--registry", str(reg), "verify", "vtoy", "--versions", ">=1.0,<1.1", "--json")
    assert len(proofs) == 2  # another registry entry: proven again


def test_worker_processes_give_the_same_answer(
    index: IndexServer, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    one = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    monkeypatch.setenv("RADPATCH_JOBS", "2")
    monkeypatch.setenv("RADPATCH_CACHE", str(tmp_path / "cache2"))
    two = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    assert json.loads(one.out)["results"] == json.loads(two.out)["results"]


def test_a_wheel_without_the_target_module_fails_that_release(index: IndexServer, toyreg: Path, radpatch: Any) -> None:
    build_wheel(index.root, DIST, "1.2", {f"{PKG}/other.py": GOOD})
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "==1.2")
    assert r.code == 1
    assert table(r.out)["1.2"] == ["in", "ok", "FAIL", "-", "-", "-", "-", "-", "-", "-", "FAIL"]
    assert (
        "1.2: module: the wheel radpatch_toy-1.2-py3-none-any.whl has no rptoy/core.py or rptoy/core/__init__.py "
        "(module rptoy.core, declared for <2)"
    ) in r.out
    assert (
        r.err.splitlines()[-2]
        == "radpatch: error: vtoy: 1 of the 1 asked (==1.2) of radpatch-toy's releases in >=1.0,<3 fail: 1.2 (module)"
    )


def test_a_release_with_only_an_sdist_fails_that_release(index: IndexServer, toyreg: Path, radpatch: Any) -> None:
    (index.root / f"{DIST.replace('-', '_')}-1.3.tar.gz").write_bytes(b"not read")
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.3", "--json")
    result = json.loads(r.out)["results"][0]
    assert r.code == 1
    assert result["checks"]["wheel"] is False and result["checks"]["module"] is None
    assert result["error"] == "wheel: the index has no wheel of radpatch-toy 1.3 (only a source distribution)"
    assert index.sent("tar.gz") == 0


# --- bad input, no network -----------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [">=1.0,<<2", "latest", ""])
def test_a_bad_spec_is_a_usage_error(index: IndexServer, toyreg: Path, radpatch: Any, spec: str) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", spec)
    assert r.code == 2
    assert r.err.startswith(f"radpatch: error: --versions {spec!r} is not a PEP 440 version range\n  hint: ")
    assert len(r.err.splitlines()) == 2 and index.log == []


def test_no_release_in_the_spec_is_a_usage_error(index: IndexServer, toyreg: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", ">=7")
    assert r.code == 2
    assert r.err.startswith(
        "radpatch: error: no release of radpatch-toy on the package index is in >=7\n  hint: the latest releases are: "
    )


def test_an_unknown_distribution_is_a_usage_error(index: IndexServer, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("ghost", REGISTRY.replace(f"distribution: {DIST}", "distribution: radpatch-no-such-dist"))
    r = radpatch("--registry", str(reg), "verify", "ghost")
    assert r.code == 2
    assert (
        r.err.splitlines()[0]
        == f"radpatch: error: distribution 'radpatch-no-such-dist' has no release on the package index ({index.url})"
    )
    assert "Traceback" not in r.err


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_no_network_is_an_environment_problem(
    index: IndexServer, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = f"http://127.0.0.1:{closed_port()}/simple/"
    monkeypatch.setenv("PIP_INDEX_URL", dead)
    r = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert r.code == 4
    assert r.err.startswith(
        f"radpatch: error: cannot reach the package index to list the releases of {DIST}: {dead}{DIST}/: "
    )
    assert "refused" in r.err.splitlines()[0].lower()
    assert len(r.err.splitlines()) == 2 and "Traceback" not in r.err


def test_offline_with_a_cache_uses_the_cached_list(
    index: IndexServer, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = radpatch("--registry", str(toyreg), "verify", "vtoy")
    index.httpd.shutdown()
    index.httpd.server_close()  # the index goes away
    monkeypatch.setenv("RADPATCH_LISTING_TTL", "0")  # the list is stale: radpatch asks the index again
    warm = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert warm.out == cold.out
    assert "warning: cannot reach the package index" in warm.err and "using the list of releases cached" in warm.err
    monkeypatch.setenv("RADPATCH_LISTING_TTL", "3600")
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.5")  # not in the cached list, offline
    assert r.code == 4 and "cannot reach the package index" in r.err


def test_parse_spec() -> None:
    assert verify.parse_spec("0.27.1") == SpecifierSet("==0.27.1")
    assert verify.parse_spec(" >=0.22 , <0.34 ") == SpecifierSet(">=0.22,<0.34")
    with pytest.raises(UsageError):
        verify.parse_spec("=>1")


# --- pip's settings, without pip -------------------------------------------------------------------------


def test_pip_settings_follow_pips_precedence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text(
        textwrap.dedent("""\
        [global]
        index-url = https://user.example/simple
        extra-index-url =
            https://one.example/simple
            https://two.example/simple
        timeout = 7
        [install]
        trusted-host = one.example
        [freeze]
        index-url = https://ignored.example/simple
        """)
    )
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "pip.conf").write_text("[global]\ncert = /venv/ca.pem\n")
    env = {"XDG_CONFIG_DIRS": str(tmp_path / "nowhere"), "VIRTUAL_ENV": str(venv)}
    s = read_settings(env, home, tmp_path)
    assert (s.index_url, s.extra_index_urls) == (
        "https://user.example/simple",
        ("https://one.example/simple", "https://two.example/simple"),
    )
    assert (s.timeout, s.trusted_hosts, s.cert, s.no_index) == (7.0, frozenset({"one.example"}), "/venv/ca.pem", False)
    # the environment wins over every file
    s = read_settings(
        {**env, "PIP_INDEX_URL": "https://env.example/simple", "PIP_NO_INDEX": "yes", "PIP_FIND_LINKS": "/a /b"},
        home,
        tmp_path,
    )
    assert (s.index_url, s.no_index, s.indexes, s.find_links) == ("https://env.example/simple", True, (), ("/a", "/b"))
    # PIP_CONFIG_FILE=os.devnull: no file at all
    assert read_settings({**env, "PIP_CONFIG_FILE": os.devnull}, home, tmp_path).index_url == "https://pypi.org/simple/"
    # an existing PIP_CONFIG_FILE replaces the user files and is read last
    own = tmp_path / "own.conf"
    own.write_text("[download]\nindex-url = https://own.example/simple\n")
    s = read_settings({**env, "PIP_CONFIG_FILE": str(own)}, home, tmp_path)
    assert (s.index_url, s.extra_index_urls, s.files) == (
        "https://own.example/simple",
        (),
        (str(venv / "pip.conf"), str(own)),
    )


def test_a_broken_pip_conf_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "pip.conf"
    bad.write_text("index-url = https://no.section.example\n")
    with pytest.raises(UsageError) as caught:
        read_settings({"PIP_CONFIG_FILE": str(bad), "XDG_CONFIG_DIRS": str(tmp_path / "nowhere")}, tmp_path)
    assert caught.value.message.startswith(f"cannot read pip's configuration file {bad}: ")


def test_find_links_directory_with_the_index_off(
    tmp_path: Path, serve: Any, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PIP_NO_INDEX + PIP_FIND_LINKS, as pip users set them for an offline mirror: read from disk."""
    for version in ("0.9", "1.0", "1.1"):
        build_wheel(tmp_path / "links", DIST, version, dict(RELEASES[version]))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "links"))
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    assert r.code == 1, r.err
    data = json.loads(r.out)
    assert [(x["version"], x["ok"]) for x in data["results"]] == [("0.9", True), ("1.0", True), ("1.1", False)]
    assert data["widen"] == ["0.9"]
    assert f"find-links {tmp_path / 'links'}" in r.err


def test_requests_go_through_pips_proxy(
    index: IndexServer, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's host does not resolve; only pip's `proxy` setting (here: the index server itself,
    answering absolute-URL requests as a forward proxy does) can reach it."""
    monkeypatch.setenv("PIP_INDEX_URL", "http://index.radpatch.invalid/simple/")
    monkeypatch.setenv("PIP_PROXY", index.url.rsplit("/simple/", 1)[0])
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0", "--json")
    assert r.code == 0, r.err
    assert index.proxied and all(u.startswith("http://index.radpatch.invalid/") for u in index.proxied)
    assert len(index.proxied) == len(index.log)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
def test_https_with_pips_cert_and_trusted_host(
    tmp_path: Path, serve: Any, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TLS index whose certificate no system store trusts: pip's `cert` (or `trusted-host`) decides."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    build_wheel(tmp_path / "wheels", DIST, "1.0", dict(RELEASES["1.0"]))
    index = serve(tls=context)
    untrusted = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert untrusted.code == 4 and "CERTIFICATE_VERIFY_FAILED" in untrusted.err.splitlines()[0]
    monkeypatch.setenv("PIP_CERT", str(cert))
    assert radpatch("--registry", str(toyreg), "verify", "vtoy").code == 0
    monkeypatch.delenv("PIP_CERT")
    monkeypatch.setenv("PIP_TRUSTED_HOST", "127.0.0.1")
    monkeypatch.setenv("RADPATCH_CACHE", str(tmp_path / "cache-trusted"))
    assert radpatch("--registry", str(toyreg), "verify", "vtoy").code == 0
    assert index.requests("/files/")


def test_verify_runs_where_there_is_no_pip(index: IndexServer, toyreg: Path, tmp_path: Path) -> None:
    """A venv made --without-pip (as pipx and `uv tool` environments are), radpatch and its
    dependencies on its path: verify talks to the index itself."""
    venv = tmp_path / "nopip"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    deps = tmp_path / "deps"
    deps.mkdir()
    import click
    import libcst
    import packaging
    import yaml

    for module in (click, libcst, packaging, yaml):
        (deps / Path(module.__file__ or "").parent.name).symlink_to(Path(module.__file__ or "").parent)
    (site,) = venv.glob("lib/python*/site-packages")
    (site / "radpatch-test.pth").write_text(f"{REPO}\n{deps}\n")
    env = {**os.environ, "PATH": str(venv / "bin")}
    assert subprocess.run([python, "-c", "import pip"], env=env, capture_output=True).returncode != 0
    done = subprocess.run(
        [python, "-m", "radpatch", "--registry", str(toyreg), "verify", "vtoy", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert [x["ok"] for x in json.loads(done.stdout)["results"]] == [False, True, True, False, True, False]


# --- a wheel re-published under the same file name ----------------------------------------------------


@pytest.mark.parametrize("api", ["html", "json"])  # the hash from the URL's #sha256= fragment, or PEP 691's hashes
def test_a_wheel_republished_under_the_same_name_is_read_again(
    tmp_path: Path, serve: Any, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    wheels = tmp_path / "wheels"
    first = build_wheel(wheels, DIST, "1.0", {f"{PKG}/core.py": GOOD})
    server = serve(api=api)
    reg = write_registry("vtoy", REGISTRY)
    one = radpatch("--registry", str(reg), "verify", "vtoy", "--versions", "==1.0", "--json")
    assert json.loads(one.out)["results"][0]["ok"] is True
    again = build_wheel(wheels, DIST, "1.0", {f"{PKG}/core.py": OTHER_CODE})  # the same file name, other bytes
    assert again == first
    monkeypatch.setenv("RADPATCH_LISTING_TTL", "0")  # list the releases again: the index shows the new hash
    before = server.sent(first.name)
    two = radpatch("--registry", str(reg), "verify", "vtoy", "--versions", "==1.0", "--json")
    result = json.loads(two.out)["results"][0]
    assert result["ok"] is False and result["checks"]["match"] is False, result  # the new bytes were proven
    after = server.sent(first.name)
    assert after > before  # read from the index, not answered from the cache
    three = radpatch("--registry", str(reg), "verify", "vtoy", "--versions", "==1.0", "--json")
    assert json.loads(three.out)["results"][0] == result
    assert server.sent(first.name) == after  # the same bytes listed: the cache answers
