"""An element added to or taken from a set, list or tuple display (`__all__ = [..]` gaining a name,
the set of fields `compute_hash` ignores gaining one: pegaflow's vLLM patch; issue 20) imported as
a `replace` of the whole assignment (or a `set_constant` of the whole display): now one
`add_element` or `remove_element` per element, by its value, placed by the element before it
(`after:`), the first one (`before:`), or at the end. Upstream adding another element leaves the
rewrite applying.

Generated: display kind (list, set, tuple) x layout (one line; one element per line with and
without a trailing comma; with a comment on an element's line and one above the next) x scope
(module, class, function body) x which change (an element added first, in the middle, last, two
added together; each one taken away). As data, only add_element/remove_element steps (a wider
rewrite, with its note, where a comment on or right above a removed element could not be put back
by revert); the steps run by the engine give the bytes GNU patch gives for the diff and undo to
the installed bytes (check); and the batch through `radpatch import`, apply, `status --check` and
revert against GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.set_element import SetElement
from tests.lib.generated import sample
from tests.lib.importing import assert_cases_imported_as_gnu_patch
from tests.lib.rewrites import check

ELEMENTS = ('"a"', '"b"', '"c"')
NEW = ('"n"', '"m"')
KINDS = {"list": "[]", "set": "{}", "tuple": "()"}
LAYOUTS = ("line", "tall", "bare", "commented")
SCOPES = ("module", "class", "function")
# (what, index): add NEW[0] at index, add both NEW at index, or remove ELEMENTS[index]
CHANGES = [("add", 0), ("add", 1), ("add", 3), ("add2", 1), ("add2", 3), ("remove", 0), ("remove", 1), ("remove", 2)]


def display(kind: str, layout: str, elements: list[str], pad: str) -> str:
    opening, closing = KINDS[kind]
    if layout == "line":
        return opening + ", ".join(elements) + closing
    rows = []
    for n, e in enumerate(elements):
        if layout == "commented" and e == '"c"':
            rows.append(f"{pad}    # about c\n")
        comma = "" if layout == "bare" and n == len(elements) - 1 else ","
        note = "  # bee" if layout == "commented" and e == '"b"' else ""
        rows.append(f"{pad}    {e}{comma}{note}\n")
    return opening + "\n" + "".join(rows) + pad + closing


def module(kind: str, layout: str, scope: str, elements: list[str]) -> str:
    pad = "" if scope == "module" else "    "
    head = {"module": "", "class": "class K:\n    x = 0\n", "function": "def f():\n    x = 0\n"}[scope]
    tail = "    return T\n" if scope == "function" else ""
    return f"import os\n\n{head}{pad}T = {display(kind, layout, elements, pad)}\n{tail}\n\nY = 1\n"


def case(kind: str, layout: str, scope: str, change: tuple[str, int]) -> tuple[str, str]:
    what, at = change
    now = list(ELEMENTS)
    if what == "remove":
        new = [e for n, e in enumerate(now) if n != at]
    else:
        new = [*now[:at], *(NEW if what == "add2" else NEW[:1]), *now[at:]]
    return module(kind, layout, scope, now), module(kind, layout, scope, new)


CASES = sample(list(itertools.product(KINDS, LAYOUTS, SCOPES, CHANGES)))


def _ops(steps: tuple[object, ...]) -> tuple[SetElement, ...]:
    ops = []
    for s in steps:
        k = dict(s.keys)  # type: ignore[attr-defined]
        ops.append(
            SetElement(
                str(k["scope"]),
                str(k["name"]),
                str(k["element"]),
                after=None if "after" not in k else str(k["after"]),
                before=None if "before" not in k else str(k["before"]),
                remove=s.op == "remove_element",  # type: ignore[attr-defined]
            )
        )
    return tuple(ops)


@pytest.mark.parametrize(("kind", "layout", "scope", "change"), CASES)
def test_an_element_added_or_taken_away_is_its_own_rewrite(
    kind: str, layout: str, scope: str, change: tuple[str, int]
) -> None:
    before, after = case(kind, layout, scope, change)
    found = rewrites(before, after)
    if layout == "commented" and change in (("remove", 1), ("remove", 2)):
        # the comment on the element's line, or above it: revert could not put it back
        assert not {s.op for s in found.steps} & {"add_element", "remove_element"}, found.steps
        assert any("a removed element has a comment" in f for f in found.fallbacks), found.fallbacks
        return
    op = "remove_element" if change[0] == "remove" else "add_element"
    assert [s.op for s in found.steps] == [op] * (2 if change[0] == "add2" else 1), found.steps
    keys = [dict(s.keys) for s in found.steps]
    assert [k["element"] for k in keys] == (
        [ELEMENTS[change[1]]] if op == "remove_element" else list(NEW[: 2 if change[0] == "add2" else 1])
    ), keys
    assert {k["scope"] for k in keys} == {{"module": "<module>", "class": "K", "function": "f"}[scope]}
    check(before, _ops(found.steps), after)  # the bytes GNU patch gives for the diff, and back


def test_an_element_added_upstream_leaves_the_rewrite_applying() -> None:
    """The point of the narrow rewrite: the installed display has gained an element the patch's
    diff did not know of; the imported rewrite still applies and still undoes."""
    before, after = case("set", "tall", "function", ("add", 3))
    ops = _ops(rewrites(before, after).steps)
    upstream = before.replace('    "c",\n', '    "c",\n        "upstream",\n')
    assert upstream != before
    check(upstream, ops, after.replace('    "c",\n', '    "c",\n        "upstream",\n'))


@pytest.mark.wheel
def test_display_elements_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    # CASES[::3]: every axis value still in it; the whole family runs through the engine above
    assert_cases_imported_as_gnu_patch(tmp_path, CASES[::3], case)


@pytest.mark.parametrize(("kind", "at"), sample(list(itertools.product(KINDS, (0, 1, 3)))))
def test_the_comment_an_added_element_comes_with_is_noted(kind: str, at: int) -> None:
    """pegaflow's case: the patch adds `# why` above the new element. add_element writes the
    element (the code is patch's), not the comment; the import says so instead of dropping it
    silently."""
    before, after = case(kind, "tall", "function", ("add", at))
    commented = after.replace('        "n",\n', '        # why\n        "n",\n')
    assert commented != after
    found = rewrites(before, commented)
    assert [s.op for s in found.steps] == ["add_element"], found.steps
    assert any('the comment the patch writes with element "n" of T is not written' in f for f in found.fallbacks)
    check(before, _ops(found.steps), after)
    assert not rewrites(before, after).fallbacks
