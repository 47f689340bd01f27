"""port's messages where the edit does not prove (issue 23, gy23): a release between those the entry
claimed and those asked for that fails is named, with what to do (raising `supported`'s lower bound
would drop releases that pass); an edited `supported:` that is a YAML anchor a module choice uses as
an alias is named as the cause (the edit changed both). On the toy releases (tests/lib/toy_releases:
size() moves to planning.py in 2.0, core.py's is rewritten in 2.1 and gone in 2.2)."""

from __future__ import annotations

import json
from typing import Any

from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import DIST, PKG, REWRITES, entry


def test_a_failing_release_between_the_old_range_and_the_one_asked_for_is_named(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry("==1.0"))
    before = (reg / "cap.yaml").read_bytes()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.2")
    assert r.code == 1, r.out + r.err
    assert (reg / "cap.yaml").read_bytes() == before
    line = next(x for x in r.out.splitlines() if "does not prove" in x)
    assert "2.0, 2.1 lie between the releases the entry claimed and those asked for" in line, r.out
    assert 'radpatch port cap --to ">=2.0,<=2.1"' in line and "!=2.0, !=2.1" in line, r.out
    assert "raise `supported`'s lower bound" not in r.out, r.out


ALIASED = f"""\
summary: Cap the toy's size by its buckets
description: A toy patch.
distribution: {DIST}
supported: &rng "==1.0"
modules:
  planner:
    - {{versions: *rng, module: {PKG}.core}}
{REWRITES}"""


def test_an_edited_anchor_that_a_module_choice_uses_is_named(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", ALIASED)
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    # the alias widens rptoy.core's range over 2.0 too, where rptoy.planning is added: the two choices
    # overlap there, and apply (so verify, since rel39) picks rptoy.planning by its code, so the edit proves
    assert r.code == 0, r.out + r.err
    assert "`supported` (&rng) is also `modules.planner[0].versions` (*rng): the edit changed both" in r.out, r.out
    verified = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "==2.0", "--json").out)
    assert verified["results"][0]["modules"] == ["rptoy.planning"] and verified["results"][0]["chosen"], verified


BROKEN = entry("==1.0").replace("find: n = len(items)", "find: n = len(items) * 2")


def test_an_entry_that_fails_on_its_own_release_too_says_so(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    assert BROKEN != entry("==1.0")
    reg = write_registry("cap", BROKEN)
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.1")
    assert r.code == 1, r.out + r.err
    line = next(x for x in r.out.splitlines() if "left alone" in x)
    assert "2.1: no match" in r.out and "it does not prove on its own release 1.0 either" in line, r.out
    assert "radpatch verify cap --versions ==1.0" in line, r.out


def test_an_entry_that_proves_on_its_own_release_says_nothing_of_it(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", entry("==1.0"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.1")
    assert r.code == 1 and "2.1: no match" in r.out, r.out + r.err
    assert "own release" not in r.out, r.out


def test_a_release_the_entry_declares_obsolete_is_said_to_be_declared(
    index: IndexServer, write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("cap", 'obsolete: ">=1.1"\n' + entry(">=1.0"))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.1")
    assert r.code == 0, r.out + r.err
    assert "the entry declares 1.1 obsolete (`obsolete: >=1.1`): nothing to port there" in r.out, r.out
    assert "already contain" not in r.out, r.out
