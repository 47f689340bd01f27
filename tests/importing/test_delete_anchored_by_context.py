"""Import anchors a deleted statement that repeats by its context, not by a bare count (issue 23/20,
port52; att51 #1): a statement deleted where its scope has several copies was written
`delete: {find: ..., occurrence: N}`; a release that adds a copy before it makes N another statement,
while GNU patch, by the hunk's context, still finds the right one. Now the smallest unique run of it
and a simple neighbour (after it, else before it) is a `replace` that keeps the neighbour, and
`occurrence:` is left for where nothing else tells the copies apart.

Generated: random function bodies with repeated statements (tests/lib/same_code.py), one copy of a
repeated statement deleted (not one next to an identical copy: which of the two goes is not told); the
next release inserts a copy of it (or other statements) at random places. Oracle: GNU `patch` of the
diff on the next release, against the imported rewrites run there by apply's own runner: where both
apply they give the same code (radpatch may refuse: counted); on the
installed release itself the rewrites give what patch gives. A case where no simple neighbour of the
copy tells it apart (the test's own count of runs in the generated body) is counted, not run on the next
release: its entry may keep a bare `occurrence:`, and port and verify refuse a release where that count
picks other code (tests/releases/test_port_same_code.py)."""

from __future__ import annotations

import ast
import copy
import random

import pytest
import yaml

from radpatch.errors import RefusedError
from radpatch.importing.rewrites import rewrites
from radpatch.registry.loader import load_bytes
from radpatch.rewrite.runner import forward
from tests.lib.generated import sample
from tests.lib.same_code import PATCH, Body, _body, _mutate, _simple, gnu_patch, render

pytestmark = pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")
SEEDS = sample(range(150))


def _case(seed: int) -> tuple[str, str, str, bool] | None:
    """(installed, patched, next release, whether a neighbour tells the deleted copy apart)."""
    rng = random.Random(seed)
    body = _body(rng)
    simple = _simple(body)
    texts = [b[i] for b, i in simple]
    # a copy next to an identical one is no distinct statement: deleting either gives the same module
    alone = [(b, i) for b, i in simple if b[i] not in (b[i - 1] if i else None, b[i + 1] if i + 1 < len(b) else None)]
    repeated = [(b, i) for b, i in alone if texts.count(b[i]) > 1]
    if not repeated:
        return None
    block, k = rng.choice(repeated)
    target = block[k]
    assert isinstance(target, str)
    told = _told_apart(body, block, k)
    gone = copy.deepcopy(body)
    path = _simple(gone)[simple.index((block, k))]
    del path[0][path[1]]
    changed = copy.deepcopy(body)
    _mutate(rng, changed, target)
    return render(body), render(gone), render(changed), told


def _blocks(body: Body) -> list[Body]:
    return [body, *(b for item in body if isinstance(item, tuple) for b in _blocks(item[1]))]


def _told_apart(body: Body, block: Body, k: int) -> bool:
    """A simple statement next to the copy makes the two a run found once in the function, and stays
    found once when the copy is gone: the context GNU patch's hunk carries tells the copy apart."""

    def count(run: list[object], blocks: list[Body]) -> int:
        return sum(1 for b in blocks for j in range(len(b)) if b[j : j + len(run)] == run)

    for lo, hi, n in ((k, k + 2, k + 1), (k - 1, k + 1, k - 1)):
        if lo < 0 or hi > len(block) or not isinstance(block[n], str) or count(block[lo:hi], _blocks(body)) != 1:
            continue
        gone = copy.deepcopy(body)
        held = _blocks(gone)[next(i for i, b in enumerate(_blocks(body)) if b is block)]
        del held[k]
        if count([block[n]], _blocks(gone)) == 1:
            return True
    return False


def _entry(before: str, after: str) -> bytes:
    steps = [{s.op: dict(s.keys)} for s in rewrites(before, after).steps]
    doc = {"summary": "s", "description": "d", "distribution": "toy", "supported": "==1.0"}
    return yaml.safe_dump({**doc, "modules": {"m": "toy.m"}, "rewrites": steps}, sort_keys=False).encode()


def test_an_imported_deletion_lands_where_gnu_patch_does_on_the_next_release(tmp_path) -> None:  # type: ignore[no-untyped-def]
    counts = {"same as GNU patch": 0, "radpatch refuses, GNU patch applies": 0, "GNU patch rejects": 0}
    counts["no neighbour tells the copy apart (not run on the next release)"] = 0
    bad = []
    cases = [c for c in (_case(s) for s in SEEDS) if c is not None]
    for before, after, changed, told in cases:
        data = _entry(before, after)
        patch = load_bytes(tmp_path / "e.yaml", data)
        mine = forward(patch, patch.rewrites, before.encode(), "m.py").decode()
        assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(after)), data.decode()
        if not told:  # a bare `occurrence:` may be all there is: port's check guards it (surroundings)
            counts["no neighbour tells the copy apart (not run on the next release)"] += 1
            continue
        gnu = gnu_patch(before, after, changed)
        if gnu is None:
            counts["GNU patch rejects"] += 1
            continue
        try:
            ours = forward(patch, patch.rewrites, changed.encode(), "m.py").decode()
        except RefusedError:
            counts["radpatch refuses, GNU patch applies"] += 1
            continue
        if ast.dump(ast.parse(ours)) != ast.dump(ast.parse(gnu)):
            bad.append(f"{data.decode()}--- installed\n{before}--- next\n{changed}--- radpatch\n{ours}--- gnu\n{gnu}")
        else:
            counts["same as GNU patch"] += 1
    print(f"\nimported deletions on the next release, {len(cases)} cases: {counts}")
    assert not bad, f"{len(bad)} of {len(cases)}:\n" + "\n".join(bad[:2])
