"""The value handed to `self.m(...)` in a method of the module's own class (att62 F12): it was taken for
another object's method, an escape, and refused though `m` only reads it (vLLM's config/vllm.py hands its
`OPTIMIZATION_LEVEL_*` dicts to `self._apply_optimization_level_defaults`). `m` is now followed as the class's
own def (rewrite.self_calls) where the text can tell which def it is; elsewhere it stays a callee the text
cannot tell: an attribute `m` stored on an instance, the method run through the class with another object
as `self`.

Generated: the edits of tests/lib/escape_edits (but set_constant) x how `self.m` is reached x what `m` does
with the value (undoes the edit, changes something else, only reads it). The oracle imports the original and
the patched module in a fresh interpreter (tests/lib/later_values): where the edit does not take effect,
radpatch must refuse; where `m` only reads the value and the route is one the text can tell, it must apply."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, assert_refused_where_undone, verdict
from tests.lib.generated import sample

# {b}: m's body on its parameter `d`; {n}: the value's name
ROUTES = {
    "a method": "class _K:\n    def _m(self, d):\n        {b}\n\n    def run(self):\n        return self._m({n})\n\n\n"
    "_K().run()",
    "a classmethod": "class _K:\n    @classmethod\n    def _m(cls, d):\n        {b}\n\n    @classmethod\n"
    "    def run(cls):\n        return cls._m({n})\n\n\n_K.run()",
    "a staticmethod callee": "class _K:\n    @staticmethod\n    def _m(d):\n        {b}\n\n    def run(self):\n"
    "        return self._m({n})\n\n\n_K().run()",
    "a subclass's override": "class _K:\n    def _m(self, d):\n        return None\n\n    def run(self):\n"
    "        return self._m({n})\n\n\nclass _S(_K):\n    def _m(self, d):\n        {b}\n\n\n_S().run()",
    "a base's method": "class _B:\n    def _m(self, d):\n        {b}\n\n\nclass _K(_B):\n    def run(self):\n"
    "        return self._m({n})\n\n\n_K().run()",
    # the text cannot tell: an attribute stored on the instance, the method run with another object as `self`
    "an instance attribute": "def _f(d):\n    {b}\n\n\nclass _K:\n    def __init__(self):\n        self._m = _f\n\n"
    "    def _m(self, d):\n        return None\n\n    def run(self):\n        return self._m({n})\n\n\n_K().run()",
    "another self": "class _O:\n    def _m(self, d):\n        {b}\n\n\n"
    "class _K:\n    def _m(self, d):\n        return None\n\n    def run(self):\n"
    "        return self._m({n})\n\n\n_K.run(_O())",
}
TOLD = ("a method", "a classmethod", "a staticmethod callee", "a subclass's override", "a base's method")
EDITED = tuple(k for k in EDITS if k != "set_constant")
CASES = sample(list(itertools.product(EDITED, ROUTES, ("undo", "twin"))))


def _later(edit: str, route: str, body: str) -> str:
    e = EDITS[edit]
    what = {"undo": e.undo, "twin": e.twin}.get(body, body).format(v="d")
    text = ROUTES[route].format(b=what.replace("\n", "\n        "), n=e.name)
    return "try:\n    " + text.replace("\n", "\n    ") + "\nexcept Exception:\n    pass"  # the original may lack it


@pytest.mark.parametrize(("edit", "route", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_a_value_handed_to_self_m_is_followed_or_refused(tmp_path: Path, edit: str, route: str, key: str) -> None:
    assert_refused_where_undone(tmp_path, EDITS[edit], _later(edit, route, key), key == "undo")


# set_keyword's Box stores through `self.__dict__`, which is read as a store of any attribute (`m` too)
READS = sample(list(itertools.product([e for e in EDITED if e != "set_keyword"], TOLD)))


@pytest.mark.parametrize(("edit", "route"), READS, ids=["-".join(c) for c in READS])
def test_a_method_that_only_reads_the_value_applies(tmp_path: Path, edit: str, route: str) -> None:
    refused, took, before = verdict(tmp_path, EDITS[edit], _later(edit, route, "return len(str(d))"))
    assert took, f"reading the value should leave the edit in effect:\n{before}"
    assert refused is None, f"refused, but `self._m` is the class's own def, which only reads it: {refused}"
