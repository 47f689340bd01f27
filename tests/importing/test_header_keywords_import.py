"""Issue 20 (kw44): a keyword changed in a decorator's call (`@lru_cache(maxsize=8)` -> `maxsize=16`)
or in a call that is a parameter's default (`def f(x=field(default=1))`) imported as a
`replace_decorator` or `set_default` of the whole expression, which carries the call's other
arguments and breaks on any upstream edit of them. set_keyword did not search a definition's
header; with `header: decorators` (or `defaults`) it does, and the import writes one set_keyword
per keyword changed, added or taken away there.

Generated: where the call is (a function's decorator, a method's, a class's; a default of a
positional, a keyword-only or a method's parameter) x the change (a value, a keyword added, one
taken away, a value and a keyword added, two added) x layout (the call on one line, one argument
per line) x what else calls the callee (nothing, a call in the body, which `header:` does not
count, another call in the same header: picked by `occurrence:` counted in the header for a value,
by `call_occurrence:` for a keyword added or taken away, kw45; it left the wider rewrite). As data (a set_keyword
per keyword, `header:` set, nothing of the call's other arguments), run by the engine (the after
file's bytes, and back to the installed ones); and every third case through `radpatch import`, apply,
`status --check` and revert on a pip-installed wheel, against GNU `patch -p1`.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import assert_cases_imported_as_gnu_patch
from tests.lib.rewrites import check, set_keyword_ops

# where: the module with {call} where the call is, {other} where another call of the header
# goes, {body} the body's first statement
PLACES = {
    "decorator": "@{call}{other}\ndef f(a):\n    {body}\n    return a\n",
    "method-decorator": "class C:\n    @{call}{other}\n    def m(self):\n        {body}\n        return 1\n",
    "class-decorator": "@{call}{other}\nclass K:\n    def m(self):\n        {body}\n        return 1\n",
    "default": "def f(a={call}{other}):\n    {body}\n    return a\n",
    "kwonly-default": "def f(*, a={call}{other}):\n    {body}\n    return a\n",
    "method-default": "class C:\n    def m(self, a={call}{other}):\n        {body}\n        return a\n",
}
# change: the keyword arguments of `g(1, ...)` before and after
CHANGES = {
    "value": (("k=2",), ("k=3",)),
    "add": (("k=2",), ("k=2", "n=7")),
    "take": (("k=2", "n=7"), ("k=2",)),
    "value+add": (("k=2",), ("k=3", "n=7")),
    "add-two": ((), ("k=3", "n=[7]")),
}
OTHERS = ("none", "body", "header")
LAYOUTS = ("line", "lines")


def _call(keywords: tuple[str, ...], layout: str, indent: str) -> str:
    args = ("1", *keywords)
    if layout == "line":
        return f"g({', '.join(args)})"
    return "g(\n" + "".join(f"{indent}    {a},\n" for a in args) + f"{indent})"


def module(place: str, keywords: tuple[str, ...], layout: str, other: str) -> str:
    shape = PLACES[place]
    indent = "    " if place.startswith("method") else ""
    if other == "header":  # another call to g in the same header: a second decorator, another default
        more = f"\n{indent}@g(0)" if "decorator" in place else ", b=g(0)"
    else:
        more = ""
    body = "z = g(5, k=2)" if other == "body" else "z = 0"
    head = "def g(*a, **k):\n    return lambda x: x\n\n\n"
    return head + shape.format(call=_call(keywords, layout, indent), other=more, body=body)


CASES = sample(list(itertools.product(PLACES, CHANGES, LAYOUTS, OTHERS)))


def case(place: str, change: str, layout: str, other: str) -> tuple[str, str]:
    was, now = CHANGES[change]
    return module(place, was, layout, other), module(place, now, layout, other)


@pytest.mark.parametrize(("place", "change", "layout", "other"), CASES)
def test_a_keyword_in_a_header_call_is_a_set_keyword_with_header(
    place: str, change: str, layout: str, other: str
) -> None:
    before, after = case(place, change, layout, other)
    got = rewrites(before, after)
    ops = [s.op for s in got.steps]
    was, now = CHANGES[change]
    names = {k.split("=")[0] for k in (*was, *now) if k not in was or k not in now}
    assert ops == ["set_keyword"] * len(names), got.steps
    keys = [dict(s.keys) for s in got.steps]
    assert {k["keyword"] for k in keys} == names, got.steps
    assert {k["header"] for k in keys} == {"decorators" if "decorator" in place else "defaults"}, got.steps
    assert not any("1," in str(v) or "g(" in str(v) for k in keys for v in k.values()), got.steps
    # another call to g in the header (kw45): a value picked by `occurrence:` counted in the header,
    # a keyword added or taken away by the call's number among the header's calls to g
    picks = [(k.get("occurrence"), k.get("call_occurrence")) for k in keys]
    toggles = ["from" not in k or "to" not in k for k in keys]
    if other == "header":
        assert picks == [(None, 1) if t else (1, None) for t in toggles], got.steps
    else:
        assert picks == [(None, None)] * len(keys), got.steps
    check(before, set_keyword_ops(got.steps), after)  # the after file's bytes, and back to the installed ones


@pytest.mark.wheel
def test_each_import_applies_as_gnu_patch_gives(tmp_path: Path) -> None:
    # CASES[::3]: every place, change, layout and other, in few processes
    assert_cases_imported_as_gnu_patch(tmp_path, CASES[::3], case)
