"""A backport across a rename that needs a `modules:` choice (issue 23, port47): the entry, written for
2.0, names `size_of` in rptoy.planning; 1.0 has no planning.py, and `size` lives in rptoy.core; 2.0's
core.py keeps the old name bound to the new code (`from rptoy.planning import size_of as size`: the
evidence of the rename). port --to 1.0 wrote nothing; now it writes what the forward port writes, for
the older range: a `modules:` choice of rptoy.core for `<2.0` (first) and a variant of the rewrite
under the old name for `<2.0`, the rewrite as written `>=2.0`, where the rewrites prove there. A class
renamed so (`from rptoy.planning import Sizer2 as Sizer`, scope `Sizer2.size`) alike.

Twins: the old code rewritten (does not prove: left alone, the cell says so), no alias in 2.0 (no
evidence: no rename seen), an alias the rules refuse (`exec` beside it: no rename seen).

Generated: the alias's spelling x plain or qualified x the outcome x the `modules:` layout. The oracle:
Python runs 1.0 and 2.0 with the ported entry applied (the cap: 1) through the old name; undone, the
bytes come back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.registry import loader
from radpatch.rewrite.runner import backward, forward
from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, run_size

BODY = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
REWRITTEN = BODY.replace("n = len(items)", "n = len(list(items))")
ALIASES = {
    "from import as": "from rptoy.planning import {NEW} as {OLD}\n",
    "module attribute": "from rptoy import planning\n\n{OLD} = planning.{NEW}\n",
    "from import then assigned": "from .planning import {NEW}\n\n{OLD} = {NEW}\n",
}
OUTCOMES = ("proves", "does not prove", "no alias", "alias refused", "stored from another module")
# the unsafe twin's 1.0: another module of the package stores the old name (plain, qualified)
STORES = (
    "import rptoy.core as c\n\nc.size = lambda items: 99\n",
    "from rptoy.core import Sizer\n\nSizer.size = lambda self, items: 99\n",
)
LAYOUTS = {
    "one module": "  planner: rptoy.planning  # where size_of() lives\n",
    "a list": '  planner:  # where size_of() lives\n    - {versions: ">=2.0", module: rptoy.planning}\n',
}
CASES = sample(
    [(a, q, o, "one module") for a in ALIASES for q in ("plain", "qualified") for o in OUTCOMES]
    + [(a, q, "proves", "a list") for a in ALIASES for q in ("plain", "qualified")]
)


def _code(qualified: bool, name: str, body: str) -> str:
    if not qualified:
        return body.replace("def size(", f"def {name}(")
    method = "".join("    " + t + "\n" for t in body.replace("def size(items)", "def size(self, items)").splitlines())
    return f"class {name}:\n{method}"


def _entry(scope: str, layout: str) -> str:
    return f"""\
# a toy entry: comments and layout stay
summary: s
description: d
distribution: {DIST}
supported: ">=2.0"   # written for 2.0
modules:
{LAYOUTS[layout]}rewrites:
  - id: cap   # the cap
    insert_after: {{scope: {scope}, find: n = len(items), code: "n = min(n, len(buckets))"}}
"""


@pytest.mark.parametrize(("alias", "qualified", "outcome", "layout"), CASES, ids=["-".join(c) for c in CASES])
def test_a_backport_across_a_rename_gets_its_module(
    loopback: Any,
    write_registry: Any,
    radpatch: Any,
    tmp_path: Path,
    alias: str,
    qualified: str,
    outcome: str,
    layout: str,
) -> None:
    q = qualified == "qualified"
    old, new = ("Sizer", "Sizer2") if q else ("size", "size_of")
    old_scope, new_scope = (f"{old}.size", f"{new}.size") if q else (old, new)
    first: dict[str, str | bytes] = {
        "rptoy/__init__.py": "",
        "rptoy/core.py": _code(q, old, REWRITTEN if outcome == "does not prove" else BODY),
    }
    if outcome == "stored from another module":
        first.update({"rptoy/__init__.py": "from . import other\n", "rptoy/other.py": STORES[q]})
    core = ALIASES[alias].replace("{OLD}", old).replace("{NEW}", new) if outcome != "no alias" else "\n"
    core += (
        "code = 'x = 1'\nexec(code)\n" if outcome == "alias refused" else ""
    )  # not a literal: exec may bind any name
    second: dict[str, str | bytes] = {
        "rptoy/__init__.py": "",
        "rptoy/core.py": core,
        "rptoy/planning.py": _code(q, new, BODY),
    }
    stored = outcome == "stored from another module"
    assert run_size(tmp_path / "old", first, q) == (99 if stored else 3)  # 1.0 runs the old name's own code
    if outcome != "no alias":
        assert run_size(tmp_path / "new", second, q) == 3  # 2.0's old name runs the renamed code
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", _entry(new_scope, layout))
    before = (reg / "cap.yaml").read_text()
    table = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap", "--versions", "1.0", "--json").out)
    (cell,) = table["matrix"][0]["cells"]
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.0")
    if stored:  # the old name in 1.0 may be other code: refused, saying where
        assert "is not followed as a rename" in r.out and "rptoy/other.py:3" in r.out, r.out
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    if outcome in ("no alias", "alias refused"):  # no evidence of a rename that runs: the entry stays
        assert f"was {old_scope}" not in (cell["detail"] or "") and r.code == 1, (cell, r.out)
        assert (reg / "cap.yaml").read_text() == before
        return
    said = f"{new_scope} was {old_scope} in rptoy.core before 2.0"
    assert said in cell["detail"] and said in r.out, (cell, r.out)
    if outcome != "proves":
        assert f"do not prove under the old name {old_scope!r}" in r.out, r.out
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_text()
    assert all(c in after for c in ("# the cap", "# written for 2.0", "# where size_of() lives")), after
    entry = loader.load_bytes(reg / "cap.yaml", after.encode())
    assert sorted(c.module for c in entry.module("planner").choices) == ["rptoy.core", "rptoy.planning"], after
    assert entry.module("planner").module_for(Version("1.0")).module == "rptoy.core"  # type: ignore[union-attr]
    for v, files, rel, scope in (
        ("1.0", first, "rptoy/core.py", old_scope),
        ("2.0", second, "rptoy/planning.py", new_scope),
    ):
        rws = entry.rewrites_for(Version(v))
        assert [rw.op.scope_name() for rw in rws] == [scope]
        original = str(files[rel]).encode()
        patched = forward(entry, rws, original, rel)
        assert backward(entry, rws, patched, rel) == original
        assert run_size(tmp_path / f"patched-{v}", {**files, rel: patched}, q) == 1  # the cap, through the old name
    again = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=1.0", "--json").out)
    assert [res["error"] for res in again["results"]] == [None, None], again
