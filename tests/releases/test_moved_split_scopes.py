"""A target whose scopes split across modules in a new release (one moved to another module, one
stayed): the matrix note and `port` say where the moved scope is now defined (the search read it)
and which stays, instead of an unrelated nearest candidate picked by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.lib.index_server import IndexServer
from tests.lib.matrix import cells

DIST, PKG = "radpatch-split", "rpsplit"
SIZE = "def size(items):\n    n = len(items)\n    return n\n"
HELPER = "def helper(x):\n    y = x + 1\n    return y\n"
RELEASES = {
    "1.0": {f"{PKG}/__init__.py": "", f"{PKG}/core.py": SIZE + "\n\n" + HELPER},
    # 2.0: size() now lives in planning.py; core.py keeps helper() and a function named much like size
    "2.0": {
        f"{PKG}/__init__.py": "",
        f"{PKG}/core.py": f"from {PKG}.planning import size\n\n\n" + HELPER + "\n\ndef sizes(a):\n    return a\n",
        f"{PKG}/planning.py": SIZE,
    },
}
ENTRY = f"""\
summary: Two rewrites in one module
description: toy
distribution: {DIST}
supported: ">=1.0,<2"
modules:
  core: {PKG}.core
rewrites:
  - id: cap
    insert_after: {{scope: size, find: "n = len(items)", code: "n = min(n, 9)"}}
  - id: bump
    insert_after: {{scope: helper, find: "y = x + 1", code: "y = y + 1"}}
"""


@pytest.fixture
def index(loopback: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> IndexServer:
    from radpatch.registry import catalog

    (tmp_path / "none").mkdir()
    monkeypatch.setattr(catalog, "shipped_registry", lambda: tmp_path / "none")
    return loopback(DIST, RELEASES)  # type: ignore[no-any-return]


SPLIT = (
    f"size is now defined in {PKG}.planning (the search read it), while helper stay(s) in {PKG}.core: "
    "give the moved scope's rewrites a `modules:` target of their own (by hand)"
)


def test_the_matrix_says_where_the_moved_scope_is_and_which_stays(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("split", ENTRY.replace('supported: ">=1.0,<2"', 'supported: ">=1.0"'))  # 2.0 in range
    r = radpatch("--registry", str(reg), "verify", "--all")
    assert cells(r.out)["split"]["1.0"] == "pass", r.out + r.err
    note = next(line for line in r.out.splitlines() if line.startswith("split 2.0:"))
    assert SPLIT in note, note
    assert "nearest candidate" not in note and "sizes" not in note, note


def test_port_names_the_split_and_leaves_the_entry_alone(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("split", ENTRY)
    before = (reg / "split.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "split", "--to", "2.0", "--dry-run")
    assert r.code == 1, r.out + r.err
    assert SPLIT in r.out, r.out
    assert (reg / "split.yaml").read_bytes() == before
