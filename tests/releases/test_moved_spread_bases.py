"""A scope that moved to a module already holding the entry's change is found obsolete there (the
moved module named) when the only releases of the entry's range its rewrites apply on are in the
middle or at the far end of the range (moved38, issue 23). The moved module's proof read its change
off the BASES releases of the range nearest the release asked only (verifier.written_for): none of
them had the rewrites apply, the proof said "no match" and the search stopped there, so the matrix
said `moved (FAIL)` and `port` "do not prove". Now the proof's "no base applied" (Cause.NO_BASE) sends
the search on to verify's own spread bases (base_search.search_order).

Generated: ranges of 12 and 16 releases; the rewrites applying on two releases at the range's first,
a quarter, half or three quarters into it, neither the base nor the change elsewhere; the scope moved
to a sibling module or into a subpackage, the old module gone or left re-exporting it; the entry
alone or on a requirement (`requires:`); the release after the range upstream's spelling of the change
in the new module. Oracle: the module the generated release defines the scope in. Three quarters in,
a base is among the nearest BASES (a control)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.upstream_toy import GOOD, PKG, TO, UPSTREAM, entry, guard_entry

OTHER = GOOD.replace("n = len(items)", "n = len(tuple(items))")  # neither the base nor the change


def _first(count: int, module: str) -> str:
    """An entry `cap` requires, naming both layouts: a line it inserts in size() before cap's."""
    return guard_entry(f"1.{count}", module)


@pytest.mark.parametrize(
    ("count", "where", "to", "stub", "stacked"),
    sample(
        [(c, w, t, s, k) for c in (12, 16) for w in (0, 1, 2, 3) for t in TO for s in (False, True) for k in (0, 1)]
    ),
)
def test_a_moved_scope_is_judged_on_a_base_spread_over_the_range(
    loopback: Any, write_registry: Any, radpatch: Any, count: int, where: int, to: str, stub: bool, stacked: int
) -> None:
    relpath, module = TO[to]
    at = count * where // 4
    code = {i: {f"{PKG}/core.py": GOOD if i in (at, at + 1) else OTHER} for i in range(count)}
    code[count] = {relpath: UPSTREAM}
    if stub:  # the old module stays, importing the scope from its new home
        code[count][f"{PKG}/core.py"] = f"from {module} import size\n"
    loopback("radpatch-toy", {f"1.{i}": files for i, files in code.items()})
    text = entry("A toy patch; upstream moved the code, then took it.", f">=1.0,<1.{count}")
    if stacked:  # on a requirement (`requires:`): the bases stack it below the entry, as verify does
        write_registry("first", _first(count, module))
        text = "requires: [first]\n" + text
    reg = write_registry("cap", text)
    before = (reg / "cap.yaml").read_bytes()
    grid = json.loads(radpatch("--registry", str(reg), "verify", "--all", "--versions", f"==1.{count}", "--json").out)
    cell = {c["version"]: c for c in grid["matrix"][0]["cells"]}[f"1.{count}"]
    assert cell["cell"] == "out of range", cell
    assert f"{module}, which already contains the change" in cell["detail"], cell
    r = radpatch("--registry", str(reg), "port", "cap", "--to", f"1.{count}")
    assert f"1.{count}" in r.out and "already contains the change" in r.out, (r.out, r.err)
    assert "do not prove" not in r.out + r.err, (r.out, r.err)
    assert (reg / "cap.yaml").read_bytes() == before
