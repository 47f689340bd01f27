"""An element added to or taken from a display passed to a call, not bound to a name
(`parser.add_argument("--x", choices=["a", "b"])` gaining "c", a registry call's list of archs;
issue 20, elem41 #1): imported as a set_keyword (or `replace`) of the whole display before; now
one `add_element`/`remove_element` each, with `call:` and `keyword:` (or `argument:`, its
position), and `occurrence:` where the scope has several calls to the callee passing it.

Generated: call shape (a plain callee, a method, a chained attribute, one argument per line, the
second of two calls to the callee) x display kind (list, tuple, set) x argument (keyword, first or
second positional) x scope (module, function) x change (added first, in the middle, last, two
added; each one taken away). As data, only add_element/remove_element steps addressed by the call;
the steps run by the engine give the bytes GNU patch gives for the diff and undo to the installed
bytes (check); and a batch through `radpatch import`, apply, `status --check` and revert against
GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.set_element import SetElement
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check

ELEMENTS = ('"a"', '"b"', '"c"')
NEW = ('"n"', '"m"')
KINDS = {"list": "[]", "tuple": "()", "set": "{}"}
SHAPES = ("reg", "parser.add_argument", "self.registry.add", "tall", "second")
ARGUMENTS = ("keyword", "first", "second")
SCOPES = ("module", "function")
CHANGES = [("add", 0), ("add", 1), ("add", 3), ("add2", 1), ("remove", 0), ("remove", 1), ("remove", 2)]


def _call(shape: str, argument: str, d: str, pad: str) -> str:
    callee = {"tall": "register", "second": "reg"}.get(shape, shape)
    args = {"keyword": ['"--x"', f"choices={d}"], "first": [d, '"--x"'], "second": ['"--x"', d, "k=1"]}[argument]
    if shape == "tall":
        return f"{callee}(\n" + "".join(f"{pad}    {x},\n" for x in args) + f"{pad})"
    return f"{callee}({', '.join(args)})"


def module(shape: str, kind: str, argument: str, scope: str, elements: list[str]) -> str:
    opening, closing = KINDS[kind]
    d = opening + ", ".join(elements) + closing
    pad = "" if scope == "module" else "    "
    first = f'{pad}reg("--w", 0, choices=None)\n' if shape == "second" else ""
    head = "" if scope == "module" else "def f(self, parser):\n"
    tail = "    return 0\n" if scope == "function" else ""
    return f"import os\n\n\n{head}{first}{pad}{_call(shape, argument, d, pad)}\n{tail}\n\nY = 1\n"


def case(shape: str, kind: str, argument: str, scope: str, change: tuple[str, int]) -> tuple[str, str]:
    what, at = change
    now = list(ELEMENTS)
    new = (
        [e for n, e in enumerate(now) if n != at]
        if what == "remove"
        else [*now[:at], *NEW[: 1 + (what == "add2")], *now[at:]]
    )
    return module(shape, kind, argument, scope, now), module(shape, kind, argument, scope, new)


CASES = sample(list(itertools.product(SHAPES, KINDS, ARGUMENTS, SCOPES, CHANGES)))


def _ops(steps: tuple[object, ...]) -> tuple[SetElement, ...]:
    ops = []
    for s in steps:
        k = dict(s.keys)  # type: ignore[attr-defined]
        ops.append(
            SetElement(
                str(k.pop("scope")),
                None,
                str(k.pop("element")),
                remove=s.op == "remove_element",  # type: ignore[attr-defined]
                **k,  # type: ignore[arg-type]
            )
        )
    return tuple(ops)


@pytest.mark.parametrize(("shape", "kind", "argument", "scope", "change"), CASES)
def test_an_element_of_a_display_passed_to_a_call_is_its_own_rewrite(
    shape: str, kind: str, argument: str, scope: str, change: tuple[str, int]
) -> None:
    before, after = case(shape, kind, argument, scope, change)
    found = rewrites(before, after)
    op = "remove_element" if change[0] == "remove" else "add_element"
    assert [s.op for s in found.steps] == [op] * (2 if change[0] == "add2" else 1), found.steps
    keys = [dict(s.keys) for s in found.steps]
    callee = {"tall": "register", "second": "reg"}.get(shape, shape)
    assert {k["call"] for k in keys} == {callee}
    assert {k.get("keyword") for k in keys} == {"choices" if argument == "keyword" else None}
    assert {k.get("argument") for k in keys} == {{"keyword": None, "first": 1, "second": 2}[argument]}
    # the other call to reg passes choices= and two positional arguments (any value): counted with it
    assert {k.get("occurrence") for k in keys} == {2 if shape == "second" else None}
    assert {k["scope"] for k in keys} == {"<module>" if scope == "module" else "f"}
    assert not found.fallbacks
    check(before, _ops(found.steps), after)  # the bytes GNU patch gives for the diff, and back


def test_an_element_added_upstream_leaves_the_rewrite_applying() -> None:
    """The installed call gained a choice the patch's diff did not know of: still applies, still undoes."""
    before, after = case("parser.add_argument", "list", "keyword", "function", ("add", 3))
    ops = _ops(rewrites(before, after).steps)
    upstream = before.replace('"c"]', '"c", "u"]')
    assert upstream != before
    check(upstream, ops, after.replace('"c", "n"]', '"c", "u", "n"]'))


@pytest.mark.wheel
def test_call_displays_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    batch = CASES[::4]  # every axis value still in it; the whole family runs through the engine above
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in batch], batch)
