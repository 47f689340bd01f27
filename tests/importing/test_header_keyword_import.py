"""A keyword argument changed, added or taken away in a call of a definition's header
(`@dec(k=1)` -> `@dec(k=2)`, `a=g(k=1)` -> `a=g(k=1, j=2)`, `@dataclass(frozen=True)` gaining
`slots=True`; elem39 #2, issue 20) was imported as a `replace_decorator` or `set_default` of the
whole expression, because set_keyword refused calls in headers and named those rewrites instead:
now one `set_keyword` per keyword on the definition's scope, which set_keyword changes in the header
where the scope's body holds no such call. Where the definition calls the callee elsewhere too (its
body, another header), the wider rewrite stays, as before.

Generated: where the call is (a function's decorator, a method's, a class's, a nested function's,
a positional default, a keyword-only default) x what changes (a value, a keyword added, one taken
away, two values) x the definition calling the callee elsewhere too or not. As data, set_keyword
steps only (or the wider rewrite); the steps run by the engine give the bytes GNU patch gives for
the diff and undo to the installed bytes; and the batch through `radpatch import`, apply, `status
--check` and revert against GNU patch."""

from __future__ import annotations

import itertools
import keyword
from pathlib import Path

import pytest

from radpatch.importing.import_steps import ImportStep
from radpatch.importing.rewrites import rewrites
from radpatch.registry.model import Operation
from radpatch.rewrite.ops import OPERATIONS
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check

HEAD = "def dec(*a, **k):\n    return lambda f: f\n\n\n"
# where: (the module with {call} where the call is, {body} the body's return value; the scope)
PLACES = {
    "function-decorator": ("@{call}\ndef f(a):\n    return {body}\n", "f"),
    "method-decorator": ("class C:\n    x = 0\n\n    @{call}\n    def m(self):\n        return {body}\n", "C.m"),
    "class-decorator": ("@{call}\nclass K:\n    def m(self):\n        return {body}\n", "K"),
    "nested-decorator": ("def f():\n    @{call}\n    def h():\n        return {body}\n    return h\n", "f.h"),
    "default": ("def f(a={call}):\n    return {body}\n", "f"),
    "kwonly-default": ("def f(*, a={call}):\n    return {body}\n", "f"),
}
# mode: (the call before, after)
MODES = {
    "change": ("dec(1, k=2)", "dec(1, k=3)"),
    "add": ("dec(1, k=2)", "dec(1, k=2, j=4)"),
    "take": ("dec(1, k=2, j=4)", "dec(1, k=2)"),
    "two": ("dec(k=2, j=4)", "dec(k=3, j=5)"),
}
CASES = sample(list(itertools.product(PLACES, MODES, (False, True))))


def case(place: str, mode: str, elsewhere: bool) -> tuple[str, str]:
    shape, _ = PLACES[place]
    body = "dec(k=0)" if elsewhere else "1"
    was, now = MODES[mode]
    return HEAD + shape.format(call=was, body=body), HEAD + shape.format(call=now, body=body)


def _ops(steps: tuple[ImportStep, ...]) -> tuple[Operation, ...]:
    out = []
    for s in steps:
        values = {(k + "_" if keyword.iskeyword(k) else k): v for k, v in s.keys}
        out.append(OPERATIONS[s.op].build(s.op, values, lambda k, m: ValueError(m)))
    return tuple(out)


@pytest.mark.parametrize(("place", "mode", "elsewhere"), CASES)
def test_a_keyword_of_a_header_call_is_one_set_keyword(place: str, mode: str, elsewhere: bool) -> None:
    before, after = case(place, mode, elsewhere)
    found = rewrites(before, after)
    wide = "set_default" if "default" in place else "replace_decorator"
    if elsewhere:
        assert [s.op for s in found.steps] == [wide], found.steps
    else:
        assert [s.op for s in found.steps] == ["set_keyword"] * (2 if mode == "two" else 1), found.steps
        assert {s.get("scope") for s in found.steps} == {PLACES[place][1]}, found.steps
    check(before, _ops(found.steps), after)  # the bytes GNU patch gives for the diff, and back


@pytest.mark.wheel
def test_header_keyword_changes_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)
