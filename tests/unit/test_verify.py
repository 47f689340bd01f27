"""`radpatch verify`: wheels built by hand in a temp dir, served by a fake index or by pip itself.

The fake index stands in for `python -m pip` (radpatch.wheels.run_pip) and records every call, so
a test can prove that a warm run asks pip nothing. One test runs the real pip against a
find-links directory with the index switched off.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch import wheels
from radpatch.commands import verify
from radpatch.errors import UsageError
from radpatch.wheels import PipRun, Releases

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

GOOD = """\
def size(items):
    buckets = [items]
    n = len(items)
    return n
"""
NO_BUCKETS = """\
def size(items):
    n = len(items)
    return n
"""
PATCHED = """\
def size(items):
    buckets = [items]
    n = len(items)
    n = min(n, len(buckets))
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


def record_hash(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(into: Path, dist: str, version: str, files: dict[str, str]) -> Path:
    """A minimal wheel, written by hand: the files, METADATA, WHEEL and a RECORD hashing them."""
    name = dist.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    contents = {rel: textwrap.dedent(text).encode() for rel, text in files.items()}
    contents[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n\n".encode()
    contents[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: radpatch-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = "".join(f"{rel},sha256={record_hash(data)},{len(data)}\n" for rel, data in contents.items())
    contents[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    into.mkdir(parents=True, exist_ok=True)
    path = into / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for rel, data in contents.items():
            zf.writestr(rel, data)
    return path


class FakeIndex:
    """`python -m pip index versions` / `pip download` answered from a directory of wheels."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.calls: list[list[str]] = []
        self.offline = False
        self.no_wheel: set[str] = set()  # versions listed but without a wheel for "this platform"

    def wheels(self, dist: str) -> dict[str, Path]:
        prefix = dist.replace("-", "_") + "-"
        return {p.name[len(prefix):].split("-")[0]: p for p in self.root.glob(f"{prefix}*.whl")}

    def __call__(self, args: list[str]) -> PipRun:
        self.calls.append(args)
        requirement = args[-1]
        if self.offline:
            log = f"Could not fetch URL https://pypi.invalid/simple/{DIST}/: connection error: HTTPSConnectionPool(host='pypi.invalid', port=443): Max retries exceeded - skipping\n"
            return PipRun(1, "", f"ERROR: No matching distribution found for {requirement}\n", log)
        if args[:2] == ["index", "versions"]:
            found = self.wheels(requirement)
            if not found:
                return PipRun(1, "", f"ERROR: No matching distribution found for {requirement}\n", "")
            versions = ", ".join(sorted(found, key=Version, reverse=True))
            return PipRun(0, f"{requirement} ({versions.split(',')[0]})\nAvailable versions: {versions}\n", "", "")
        assert args[0] == "download" and "--no-deps" in args and "--only-binary" in args, args
        dist, version = requirement.split("==")
        wheel = self.wheels(dist).get(version)
        if wheel is None or version in self.no_wheel:
            return PipRun(1, "", f"ERROR: Could not find a version that satisfies the requirement {requirement}\nERROR: No matching distribution found for {requirement}\n", "")
        shutil.copy(wheel, Path(args[args.index("-d") + 1]))
        return PipRun(0, f"Saved {wheel.name}\n", "", "")


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeIndex:
    for version, files in RELEASES.items():
        build_wheel(tmp_path / "wheels", DIST, version, files)
    fake = FakeIndex(tmp_path / "wheels")
    monkeypatch.setattr(wheels, "run_pip", fake)
    monkeypatch.setenv("RADPATCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("RADPATCH_JOBS", "1")
    monkeypatch.delenv("RADPATCH_LISTING_TTL", raising=False)
    return fake


@pytest.fixture
def toyreg(write_registry: Any) -> Path:
    return write_registry("vtoy", REGISTRY)  # type: ignore[no-any-return]


def table(out: str) -> dict[str, list[str]]:
    lines = out.splitlines()
    head = lines[1].split()
    assert head[:10] == ["RELEASE", "RANGE", "WHEEL", "MODULE", "PRISTINE", "MATCH", "COMPILE", "NAMES", "REVERSE", "IDEMPOTENT"]
    return {ln.split()[0]: ln.split()[1:11] for ln in lines[2:] if re.match(r"^\d[\w.]*\s+(in|out)\s", ln)}


def test_table_says_which_check_fails_for_which_release_and_why(index: FakeIndex, toyreg: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert r.code == 1
    rows = table(r.out)
    assert rows == {
        "0.8": ["out", "ok", "ok", "ok", "FAIL", "-", "-", "-", "-", "FAIL"],
        "0.9": ["out", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"],
        "1.0": ["in", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"],
        "1.1": ["in", "ok", "ok", "ok", "ok", "ok", "FAIL", "-", "-", "FAIL"],
        "2.0": ["in", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"],
        "3.0": ["out", "ok", "ok", "FAIL", "-", "-", "-", "-", "-", "FAIL"],
    }
    assert "1.1: names: the patched rptoy/core.py would use undefined names: `buckets` (line 3, in size()) is defined nowhere (NameError)\n" in r.out
    assert "0.8: match: rewrite 'cap' (vtoy.yaml:12:5) on rptoy/core.py: statement `find` not found" in r.out
    assert "2 of 3 releases in the declared range pass." in r.out
    assert "range could be widened to include 0.9" in r.out
    assert "radpatch-toy 3.0 already contains the change (the patch is obsolete there)" in r.out
    assert next(ln for ln in r.out.splitlines() if ln.startswith("2.0 ")).endswith(" rptoy.planning")
    err = [ln for ln in r.err.splitlines() if ln.startswith("radpatch: error:")]
    assert err == ["radpatch: error: vtoy: 1 of 3 releases of radpatch-toy in >=1.0,<3 fail: 1.1 (names)"]
    assert "Traceback" not in r.err


def test_json_lists_every_release_with_its_checks(index: FakeIndex, toyreg: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    assert r.code == 1
    data = json.loads(r.out)
    assert data["patch"] == "vtoy"
    results = {x["version"]: x for x in data["results"]}
    assert list(results) == ["0.8", "0.9", "1.0", "1.1", "2.0", "3.0"]
    assert {k for x in data["results"] for k in x} >= {"version", "in_range", "ok", "checks", "error"}
    assert [v for v, x in results.items() if x["in_range"]] == ["1.0", "1.1", "2.0"]
    assert [v for v, x in results.items() if x["ok"]] == ["0.9", "1.0", "2.0"]
    assert results["1.1"]["checks"] == {"wheel": True, "module": True, "pristine": True, "match": True, "compile": True,
                                        "names": False, "reverse": None, "idempotent": None}
    assert results["1.1"]["error"] == "names: the patched rptoy/core.py would use undefined names: `buckets` (line 3, in size()) is defined nowhere (NameError)"
    assert results["1.0"]["error"] is None and all(results["1.0"]["checks"].values())
    assert results["2.0"]["modules"] == ["rptoy.planning"]
    assert data["widen"] == ["0.9"] and data["obsolete"] == ["3.0"]


def test_explicit_versions_verify_just_those(index: FakeIndex, toyreg: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0", "--json")
    assert r.code == 0, r.err
    assert [x["version"] for x in json.loads(r.out)["results"]] == ["1.0"]  # no neighbours probed
    out_of_range = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "<1", "--json")
    assert out_of_range.code == 0  # 0.8 fails, but the patch never claimed it
    assert [(x["version"], x["ok"]) for x in json.loads(out_of_range.out)["results"]] == [("0.8", False), ("0.9", True)]


def test_warm_cache_asks_pip_nothing(index: FakeIndex, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert [c[:2] for c in index.calls].count(["index", "versions"]) == 1
    assert sum(c[0] == "download" for c in index.calls) == 6
    # stderr is no terminal here: one line per fetched release (the range and the first neighbours,
    # then 0.8, probed because 0.9 passed)
    assert [ln.split()[1] for ln in cold.err.splitlines() if re.match(r"radpatch: \[\d/\d\]", ln)] == [*(f"[{i}/5]" for i in range(1, 6)), "[1/1]"]

    def no_pip(args: list[str]) -> PipRun:
        raise AssertionError(f"pip was called on a warm cache: {args}")

    monkeypatch.setattr(wheels, "run_pip", no_pip)
    warm = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert (warm.code, warm.out) == (cold.code, cold.out)
    assert "fetch" not in warm.err


def test_cache_keeps_only_the_target_modules_and_the_dist_info(index: FakeIndex, toyreg: Path, radpatch: Any, tmp_path: Path) -> None:
    radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.0")
    entry = tmp_path / "cache" / DIST / "1.0"
    kept = sorted(str(p.relative_to(entry)) for p in entry.rglob("*") if p.is_file())
    info = "radpatch_toy-1.0.dist-info"
    assert set(kept) == {f"{info}/METADATA", f"{info}/RECORD", f"{info}/WHEEL", "manifest.json", f"{PKG}/core.py"}
    manifest = json.loads((entry / "manifest.json").read_text())
    assert manifest["wheel"] == "radpatch_toy-1.0-py3-none-any.whl"
    assert manifest["absent"] == [f"{PKG}/planning.py"]  # asked for (a choice of the target), not in 1.0
    assert not list((tmp_path / "cache").rglob("*.whl"))
    assert sorted(p.name for p in (tmp_path / "cache" / DIST).iterdir()) == ["1.0", "versions.json"]


def test_a_killed_extraction_leaves_no_cache_entry(index: FakeIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    releases = Releases(tmp_path / "cache", pip=index)
    needs = frozenset({f"{PKG}/core.py"})
    real_extract = wheels._extract

    def dies_half_way(*args: Any) -> Any:
        real_extract(*args)  # the files are written into the staging directory...
        raise KeyboardInterrupt  # ...and the run is killed before the entry is renamed into place

    monkeypatch.setattr(wheels, "_extract", dies_half_way)
    with pytest.raises(KeyboardInterrupt):
        releases.fetch(DIST, Version("1.0"), needs)
    assert releases.cached(DIST, Version("1.0"), needs) is None
    assert list((tmp_path / "cache" / DIST).iterdir()) == []
    # a staging directory left by `kill -9` is not an entry either
    stale = tmp_path / "cache" / DIST / ".stage-1.0-x" / PKG
    stale.mkdir(parents=True)
    (stale / "core.py").write_text(GOOD)
    assert releases.cached(DIST, Version("1.0"), needs) is None
    monkeypatch.setattr(wheels, "_extract", real_extract)
    got = releases.get(DIST, Version("1.0"), needs)
    assert got.read(f"{PKG}/core.py") == GOOD.encode()


def test_an_entry_grows_when_another_module_is_needed(index: FakeIndex, tmp_path: Path) -> None:
    releases = Releases(tmp_path / "cache", pip=index)
    first = releases.get(DIST, Version("1.0"), frozenset({f"{PKG}/core.py"}))
    assert first.read(f"{PKG}/big.py") is None
    both = releases.get(DIST, Version("1.0"), frozenset({f"{PKG}/big.py"}))
    assert both.read(f"{PKG}/core.py") == GOOD.encode() and both.read(f"{PKG}/big.py") == b"DATA = 1\n"
    assert sum(c[0] == "download" for c in index.calls) == 2
    releases.get(DIST, Version("1.0"), frozenset({f"{PKG}/core.py", f"{PKG}/big.py"}))
    assert sum(c[0] == "download" for c in index.calls) == 2


def test_the_list_of_releases_is_reused_for_a_day(index: FakeIndex, tmp_path: Path) -> None:
    now = [1000.0]
    releases = Releases(tmp_path / "cache", pip=index, clock=lambda: now[0])
    anything = SpecifierSet(">=1")
    assert releases.versions(DIST, anything).versions[-1] == Version("3.0")
    now[0] += 23 * 3600
    assert releases.versions(DIST, anything).from_cache
    build_wheel(index.root, DIST, "3.1", RELEASES["3.0"])
    assert Version("3.1") in releases.versions(DIST, SpecifierSet("==3.1")).versions  # a pinned release the list lacks
    now[0] += 25 * 3600
    assert not releases.versions(DIST, anything).from_cache
    assert [c[:2] for c in index.calls].count(["index", "versions"]) == 3


def test_identical_modules_are_proven_once(index: FakeIndex, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    build_wheel(index.root, DIST, "1.0.1", RELEASES["1.0"])
    build_wheel(index.root, DIST, "1.0.2", RELEASES["1.0"])
    proofs = []
    real = verify.prove
    monkeypatch.setattr(verify, "prove", lambda patch, files: proofs.append(files) or real(patch, files))
    r = radpatch("--registry", str(write_registry("vtoy", REGISTRY)), "verify", "vtoy", "--versions", ">=1.0,<1.1", "--json")
    assert [x["ok"] for x in json.loads(r.out)["results"]] == [True, True, True]
    assert len(proofs) == 1


def test_worker_processes_give_the_same_answer(index: FakeIndex, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    one = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    monkeypatch.setenv("RADPATCH_JOBS", "2")
    two = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    assert json.loads(one.out) == json.loads(two.out)


def test_a_wheel_without_the_target_module_fails_that_release(index: FakeIndex, toyreg: Path, radpatch: Any) -> None:
    build_wheel(index.root, DIST, "1.2", {f"{PKG}/other.py": GOOD})
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "==1.2")
    assert r.code == 1
    assert table(r.out)["1.2"] == ["in", "ok", "FAIL", "-", "-", "-", "-", "-", "-", "FAIL"]
    assert ("1.2: module: the wheel radpatch_toy-1.2-py3-none-any.whl has no rptoy/core.py "
            "(module rptoy.core, declared for <2)") in r.out
    assert r.err.splitlines()[-2] == "radpatch: error: vtoy: 1 of 1 releases of radpatch-toy in >=1.0,<3 fail: 1.2 (module)"


def test_a_release_without_a_wheel_for_this_platform_fails_that_release(index: FakeIndex, toyreg: Path, radpatch: Any) -> None:
    index.no_wheel.add("1.1")
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.1", "--json")
    result = json.loads(r.out)["results"][0]
    assert r.code == 1
    assert result["checks"]["wheel"] is False and result["checks"]["module"] is None
    assert result["error"] == "wheel: the index has no wheel of radpatch-toy 1.1 for this platform (pip download --only-binary :all:)"


@pytest.mark.parametrize("spec", [">=1.0,<<2", "latest", ""])
def test_a_bad_spec_is_a_usage_error(index: FakeIndex, toyreg: Path, radpatch: Any, spec: str) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", spec)
    assert r.code == 2
    assert r.err.startswith(f"radpatch: error: --versions {spec!r} is not a PEP 440 version range\n  hint: ")
    assert len(r.err.splitlines()) == 2 and index.calls == []


def test_no_release_in_the_spec_is_a_usage_error(index: FakeIndex, toyreg: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", ">=7")
    assert r.code == 2
    assert r.err.startswith("radpatch: error: no release of radpatch-toy on the package index is in >=7\n  hint: the latest releases are: ")


def test_an_unknown_distribution_is_a_usage_error(index: FakeIndex, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("ghost", REGISTRY.replace(f"distribution: {DIST}", "distribution: radpatch-no-such-dist"))
    r = radpatch("--registry", str(reg), "verify", "ghost")
    assert r.code == 2
    assert r.err.splitlines()[0] == ("radpatch: error: distribution 'radpatch-no-such-dist' has no release on the package "
                                     "index (pip index versions radpatch-no-such-dist)")
    assert "Traceback" not in r.err


def test_no_network_is_an_environment_problem(index: FakeIndex, toyreg: Path, radpatch: Any) -> None:
    index.offline = True
    r = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert r.code == 4
    assert r.err.startswith(f"radpatch: error: cannot reach the package index to list the releases of {DIST}: "
                            f"https://pypi.invalid/simple/{DIST}/: connection error")
    assert len(r.err.splitlines()) == 2 and "Traceback" not in r.err


def test_offline_with_a_cache_uses_the_cached_list(index: FakeIndex, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = radpatch("--registry", str(toyreg), "verify", "vtoy")
    index.offline = True
    monkeypatch.setenv("RADPATCH_LISTING_TTL", "0")  # the list is stale: radpatch asks the index again
    warm = radpatch("--registry", str(toyreg), "verify", "vtoy")
    assert warm.out == cold.out
    assert "warning: cannot reach the package index" in warm.err and "using the list of releases cached" in warm.err
    index.calls.clear()
    build_wheel(index.root, DIST, "1.5", RELEASES["1.0"])
    monkeypatch.setenv("RADPATCH_LISTING_TTL", "3600")
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--versions", "1.5")  # not in the cached list, offline
    assert r.code == 4 and "cannot reach the package index" in r.err


def test_parse_spec() -> None:
    assert verify.parse_spec("0.27.1") == SpecifierSet("==0.27.1")
    assert verify.parse_spec(" >=0.22 , <0.34 ") == SpecifierSet(">=0.22,<0.34")
    with pytest.raises(UsageError):
        verify.parse_spec("=>1")


def test_real_pip_reads_a_find_links_directory(tmp_path: Path, toyreg: Path, radpatch: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ordinary pip machinery end to end: `python -m pip` with the index off and find-links on."""
    for version in ("0.9", "1.0", "1.1"):
        build_wheel(tmp_path / "links", DIST, version, RELEASES[version])
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # this machine's pip.conf must not add indexes here
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "links"))
    monkeypatch.setenv("RADPATCH_CACHE", str(tmp_path / "cache"))
    r = radpatch("--registry", str(toyreg), "verify", "vtoy", "--json")
    assert r.code == 1, r.err
    data = json.loads(r.out)
    assert [(x["version"], x["ok"]) for x in data["results"]] == [("0.9", True), ("1.0", True), ("1.1", False)]
    assert data["widen"] == ["0.9"]
