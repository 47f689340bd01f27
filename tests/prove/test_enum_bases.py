"""insert_definitions `into:` a class whose enum-ness is told only by following its bases (att55 F2):
a payload constant in an enum's body becomes a new member, so apply refuses it; a method never
does, and a class with a non-enum base takes both. The oracle is Python itself: the module, with
the item written into the class by hand, imported in a subprocess: does the enum gain a member?"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.lib.enum_bases import ENTRY, ITEMS, KINDS, NOT_ENUM, WHERE, indented, members, package
from tests.lib.generated import sample
from tests.lib.site import Site

CASES = sample([(w, k, i) for w in WHERE for k in KINDS for i in ITEMS])


@pytest.mark.parametrize(("where", "kind", "item"), CASES)
def test_a_constant_that_would_be_an_enum_member_is_refused(
    where: str, kind: str, item: str, site: Site, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    text = ITEMS[item](kind)
    oracle = Site(tmp_path / "oracle")
    oracle.root.mkdir()
    oracle.install("rpmodes", "1.0", package(where, kind, indented(text)))
    becomes_member = "_rp_default_weight" in members(oracle.root)
    site.install("rpmodes", "1.0", package(where, kind))
    had = members(site.root)
    assert had == ([] if where in NOT_ENUM else ["FAST", "SAFE"])
    reg = write_registry("p", ENTRY, {"payload.py": text})
    before = site.snapshot()
    r = radpatch("--registry", str(reg), "apply", "p")
    annotated_rule = item == "annotated"  # special_class: any base may make an annotated attribute a field
    if becomes_member or annotated_rule:
        assert r.code == 1, (r.out, r.err)
        first = r.err.splitlines()[0]
        assert first.startswith("radpatch: error: p: rewrite 'weight'") and "Traceback" not in r.err, r.err
        said = "may make an annotated attribute a field" if annotated_rule else "would become a member"
        assert said in first, first
        assert site.snapshot() == before
        return
    assert r.code == 0, (r.out, r.err)  # over-refusal: a method, or a constant of a class that is no enum
    assert members(site.root) == had


UNKNOWN = {  # a base bound where radpatch cannot follow it (globals()): (its name, its value, refused)
    "enum-named-enum": ("ModeEnum", "enum.Enum", True),
    "enum-named-plain": ("ModeEnum", 'type("ModeEnum", (), {})', True),  # may be one: refused
    "neutral-plain": ("Base", 'type("Base", (), {})', False),
}


@pytest.mark.parametrize("case", sample(list(UNKNOWN)))
def test_a_base_radpatch_cannot_follow_is_refused_when_its_name_says_enum(
    case: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    name, value, refused = UNKNOWN[case]
    dyn = f'import enum\n\nglobals()["{name}"] = {value}\n'
    core = f"from rpmodes.dyn import {name}\n\n\nclass Mode({name}):\n    FAST = 1\n\n    def f(self):\n        pass\n"
    site.install("rpmodes", "1.0", {"rpmodes/__init__.py": "", "rpmodes/dyn.py": dyn, "rpmodes/core.py": core})
    reg = write_registry("p", ENTRY, {"payload.py": ITEMS["plain"]("Enum")})
    r = radpatch("--registry", str(reg), "apply", "p")
    assert (r.code == 1) is refused, (r.out, r.err)
    if refused:
        assert "may be an enum" in r.err and "would become a member" in r.err, r.err
