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


UNKNOWN = {  # a base bound where radpatch cannot follow it (globals()): (its name, its value, what apply says)
    "enum-named-enum": ("ModeEnum", "enum.Enum", "may be an enum"),
    "enum-named-plain": ("ModeEnum", 'type("ModeEnum", (), {})', "may be an enum"),  # may be one: refused
    "neutral-plain": ("Base", 'type("Base", (), {})', None),  # the target interpreter says it is no enum
    "neutral-enum": ("Base", "enum.Enum", "is an enum (asked of the target interpreter)"),
    "neutral-no-import": (
        "Base",
        'type("Base", (), {})\nraise RuntimeError("needs a GPU")',
        "may be an enum (the target interpreter could not import it to tell: RuntimeError",
    ),
}


@pytest.mark.parametrize("case", sample(list(UNKNOWN)))
def test_a_base_radpatch_cannot_follow_is_refused_when_its_name_says_enum_or_the_target_interpreter_cannot_deny_it(
    case: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    name, value, said = UNKNOWN[case]
    dyn = f'import enum\n\nglobals()["{name}"] = {value}\n'
    core = f"from rpmodes.dyn import {name}\n\n\nclass Mode({name}):\n    FAST = 1\n\n    def f(self):\n        pass\n"
    site.install("rpmodes", "1.0", {"rpmodes/__init__.py": "", "rpmodes/dyn.py": dyn, "rpmodes/core.py": core})
    reg = write_registry("p", ENTRY, {"payload.py": ITEMS["plain"]("Enum")})
    before = site.snapshot()
    r = radpatch("--registry", str(reg), "apply", "p")
    assert (r.code == 1) is (said is not None), (r.out, r.err)
    if said is not None:
        assert said in r.err and "would become a member" in r.err and "Traceback" not in r.err, r.err
        assert site.snapshot() == before


@pytest.mark.parametrize("spelled", ['vars(enum)["E" + "num"]', 'enum.__dict__["E" + "num"]', "(object, enum.Enum)[1]"])
def test_a_namespace_entry_as_a_base_is_not_taken_for_the_namespace(
    spelled: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    """`Base = vars(enum)[k]` is the class the key names, not a parametrised `vars(enum)`: radpatch
    cannot follow it and asks the target interpreter, which says it is an enum."""
    dyn = f"import enum\n\nBase = {spelled}\n"
    core = "from rpmodes.dyn import Base\n\n\nclass Mode(Base):\n    FAST = 1\n"
    site.install("rpmodes", "1.0", {"rpmodes/__init__.py": "", "rpmodes/dyn.py": dyn, "rpmodes/core.py": core})
    reg = write_registry("p", ENTRY, {"payload.py": ITEMS["plain"]("Enum")})
    r = radpatch("--registry", str(reg), "apply", "p")
    assert r.code == 1, (r.out, r.err)
    assert "enum" in r.err and "would become a member" in r.err and "Traceback" not in r.err, r.err
