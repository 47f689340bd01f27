"""A patch carried to another release lands on the same code, or port does not carry it (issue 23/20,
port52; att51 #1): a rewrite whose `find` still matches once (or whose `occurrence:` still counts) may
match other code in the next release, when upstream added a copy of the statement or rewrote the one it
matched. port (and verify) compare each match's surroundings with the entry's own release's
(radpatch.releases.surroundings).

Generated: random function bodies with repeated statements (tests/lib/same_code.py), one rewrite of one
of them (delete, insert_after, replace; `occurrence:` where the statement repeats), a release 1.1 that
inserts (often a copy of the target), removes or edits statements at random places. Oracle: GNU
`patch` of the diff the rewrite makes on 1.0, applied to 1.1. Where port says "1.1: pass" and GNU patch
applies, it gives the same code as radpatch's rewrite of 1.1; refusing where patch applies is allowed
(counted, printed with -s), and so is passing where patch rejects (no result of patch's to differ from;
counted): radpatch.releases.surroundings asks no neighbour of statements found once in their enclosing
block on both releases, and only the named side of an insertion's `find`, where upstream changed the
code next to them and patch's context no longer applies."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from radpatch.registry.loader import load_patch
from radpatch.rewrite.runner import forward
from tests.lib.generated import sample
from tests.lib.same_code import PATCH, case, gnu_patch
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.skipif(PATCH is None, reason="GNU patch is not installed")
SEEDS = sample(range(60))


def _entry(dist: str, rewrite: str) -> str:
    head = f'summary: s\ndescription: d\ndistribution: {dist}\nsupported: "==1.0"\n'
    return head + f"modules:\n  m: {_package(dist)}.m\nrewrites:\n{rewrite}"


def _package(dist: str) -> str:
    return dist.replace("-", "_")


def test_port_never_passes_where_the_rewrite_lands_elsewhere_than_gnu_patch(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    cases = [case(s) for s in SEEDS]
    for c in cases[1:]:  # one index serves every case's two releases (a distribution each)
        for version, text in (("1.0", c.old), ("1.1", c.new)):
            build_wheel(tmp_path / "wheels", f"rp52-s{c.seed}", version, {f"rp52_s{c.seed}/m.py": text})
    first = cases[0]
    loopback(
        f"rp52-s{first.seed}", {v: {f"rp52_s{first.seed}/m.py": t} for v, t in (("1.0", first.old), ("1.1", first.new))}
    )
    counts = {"agree": 0, "refused where GNU patch applies": 0, "both refuse": 0, "unwritable": 0}
    counts["passes where GNU patch rejects (the statement found once in its block, its neighbours changed)"] = 0
    bad = []
    for c in cases:
        dist = f"rp52-s{c.seed}"
        name = f"s{c.seed}"
        reg = write_registry(name, _entry(dist, c.rewrite), dirname=f"reg{c.seed}")
        patch = load_patch(reg / f"{name}.yaml")
        try:
            done = forward(patch, patch.rewrites, c.old.encode(), "m.py").decode()
        except Exception:
            counts["unwritable"] += 1  # the generated rewrite does not apply on 1.0 itself
            continue
        r = radpatch("--registry", str(reg), "port", name, "--to", "1.1", "--dry-run")
        passed = "1.1: pass" in r.out
        gnu = gnu_patch(c.old, done, c.new)
        if passed:
            ours = forward(patch, patch.rewrites, c.new.encode(), "m.py").decode()
            if gnu is None:  # no result of patch's to differ from: counted, printed
                counts[
                    "passes where GNU patch rejects (the statement found once in its block, its neighbours changed)"
                ] += 1
            elif ast.dump(ast.parse(gnu)) != ast.dump(ast.parse(ours)):
                bad.append(
                    f"seed {c.seed}: port passes, GNU patch {'rejects' if gnu is None else 'differs'}\n"
                    f"{c.rewrite}--- 1.0\n{c.old}--- 1.1\n{c.new}--- radpatch\n{ours}--- gnu\n{gnu}"
                )
            else:
                counts["agree"] += 1
        elif gnu is None:
            counts["both refuse"] += 1
        else:
            counts["refused where GNU patch applies"] += 1
    print(f"\nport vs GNU patch over {len(cases)} cases: {counts}")
    assert not bad, f"{len(bad)} of {len(cases)}:\n" + "\n".join(bad[:3])
