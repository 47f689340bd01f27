"""A stacked entry (`requires:`) whose scope moved to a module that already holds its change is
`obsolete` in the matrix and `port` claims none of it, as an entry on its own is
(tests/releases/test_moved_obsolete.py), not `moved (FAIL)`/no match (port36, issue 23): the moved
module's proof read no bases for an entry with requirements (moved.find_moved: `and not below`), so
the change was never read off the entry's own releases. Now the bases are the entry's own releases
with its requirements stacked there (moved_proof.written_for), as verify's own base search stacks them.

Generated: the change in radpatch's layout or upstream's spelling; the scope moved to a sibling
module or into a subpackage; the requirement changing the line before the entry's or a line after
it; a release between with the moved code still without the change, or none."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PATCHED, PKG, TO, UPSTREAM, assert_ported_past_obsolete, entry, guard_entry

TOOK = {"radpatch's layout": PATCHED, "upstream's spelling": UPSTREAM}
# the requirement's rewrite: a line it inserts in size() before the entry's, or after it
FIRST = {
    "before": 'insert_after: {scope: size, find: "buckets = [items]", code: "items = items or []"}',
    "after": 'insert_before: {scope: size, find: "return n", code: "assert n >= 0"}',
}


def _first(where: str, module: str) -> str:
    return guard_entry("1.1", module, FIRST[where])


def _stacked(supported: str) -> str:
    return "requires: [first]\n" + entry("A toy patch written for 1.0, on first.", supported)


@pytest.mark.parametrize(
    ("took", "to", "where", "between"),
    sample([(t, m, w, b) for t in TOOK for m in TO for w in FIRST for b in (True, False)]),
)
def test_a_stacked_entry_whose_moved_scope_took_the_change_is_obsolete(
    loopback: Any, write_registry: Any, radpatch: Any, took: str, to: str, where: str, between: bool
) -> None:
    relpath, module = TO[to]
    releases = {"1.0": {f"{PKG}/core.py": GOOD}}
    if between:
        releases["1.1"] = {relpath: GOOD}
    last = "1.2" if between else "1.1"
    releases[last] = {relpath: TOOK[took]}
    loopback("radpatch-toy", releases)
    write_registry("first", _first(where, module))
    reg = write_registry("cap", _stacked("==1.0"))
    grid = json.loads(radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0", "--json").out)
    cells = {(m["patch"], c["version"]): c for m in grid["matrix"] for c in m["cells"]}
    assert cells[("first", last)]["cell"] == "pass", cells
    cell = cells[("cap", last)]
    assert cell["cell"] == "out of range", cell  # obsolete, outside the entry's range
    assert f"{module}, which already contains the change" in cell["detail"], cell
    assert_ported_past_obsolete(radpatch, reg, last, module, between)


def _first_old_only(where: str) -> str:
    return (
        _first(where, f"{PKG}.core")
        .replace("it names both layouts", "it names the old module only")
        .replace(
            f'    - {{versions: "<1.1", module: {PKG}.core}}\n    - {{versions: ">=1.1", module: {PKG}.core}}\n',
            f"    - {{versions: '>=1.0', module: {PKG}.core}}\n",
        )
    )


@pytest.mark.parametrize(("to", "where", "together"), sample([(m, w, t) for m in TO for w in FIRST for t in (0, 1)]))
def test_a_moved_scope_whose_requirement_names_no_module_there_is_not_proven_bare(
    loopback: Any, write_registry: Any, radpatch: Any, to: str, where: str, together: int
) -> None:
    """The requirement declares only the old module, gone in 1.1: apply would refuse the stacked entry
    there. The moved module was proven on the bare release instead ("the rewrites prove there", in the
    matrix too), port planned the edit, and only its last proof refused it, with no word of porting the
    requirement. Now the moved module does not prove, naming the requirement, and port leaves the entry
    alone and says to port them together; ported together, both are written and prove."""
    relpath, module = TO[to]
    loopback("radpatch-toy", {"1.0": {f"{PKG}/core.py": GOOD}, "1.1": {relpath: GOOD}})
    write_registry("first", _first_old_only(where))
    reg = write_registry("cap", _stacked("==1.0"))
    before = (reg / "cap.yaml").read_bytes()
    grid = json.loads(radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0", "--json").out)
    cell = next(c for m in grid["matrix"] if m["patch"] == "cap" for c in m["cells"] if c["version"] == "1.1")
    assert "the rewrites prove there" not in cell["detail"], cell  # out of range: port would not carry it as is
    names = ("first", "cap") if together else ("cap",)
    r = radpatch("--registry", str(reg), "port", *names, "--to", "1.1")
    if together:
        assert r.code == 0, r.out + r.err
        assert f"module: {module}" in (reg / "cap.yaml").read_text()
        assert radpatch("--registry", str(reg), "verify", "cap").code == 0
        return
    assert r.code == 1 and "not ported: cap" in r.err, r.out + r.err
    line = next(x for x in r.out.splitlines() if x.startswith("  1.1: "))
    assert "the rewrites do not prove there: requires: first (required)" in line, r.out
    assert "port them together (`radpatch port first cap --to 1.1`)" in r.out, r.out
    assert (reg / "cap.yaml").read_bytes() == before
