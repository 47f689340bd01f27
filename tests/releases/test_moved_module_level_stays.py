"""A "moved" port carries only the rewrites whose scope moved (issue 23/20, port52; att51 #2): an entry
with a module-level rewrite (`set_constant LIMIT`, a module-level `replace`) and a rewrite in `size`,
where the next release moves `size` to another module that has a namesake of the module-level code
while the old module keeps its own (and its other users read it). Carrying every rewrite along would
make the module-level change silently stop reaching the old module: port says which rewrites stay and
leaves the entry alone; where the old module no longer has that code, the move carries it.

Generated: the module-level rewrite (set_constant, replace), whether the old module keeps the code,
whether the new module has its own copy (else another value). Expected by construction: the old module
keeps the code -> left alone (naming the rewrite where the rest would prove in the new module); it does
not -> the rewrite is not named as staying."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.generated import sample

DIST, PKG = "radpatch-limit", "rplimit"
SIZE = "def size(x):\n    return min(x * 2, LIMIT)\n"
CAP = "def cap(x):\n    return min(x, LIMIT)\n"
REWRITES = {
    "set_constant": "  - set_constant: {name: LIMIT, from: 5, value: 10}\n",
    "replace": '  - replace: {scope: "<module>", find: "LIMIT = 5", with: "LIMIT = 10"}\n',
}


def _releases(keeps: bool, copy: bool) -> dict[str, dict[str, str | bytes]]:
    core = f"from {PKG}.planning import size\n" + ("\nLIMIT = 5\n\n\n" + CAP if keeps else "")
    planning = ("LIMIT = 5\n\n\n" if copy else "LIMIT = 7\n\n\n") + SIZE
    return {
        "1.0": {f"{PKG}/__init__.py": "", f"{PKG}/core.py": "LIMIT = 5\n\n\n" + SIZE + "\n\n" + CAP},
        "1.1": {f"{PKG}/__init__.py": "", f"{PKG}/core.py": core, f"{PKG}/planning.py": planning},
    }


def _entry(kind: str) -> str:
    return (
        f'summary: raise the limit\ndescription: d\ndistribution: {DIST}\nsupported: "==1.0"\n'
        f"modules:\n  m: {PKG}.core\nrewrites:\n{REWRITES[kind]}"
        "  - replace: {scope: size, find: x * 2, with: x * 3}\n"
    )


@pytest.mark.parametrize(
    ("kind", "keeps", "copy"),
    sample([(k, keeps, c) for k in REWRITES for keeps in (True, False) for c in (True, False)]),
)
def test_a_move_carries_only_the_rewrites_whose_scope_moved(
    loopback: Any, write_registry: Any, radpatch: Any, kind: str, keeps: bool, copy: bool
) -> None:
    loopback(DIST, _releases(keeps, copy))
    reg = write_registry("limit", _entry(kind))
    before = (reg / "limit.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "limit", "--to", "1.1")
    after = (reg / "limit.yaml").read_bytes()
    if keeps:  # the old module keeps LIMIT and cap() reads it: moving the rewrite would stop the change there
        assert r.code != 0 and after == before, r.out + r.err
        if copy:  # the rewrites would prove in the new module: only the rewrite that stays stops the move
            assert "still change code" in r.out and f"{PKG}.core keeps" in r.out, r.out
    else:  # nothing of the old module's code is left for the rewrite: it is not named as staying
        assert "still change code" not in r.out, r.out
