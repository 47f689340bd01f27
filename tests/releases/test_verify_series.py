"""verify of a series: an entry that `requires:` another is proven, on each release, on the files
as its requirements leave them (apply's order), and says so where a requirement fails.

The loopback index serves four releases of a toy: 1.0 and 1.1 as the entries were written for,
2.0 where upstream made the first entry's change in its own layout (a deletion, so no
`# radpatch: deleted` marker), 3.0 where the code the first entry changes is gone. The first entry
claims all four (a requirement whose own range leaves a release out fails it: apply refuses it there).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

PKG = "rptoy"
DIST = "radpatch-toy"

BASE = """\
def size(items):
    debug = "size"
    n = len(items)
    return n
"""
UPSTREAM = """\
def size(items):
    # upstream dropped the debug name and floors the size itself
    n = len(items)
    n = max(
        n, 1
    )
    return n
"""
GONE = """\
def size(items):
    return len(items)
"""

LOWER = f"""\
summary: Floor the size
description: The lower entry of a series.
distribution: {DIST}
supported: ">=1.0,<4"
modules:
  core: {PKG}.core
rewrites:
  - id: no-debug
    delete:
      scope: size
      find: debug = "size"
  - id: floor
    insert_after:
      scope: size
      find: n = len(items)
      code: n = max(n, 1)
"""
UPPER = f"""\
summary: Cap the floored size
description: Stacked on the lower entry; its find is the lower entry's result.
distribution: {DIST}
supported: ">=1.0,<2"
requires: [lower]
modules:
  core: {PKG}.core
rewrites:
  - id: cap
    insert_after:
      scope: size
      find: n = max(n, 1)
      code: n = min(n, 10)
"""


@pytest.fixture
def series(loopback: Any, write_registry: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from radpatch.registry import catalog

    (tmp_path / "none").mkdir()
    monkeypatch.setattr(catalog, "shipped_registry", lambda: tmp_path / "none")  # --all: only these entries
    loopback(
        DIST,
        {
            "1.0": {f"{PKG}/core.py": BASE},
            "1.1": {f"{PKG}/core.py": BASE + "\n\nVERSION = 11\n"},
            "2.0": {f"{PKG}/core.py": UPSTREAM},
            "3.0": {f"{PKG}/core.py": GONE},
        },
    )
    write_registry("lower", LOWER)
    return write_registry("upper", UPPER)


def test_a_dependent_is_proven_on_what_its_requirement_leaves(series: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(series), "verify", "upper", "--versions", ">=1.0", "--json")
    data = json.loads(r.out)
    results = {x["version"]: x for x in data["results"]}
    assert data["requires"] == ["lower"]
    assert results["1.0"]["ok"] and results["1.1"]["ok"], r.out  # alone, `cap`'s find is not in 1.0: no match
    assert r.code == 0, r.err
    # 2.0 contains the lower entry in upstream's layout: it stays as it is, and `upper` applies on it
    assert results["2.0"]["checks"]["requires"] is True and results["2.0"]["ok"] is True
    # 3.0: the lower entry does not apply, and the release does not contain it
    assert results["3.0"]["checks"]["requires"] is False
    assert results["3.0"]["error"].startswith("requires: lower (required) does not apply to rptoy/core.py: ")
    assert all(results["3.0"]["checks"][c] is None for c in ("pristine", "match", "idempotent"))


def test_the_requirement_alone_is_obsolete_where_upstream_made_it(series: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(series), "verify", "lower", "--versions", ">=1.0", "--json")
    data = json.loads(r.out)
    assert data["requires"] == [] and data["obsolete"] == ["2.0"]


def test_the_matrix_cell_of_a_dependent_names_the_failing_requirement(series: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(series), "verify", "--all", "--versions", ">=1.0", "--json")
    data = json.loads(r.out)
    cells = {(m["patch"], c["version"]): c for m in data["matrix"] for c in m["cells"]}
    assert cells[("upper", "1.0")]["cell"] == cells[("upper", "1.1")]["cell"] == "pass"
    assert cells[("lower", "2.0")]["cell"] == "obsolete"
    assert cells[("upper", "3.0")]["cell"] == "out of range"
    assert cells[("upper", "3.0")]["detail"] == "requires fails"
    text = radpatch("--registry", str(series), "verify", "--all", "--versions", ">=1.0,<2").out
    assert "upper" in text and "no match" not in text


def test_a_dependent_inside_its_range_fails_with_the_requirement_named(
    series: Path, radpatch: Any, write_registry: Any
) -> None:
    write_registry("upper", UPPER.replace('supported: ">=1.0,<2"', 'supported: ">=1.0,<4"'))
    r = radpatch("--registry", str(series), "verify", "upper")
    assert r.code == 1
    assert "REQUIRES" in r.out.splitlines()[2]  # the column of an entry that requires others
    assert "proven on what the entries it requires leave, applied first: lower" in r.out
    assert "3.0: requires: lower (required) does not apply to rptoy/core.py: rewrite 'no-debug'" in r.out
    assert "fail: 3.0 (requires)" in r.err and "verify lower alone" in r.err
    m = radpatch("--registry", str(series), "verify", "--all", "--versions", ">=1.0")
    assert "upper 3.0: fail: requires: lower (required) does not apply" in m.out


def test_an_entry_without_requirements_shows_no_requires_column(series: Path, radpatch: Any) -> None:
    r = radpatch("--registry", str(series), "verify", "lower")
    assert "REQUIRES" not in r.out and "MATCH" in r.out


def test_a_requirement_of_another_distribution_is_not_stacked(series: Path, radpatch: Any, write_registry: Any) -> None:
    write_registry("foreign", LOWER.replace(f"distribution: {DIST}", "distribution: another-dist"))
    write_registry("upper", UPPER.replace("requires: [lower]", "requires: [foreign, lower]"))
    r = radpatch("--registry", str(series), "verify", "upper", "--versions", "==1.0", "--json")
    data = json.loads(r.out)
    assert data["requires"] == ["lower"] and data["results"][0]["ok"] is True, r.out
