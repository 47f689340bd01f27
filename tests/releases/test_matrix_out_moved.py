"""The matrix's `out` cell says when the entry would be `moved` there (the scope is defined in
another module and the rewrites prove there: `port` would carry it), in the table and in --json;
an `out` release where it would not match stays plain `out`."""

from __future__ import annotations

import json
from typing import Any

from tests.lib.index_server import IndexServer
from tests.lib.matrix import cells
from tests.lib.toy_releases import PKG, entry


def test_an_out_cell_names_the_module_port_would_carry_the_entry_to(
    index: IndexServer, write_registry: Any, radpatch: Any, no_shipped: None
) -> None:
    reg = write_registry("narrow", entry("==1.0"))
    write_registry("wide", entry(">=1.0,<4"))  # the matrix's columns: every release the entries span
    r = radpatch("--registry", str(reg), "verify", "--all")
    assert r.code == 1, r.out + r.err  # `wide` claims 2.0 and 2.1, which fail as written
    row = cells(r.out)["narrow"]
    assert row["2.0"] == f"out (moved: {PKG}.planning)"
    assert row["2.2"] == f"out (moved: {PKG}.planning)"  # core.py is gone, the scope is in planning
    assert row["2.1"] == "out"  # the `find` is gone: nothing to carry
    r = radpatch("--registry", str(reg), "verify", "--all", "--json")
    by_version = {
        c["version"]: c for c in next(m for m in json.loads(r.out)["matrix"] if m["patch"] == "narrow")["cells"]
    }
    assert by_version["2.0"]["cell"] == "out of range" and by_version["2.0"]["module"] == f"{PKG}.planning"
    assert f"moved: {PKG}.core -> {PKG}.planning" in by_version["2.0"]["detail"]
    assert by_version["2.1"]["module"] is None
