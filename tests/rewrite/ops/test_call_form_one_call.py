"""Several call-form rewrites (add_element, remove_element, set_item with `call:`) in one entry on
one call picked by `occurrence:` or `within:`, each on its own argument or on the same one (elem43):
the runner follows the installed file's match to its place after the rewrites before it, and
refused a match on a line they changed ("occurrence N ... is changed by the rewrites before it"),
although a call-form edit leaves the call and its other arguments where they were, further along
that line. A place on a changed line is now followed character by character (rewrite.line_map).

Generated: the call's layout (one line, one argument per line) x how it is picked (`occurrence:` of
2 or 3 copies, `within:` a block) x the rewrites (two of: an element added to `choices=`, one taken
from it, one added to the second positional argument, an entry added to `opts=`; and all four) in
each order: applied, the module equals the one built from the installed call's parts with the
changes made (the other copies untouched); undone, the installed bytes; applied again, the same; and
the four through `radpatch apply` and `revert` on an installed file (the RECORD bytes back)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from radpatch.registry.model import Operation
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_element import SetElement
from radpatch.rewrite.ops.set_item import SetItem
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.overlaps import HEAD
from tests.lib.rewrites import check, refusal
from tests.lib.site import Site

# each change: its rewrite (given how the call is picked) and what it makes of the call's parts
CHANGES = ("add choice", "take choice", "add positional", "add opts entry")
PARTS = {"pos": ['"a"'], "choices": ['"a"', '"b"'], "opts": ['"j": 0']}
PICKS = {"occurrence 1 of 2": (2, 1), "occurrence 2 of 2": (2, 2), "occurrence 2 of 3": (3, 2), "within": (2, None)}
LAYOUTS = ("one line", "tall")


def _op(change: str, pick: dict[str, object]) -> Operation:
    at: dict[str, object] = {"call": "p.add", **pick}
    if change == "add choice":
        return SetElement("build", None, '"c"', keyword="choices", **at)  # type: ignore[arg-type]
    if change == "take choice":
        return SetElement("build", None, '"a"', keyword="choices", remove=True, before='"b"', **at)  # type: ignore[arg-type]
    if change == "add positional":
        return SetElement("build", None, '"n"', argument=2, **at)  # type: ignore[arg-type]
    return SetItem("build", None, '"k"', "1", keyword="opts", **at)  # type: ignore[arg-type]


def _changed(changes: tuple[str, ...]) -> dict[str, list[str]]:
    parts = {k: list(v) for k, v in PARTS.items()}
    for change in changes:
        if change == "add choice":
            parts["choices"].append('"c"')
        elif change == "take choice":
            parts["choices"].remove('"a"')
        elif change == "add positional":
            parts["pos"].append('"n"')
        else:
            parts["opts"].append('"k": 1')
    return parts


def _call(parts: dict[str, list[str]], layout: str, indent: str) -> str:
    args = ['"--x"', f"[{', '.join(parts['pos'])}]", f"choices=[{', '.join(parts['choices'])}]"]
    args.append(f"opts={{{', '.join(parts['opts'])}}}")
    if layout == "one line":
        return f"{indent}p.add({', '.join(args)})\n"
    return f"{indent}p.add(\n" + "".join(f"{indent}    {a},\n" for a in args) + f"{indent})\n"


def _module(layout: str, pick: str, picked: dict[str, list[str]]) -> str:
    """`build` with the copies of the call, the picked one made of `picked`'s parts."""
    copies, nth = PICKS[pick]
    body = ""
    for n in range(1, copies + 1):
        inside = nth is None and n == copies  # `within:`: the last copy, in an `if p:` block
        parts = picked if n == nth or inside else PARTS
        body += ("    if p:\n" if inside else "") + _call(parts, layout, "        " if inside else "    ")
    return f"def build(p):\n{body}    return p\n"


def _orders() -> list[tuple[str, ...]]:
    pairs = list(itertools.permutations(CHANGES, 2))
    return [*pairs, CHANGES, tuple(reversed(CHANGES))]


CASES = sample(list(itertools.product(LAYOUTS, PICKS, _orders())))


@pytest.mark.parametrize(("layout", "pick", "order"), CASES, ids=str)
def test_rewrites_of_one_picked_call_apply_and_undo_byte_for_byte(
    layout: str, pick: str, order: tuple[str, ...]
) -> None:
    nth = PICKS[pick][1]
    how: dict[str, object] = {"occurrence": nth} if nth is not None else {"within": "if p:"}
    before = _module(layout, pick, PARTS)
    after = _module(layout, pick, _changed(order))
    check(before, tuple(_op(c, how) for c in order), after)


KEYED = 'p.add("--x", choices=["a", "b"], k=1)'


@pytest.mark.parametrize(
    ("how", "first"), list(itertools.product(({"occurrence": 2}, {"within": "if p:"}), ("set_keyword", "add_element")))
)
def test_a_keyword_set_and_an_element_added_on_one_picked_call(how: dict[str, object], first: str) -> None:
    """set_keyword of one keyword and add_element to another's display, on one picked call, in
    either order: both apply on the installed file's copy and undo byte for byte."""
    inside = "within" in how
    last = f"    if p:\n        {KEYED}\n" if inside else f"    {KEYED}\n"
    before = f"def build(p):\n    {KEYED}\n{last}"
    changed = KEYED.replace('"b"]', '"b", "c"]').replace("k=1", "k=2")
    after = before[: before.rindex(KEYED)] + changed + "\n"
    keyword = SetKeyword("build", "p.add", "k", from_="1", to="2", **how)  # type: ignore[arg-type]
    element = SetElement("build", None, '"c"', call="p.add", keyword="choices", **how)  # type: ignore[arg-type]
    check(before, (keyword, element) if first == "set_keyword" else (element, keyword), after)


def test_an_element_of_a_call_a_replace_before_it_wrote_anew_is_still_refused() -> None:
    """A `replace` of the picked statement writes the call anew: the installed file's match is gone
    (even where the new statement's text keeps the display's characters), as before."""
    before = f"def build(p):\n    {KEYED}\n    {KEYED}\n"
    replace = Replace("build", KEYED, KEYED.replace("k=1", "k=3"), occurrence=2)
    element = SetElement("build", None, '"c"', call="p.add", keyword="choices", occurrence=2)
    assert "is changed by the rewrites before it" in refusal(before, replace, element)


@pytest.mark.parametrize(("layout", "pick"), list(itertools.product(LAYOUTS, ("occurrence 2 of 3", "within"))))
def test_apply_and_revert_an_entry_of_rewrites_of_one_picked_call(
    layout: str, pick: str, site: Site, radpatch: Any, write_registry: Any
) -> None:
    """Through `radpatch apply` and `revert` on an installed file: the entry's four rewrites of one
    picked call give the module built from its parts; revert gives the installed bytes back."""
    before = _module(layout, pick, PARTS)
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": before})
    nth = PICKS[pick][1]
    how = f"occurrence: {nth}" if nth is not None else "within: 'if p:'"
    rewrites = {
        "add choice": "add_element: {scope: build, call: p.add, keyword: choices, element: '\"c\"', %s}",
        "take choice": "remove_element: {scope: build, call: p.add, keyword: choices, element: '\"a\"', "
        "before: '\"b\"', %s}",
        "add positional": "add_element: {scope: build, call: p.add, argument: 2, element: '\"n\"', %s}",
        "add opts entry": "set_item: {scope: build, call: p.add, keyword: opts, key: '\"k\"', value: '1', %s}",
    }
    body = "".join(f"  - id: r{i}\n    {rewrites[c] % how}\n" for i, c in enumerate(CHANGES))
    reg = str(write_registry("calls", HEAD.format(supported=">=1.0,<2") + body))
    core = site.root / "toypkg/core.py"
    applied = radpatch("--registry", reg, "apply", "calls")
    assert applied.code == 0, applied.out + applied.err
    assert core.read_text() == _module(layout, pick, _changed(CHANGES))
    reverted = radpatch("--registry", reg, "revert", "calls")
    assert reverted.code == 0, reverted.out + reverted.err
    assert core.read_bytes() == before.encode()
