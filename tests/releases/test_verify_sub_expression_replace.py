"""verify's "already contains this change" is status's and apply's judgement (prove.round_trips.carries),
not a second one: a replace whose `with` lies inside its `find` (`int(timeout)` -> `timeout`)
reads as patched by the round trip alone on a release that does not carry it, and verify must not
call that release obsolete while status reads it not-applied and apply patches it."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from radpatch.prove.form import judge
from radpatch.registry.loader import load_patch
from radpatch.releases.proof import prove
from radpatch.releases.proof_job import File, Job, Layer
from radpatch.state.decide import State
from radpatch.state.record import Store
from tests.lib.generated import sample
from tests.lib.site import Site

DIST, PKG = "rpsub", "rpsub"


def entry(find: str, with_: str) -> str:
    return f"""\
        summary: s
        description: d
        distribution: {DIST}
        supported: ">=1.0,<2"
        modules:
          m: {PKG}.m
        rewrites:
          - replace: {{scope: wait, find: {json.dumps(find)}, with: {json.dumps(with_)}}}
        """


def module(expr: str) -> str:
    return f"def wait(timeout):\n    return {expr}\n"


def test_verify_passes_a_release_the_entry_applies_to_and_status_reads_it_not_applied(
    loopback: Any, site: Site, write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, {"1.0": {f"{PKG}/__init__.py": "", f"{PKG}/m.py": module("int(timeout)")}})
    site.install(DIST, "1.0", {f"{PKG}/__init__.py": "", f"{PKG}/m.py": module("int(timeout)")})
    reg = write_registry("p", entry("int(timeout)", "timeout"))
    r = radpatch("--registry", str(reg), "verify", "p", "--json")
    assert r.code == 0, r.out + r.err
    data = json.loads(r.out)
    (result,) = data["results"]
    assert result["ok"] is True and result["checks"]["pristine"] is True, result
    assert data["obsolete"] == []
    # the summary verify leaves behind must not make status call the entry obsolete upstream
    (st,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "p").out)
    assert st["state"] == "not-applied", st
    assert st["obsolete_upstream"] is None, st


# expressions of `timeout`, each holding the one it wraps: find/with pairs where one contains the other
WRAPS = ["int({})", "float({})", "({}) + 0", "[{}][0]", "({}).real", "abs({})", "round({}, 2)", "-({})"]
ATOMS = ["timeout", "timeout.seconds"]


def pairs() -> list[tuple[str, str]]:
    out = []
    for atom, wrap in itertools.product(ATOMS, WRAPS):
        inner, outer = atom, wrap.format(atom)
        out += [(outer, inner), (inner, outer)]  # `with` inside `find`, and `find` inside `with`
    for a, b in itertools.permutations(WRAPS[:4], 2):
        inner = b.format("timeout")
        outer = a.format(inner)
        out += [(outer, inner), (inner, outer)]
    return out


FORMS = ["unpatched", "patched", "unpatched, commented"]
CASES = sample([(find, with_, form) for (find, with_) in pairs() for form in FORMS])


@pytest.mark.parametrize(("find", "with_", "form"), CASES)
def test_verify_judges_a_release_file_as_status_and_apply_do(
    tmp_path: Path, write_registry: Any, find: str, with_: str, form: str
) -> None:
    patch = load_patch(write_registry("p", entry(find, with_)) / "p.yaml")
    expr = with_ if form == "patched" else find
    source = ("# a comment\n" if "commented" in form else "") + module(expr)
    data, rel = source.encode(), f"{PKG}/m.py"
    state, _ = judge(patch, patch.rewrites, data, rel, None, Store(tmp_path))
    applied = state is State.APPLIED
    proof = prove(Job((Layer(patch, (File("m", f"{PKG}.m", rel, patch.rewrites, data),)),)))
    # verify's pristine check: the release already contains the change exactly when status reads
    # the file applied (here the rewrites apply or undo cleanly, so upstream's layout plays no part)
    assert proof.checks["pristine"] is (not applied), (state, proof.error, source)
    # the family is not trivially one answer: the patched form reads applied, the unpatched not
    assert applied is (form == "patched"), (state, source)
