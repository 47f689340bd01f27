"""A set, list or tuple display's elements added and removed in its own layout (add_element,
remove_element). The display is laid out as a dict literal is (an opening bracket, items with
their commas, a closing one), so its elements are placed by dict_items' own layout code: each
element stands as the key of a dict item while it runs, and goes back to an element after.
Elements are found by value (AST-compared); where one goes, `after:`/`before:` say."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from radpatch.rewrite.matching import Ambiguous, MatchFailure, NotFound, Shown, code_of
from radpatch.rewrite.ops.common.dict_items import added, first, inserted, removed
from radpatch.rewrite.patterns import expr_key

Display = cst.Set | cst.List | cst.Tuple
DISPLAYS = (cst.Set, cst.List, cst.Tuple)
_STAND_IN = "_"  # the value of the dict item an element stands as


class ElementOp(Protocol):
    @property
    def element(self) -> str: ...

    @property
    def after(self) -> str | None: ...

    @property
    def before(self) -> str | None: ...


def _as_dict(d: Display) -> cst.Dict:
    items: list[cst.BaseDictElement] = []
    for e in d.elements:
        if isinstance(e, cst.StarredElement):
            items.append(
                cst.StarredDictElement(e.value, comma=e.comma, whitespace_before_value=e.whitespace_before_value)
            )
        else:
            items.append(cst.DictElement(e.value, cst.Name(_STAND_IN), comma=e.comma))
    if isinstance(d, cst.List):
        opened, closed = d.lbracket.whitespace_after, d.rbracket.whitespace_before
    elif isinstance(d, cst.Set):
        opened, closed = d.lbrace.whitespace_after, d.rbrace.whitespace_before
    else:
        opened = d.lpar[0].whitespace_after if d.lpar else cst.SimpleWhitespace("")
        closed = d.rpar[-1].whitespace_before if d.rpar else cst.SimpleWhitespace("")
    return cst.Dict(items, lbrace=cst.LeftCurlyBrace(opened), rbrace=cst.RightCurlyBrace(closed))


def _back(d: Display, as_dict: cst.Dict) -> Display:
    elements: list[cst.BaseElement] = []
    for item in as_dict.elements:
        if isinstance(item, cst.StarredDictElement):
            elements.append(
                cst.StarredElement(item.value, comma=item.comma, whitespace_before_value=item.whitespace_before_value)
            )
        else:
            assert isinstance(item, cst.DictElement)
            elements.append(cst.Element(item.key, comma=item.comma))
    opened, closed = as_dict.lbrace.whitespace_after, as_dict.rbrace.whitespace_before
    if isinstance(d, cst.List):
        return d.with_changes(
            elements=elements,
            lbracket=d.lbracket.with_changes(whitespace_after=opened),
            rbracket=d.rbracket.with_changes(whitespace_before=closed),
        )
    if isinstance(d, cst.Set):
        return d.with_changes(
            elements=elements,
            lbrace=d.lbrace.with_changes(whitespace_after=opened),
            rbrace=d.rbrace.with_changes(whitespace_before=closed),
        )
    if len(elements) == 1 and not isinstance(elements[0].comma, cst.Comma):  # `(a)` is no tuple: `(a,)`
        elements = [elements[0].with_changes(comma=cst.Comma())]
    elif len(d.elements) == 1 and len(elements) > 1 and _bare_comma(elements[-1]):
        elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)  # `(a,)` gains one: `(a, b)`
    if not d.lpar:
        return d.with_changes(elements=elements)
    lpar = (
        [*d.lpar[:-1], d.lpar[-1].with_changes(whitespace_after=opened)]
        if len(d.lpar) > 1
        else [d.lpar[0].with_changes(whitespace_after=opened)]
    )
    rpar = [d.rpar[0].with_changes(whitespace_before=closed), *d.rpar[1:]]
    return d.with_changes(elements=elements, lpar=lpar, rpar=rpar)


def elements_of(module: cst.Module, d: Display, element: str) -> list[int]:
    """The indexes of the display's elements equal to `element` (AST-compared)."""
    want = expr_key(element)
    return [
        i for i, e in enumerate(d.elements) if isinstance(e, cst.Element) and expr_key(code_of(module, e.value)) == want
    ]


def shown(module: cst.Module, d: Display, i: int) -> str:
    return code_of(module, d.elements[i].value).strip()


def placed(module: cst.Module, d: Display, op: ElementOp, what: str | Shown) -> Display:
    """`d` with `op.element` where `after:` or `before:` says, else as its last element."""
    as_dict, element = _as_dict(d), op.element
    for said, at in (("before", op.before), ("after", op.after)):
        if at is None:
            continue
        hits = elements_of(module, d, at)
        if len(hits) != 1:
            raise (NotFound if not hits else Ambiguous)(
                f"{what} has {'no element' if not hits else 'more than one element'} {at} (`{said}:` of the new "
                f"element {element})",
                f"fix `{said}:` to an element the display has, or leave it out to add the element as the last one",
            )
        if said == "after":
            return _back(d, inserted(as_dict, element, _STAND_IN, hits[0]))
        if hits[0]:
            return _back(d, inserted(as_dict, element, _STAND_IN, hits[0] - 1))
        return _back(d, first(as_dict, element, _STAND_IN))
    return _back(d, added(as_dict, element, _STAND_IN))


def without(d: Display, i: int) -> Display:
    """`d` without its i-th element: the inverse of `placed`."""
    return _back(d, removed(_as_dict(d), i))


def refuse_elsewhere(module: cst.Module, d: Display, op: ElementOp, i: int, what: str | Shown) -> None:
    """An element taken away must sit where its inverse puts it back: right after `after:`, right
    before `before:`, else as the display's last element."""
    n = len(d.elements)
    if op.after is not None:
        ok = i > 0 and elements_of(module, d, op.after) == [i - 1]
    elif op.before is not None:
        ok = i + 1 < n and elements_of(module, d, op.before) == [i + 1]
    else:
        ok = i == n - 1
    if ok:
        return
    prev = shown(module, d, i - 1) if i and isinstance(d.elements[i - 1], cst.Element) else None
    then = shown(module, d, i + 1) if i + 1 < n and isinstance(d.elements[i + 1], cst.Element) else None
    fix = (
        f"write `after: {prev}`, the element it follows"
        if prev is not None
        else f"write `before: {then}`, the element it precedes"
        if then is not None
        else "change the display with a `replace` rewrite"
    )
    said = f"after {op.after}" if op.after else f"before {op.before}" if op.before else "the display's last element"
    raise MatchFailure(
        f"{what}: the element {op.element} is not {said}: undoing the rewrite would put it back elsewhere", fix
    )


def _bare_comma(e: cst.BaseElement) -> bool:
    """The element ends in a comma right before the closing parenthesis: `(a,)`'s."""
    comma = e.comma
    ws = comma.whitespace_after if isinstance(comma, cst.Comma) else None
    return isinstance(ws, cst.SimpleWhitespace) and ws.value == ""
