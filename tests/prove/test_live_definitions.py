"""A patch must land in the definition that runs: not in a `def` a later statement of its scope
replaces, unconditionally or on some path (`if cond: def f`, a try's fallback import, a loop).

Generated: where the patched `def f` is (module level, inside an `if`), what follows it
(conditional and unconditional redefinitions, `match` capture patterns, definitions that never run
or live elsewhere,
alternatives), and whether something reads f in between (which keeps it alive). Every module
is run for each condition and with the optional library present and absent, recording whether
the patched `def` ran and which function `f` is at the end: the proof must refuse exactly the
patches whose definition, on some run, ran and was then replaced unread.
"""

from __future__ import annotations

import ast
import itertools
import sys
import types

import pytest

from radpatch.prove import placement
from tests.lib.blocks import indent
from tests.lib.generated import sample

PATCHED = "def f(_tag=_seen.append('patched')):\n    return 'old'\n"
OTHER = "def f():\n    return 'other'\n"


LATER = {  # what follows the patched def (COND2: a condition the proof cannot relate to COND)
    "none": "",
    "unconditional": OTHER,
    "if": "if COND2:\n" + indent(OTHER),
    "if-assign": "if COND2:\n    f = len\n",
    "else": "if COND2:\n    pass\nelse:\n" + indent(OTHER),
    "nested-if": "if True:\n    if COND2:\n" + indent(OTHER, "        "),
    "try-import": "try:\n    from _rp_fast import f\nexcept ImportError:\n    pass\n",
    "try-fallback": "try:\n    import _rp_fast\nexcept ImportError:\n" + indent(OTHER),
    "try-else": "try:\n    import _rp_fast\nexcept ImportError:\n    pass\nelse:\n" + indent(OTHER),
    "for": "for _ in range(COND2):\n" + indent(OTHER),
    "while": "while COND2:\n" + indent(OTHER) + "    break\n",
    "with": "with contextlib.nullcontext():\n" + indent(OTHER),
    "type-checking": "if TYPE_CHECKING:\n" + indent(OTHER),
    "other-scope": "def g():\n" + indent(OTHER) + "    return f\n",
    "class-scope": "class C:\n" + indent(OTHER),
    "match-capture": "match COND2:\n    case f:\n        pass\n",  # binds f to the subject
    "match-capture-after-case": "match COND2:\n    case 1:\n        pass\n    case f:\n        pass\n",
    "match-capture-in-sequence": "match [COND2]:\n    case [0]:\n        pass\n    case [f]:\n        pass\n",
    "match-capture-star": "match [COND2]:\n    case [*f]:\n        pass\n",
    "match-capture-rest": "match {'k': COND2}:\n    case {'k': 0, **f}:\n        pass\n",  # when COND2 is 0
    "match-value-pattern": "match COND2:\n    case _rp.f:\n        pass\n",  # a value pattern binds nothing
}

READ = "try:\n    _registry.append(f)\nexcept NameError:\n    pass\n"  # f may not be bound (a def under `if`)
BETWEEN = {"": "", "register": READ, "if-register": "if COND3:\n" + indent(READ)}

PLACES = ("module", "in-if", "in-if-with-else")

HEAD = (
    "import contextlib\nimport types\nfrom typing import TYPE_CHECKING\n\n"
    "_rp = types.SimpleNamespace(f=1)\n_seen = []\n_registry = []\n"
)


def build(place: str, between: str, later: str, body: str) -> str:
    patched = PATCHED.replace("'old'", body)
    if place == "module":
        first = patched
    elif place == "in-if":
        first = "if COND:\n" + indent(patched)
    else:  # the patched def and its alternative: only one of them runs
        first = "if COND:\n" + indent(patched) + "else:\n" + indent(OTHER)
    return HEAD + first + BETWEEN[between] + LATER[later]


def fast(present: bool) -> None:
    sys.modules.pop("_rp_fast", None)
    if present:
        stub = types.ModuleType("_rp_fast")
        stub.f = len  # type: ignore[attr-defined]
        sys.modules["_rp_fast"] = stub


def replaced_unread(source: str) -> bool:
    """Is there a run in which the patched def ran and was then replaced without being read?"""
    for cond, cond2, cond3, present in itertools.product((0, 1), (0, 1), (0, 1), (False, True)):
        fast(present)
        try:
            ns: dict[str, object] = {"__name__": "generated", "COND": cond, "COND2": cond2, "COND3": cond3}
            exec(compile(source, "generated.py", "exec"), ns)
        finally:
            fast(False)
        ran = ns["_seen"] == ["patched"]
        final = ns.get("f")
        alive = getattr(final, "__defaults__", None) is not None or any(
            getattr(r, "__defaults__", None) is not None
            for r in ns["_registry"]  # type: ignore[attr-defined]
        )
        if ran and not alive:
            return True
    return False


def dead(before: str, after: str) -> list[str]:
    return placement.dead_changes(placement.placement(ast.parse(before)), placement.placement(ast.parse(after)))


CASES = sample(itertools.product(PLACES, BETWEEN, LATER))


@pytest.mark.parametrize(("place", "between", "later"), CASES, ids=["-".join(c) or "x" for c in CASES])
def test_a_patch_in_a_definition_that_may_be_replaced_is_refused(place: str, between: str, later: str) -> None:
    before, after = build(place, between, later, "'old'"), build(place, between, later, "'new'")
    found = dead(before, after)
    assert bool(found) == replaced_unread(after), (after, found)
    if found:
        assert "it changes `f`" in found[0] and ("replaces" in found[0]), found
        surely = later in ("unconditional", "match-capture")  # else a nested or conditional redefinition
        assert ("on some paths" in found[0]) == (not surely), found


def test_overloads_and_a_property_setter_are_alive_where_they_run() -> None:
    overloaded = (
        "from typing import overload\n\n\n@overload\ndef f(x: int) -> int: ...\n@overload\ndef f(x: str) -> str: ...\n"
        "def f(x):\n    return x\n"
    )
    assert dead(overloaded, overloaded.replace("return x", "return x * 2")) == []
    prop = (
        "class C:\n    @property\n    def v(self):\n        return 1\n\n    @v.setter\n    def v(self, value):\n"
        "        pass\n"
    )
    assert dead(prop, prop.replace("return 1", "return 2")) == []
    assert dead(prop, prop.replace("        pass\n", "        self._v = value\n")) == []
