"""A dict literal's items added and removed in its own layout (set_item): the new entry as the
last item (`added`), right after an item (`inserted`), as the first (`first`), and an item taken
out (`removed`, the inverse of each: the comments before the next item stay before it); where
`after:`/`before:` put an entry (`placed`) and whether a removed one sits there (`refuse_elsewhere`)."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from radpatch.registry.code import expression_text
from radpatch.rewrite.matching import Ambiguous, MatchFailure, NotFound, Shown, code_of
from radpatch.rewrite.merge import enclosed
from radpatch.rewrite.patterns import expr_key


class ItemOp(Protocol):
    @property
    def key(self) -> str: ...

    @property
    def after(self) -> str | None: ...

    @property
    def before(self) -> str | None: ...


def _bare(ws: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """The whitespace that starts an item's line, without the comments of the line it ends."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return ws


def _separator(d: cst.Dict) -> cst.BaseParenthesizableWhitespace:
    """What goes between two items of the literal, as its own items show it."""
    if len(d.elements) >= 2 and isinstance(d.elements[-2].comma, cst.Comma):
        return _bare(d.elements[-2].comma.whitespace_after)
    if isinstance(d.lbrace.whitespace_after, cst.ParenthesizedWhitespace):
        return _bare(d.lbrace.whitespace_after)
    return cst.SimpleWhitespace(" ")


def added(d: cst.Dict, key_: str, value_: str) -> cst.Dict:
    key = cst.parse_expression(expression_text(key_))
    value = enclosed(cst.parse_expression(expression_text(value_)))
    if not d.elements:
        return d.with_changes(elements=[cst.DictElement(key, value)])
    last = d.elements[-1]
    sep, close = _separator(d), d.rbrace.whitespace_before
    after: cst.BaseParenthesizableWhitespace
    if isinstance(sep, cst.ParenthesizedWhitespace) and isinstance(close, cst.ParenthesizedWhitespace):
        # one item per line: the last item keeps its line's comments, the new one ends where it ended
        after = sep.with_changes(first_line=close.first_line, empty_lines=close.empty_lines)
        comma = last.comma if isinstance(last.comma, cst.Comma) else cst.Comma()
        rbrace = d.rbrace.with_changes(whitespace_before=_bare(close))
    else:
        after, comma, rbrace = sep, cst.Comma(), d.rbrace
    new = cst.DictElement(key, value, comma=last.comma)
    last = last.with_changes(comma=comma.with_changes(whitespace_after=after))
    return d.with_changes(elements=[*d.elements[:-1], last, new], rbrace=rbrace)


def inserted(d: cst.Dict, key_: str, value_: str, i: int) -> cst.Dict:
    """`d` with the new entry right after its i-th item, in the layout between that item and the
    next: the i-th keeps the comment on its line, the comments before the next item stay before it."""
    if i == len(d.elements) - 1:
        return added(d, key_, value_)
    prev = d.elements[i]
    assert isinstance(prev.comma, cst.Comma)  # an item followed by another
    key = cst.parse_expression(expression_text(key_))
    value = enclosed(cst.parse_expression(expression_text(value_)))
    ws = prev.comma.whitespace_after
    mine: cst.BaseParenthesizableWhitespace
    new_ws: cst.BaseParenthesizableWhitespace
    if isinstance(ws, cst.ParenthesizedWhitespace):
        mine = ws.with_changes(empty_lines=[])
        new_ws = ws.with_changes(first_line=cst.TrailingWhitespace())
    else:
        mine = new_ws = ws
    new = cst.DictElement(key, value, comma=prev.comma.with_changes(whitespace_after=new_ws))
    prev = prev.with_changes(comma=prev.comma.with_changes(whitespace_after=mine))
    return d.with_changes(elements=[*d.elements[:i], prev, new, *d.elements[i + 1 :]])


def first(d: cst.Dict, key_: str, value_: str) -> cst.Dict:
    """`d` with the new entry as its first item, laid out as the items are: on a line of its own
    where they are one per line; `removed(result, 0)` gives `d` back."""
    key = cst.parse_expression(expression_text(key_))
    value = enclosed(cst.parse_expression(expression_text(value_)))
    gap = d.lbrace.whitespace_after
    ws = (
        gap.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
        if isinstance(gap, cst.ParenthesizedWhitespace)
        else cst.SimpleWhitespace(" ")
    )
    return d.with_changes(elements=[cst.DictElement(key, value, comma=cst.Comma(whitespace_after=ws)), *d.elements])


def removed(d: cst.Dict, i: int) -> cst.Dict:
    """`d` without its i-th item: the inverse of _added for the last one, of _inserted for one in
    the middle (the comments before the item after it stay before that one)."""
    if 0 < i < len(d.elements) - 1:
        prev, gone = d.elements[i - 1], d.elements[i]
        assert isinstance(prev.comma, cst.Comma) and isinstance(gone.comma, cst.Comma)
        ws, next_ws = prev.comma.whitespace_after, gone.comma.whitespace_after
        if isinstance(ws, cst.ParenthesizedWhitespace) and isinstance(next_ws, cst.ParenthesizedWhitespace):
            ws = ws.with_changes(empty_lines=[*ws.empty_lines, *next_ws.empty_lines])
        prev = prev.with_changes(comma=prev.comma.with_changes(whitespace_after=ws))
        return d.with_changes(elements=[*d.elements[: i - 1], prev, *d.elements[i + 1 :]])
    if i == 0 and len(d.elements) > 1:  # the comment lines above the next item stay above it
        ws, sep = d.lbrace.whitespace_after, d.elements[0].comma
        if isinstance(sep, cst.Comma) and isinstance(ws, cst.ParenthesizedWhitespace):
            after = sep.whitespace_after
            lines = after.empty_lines if isinstance(after, cst.ParenthesizedWhitespace) else ()
            lbrace = d.lbrace.with_changes(whitespace_after=ws.with_changes(empty_lines=[*ws.empty_lines, *lines]))
            return d.with_changes(elements=d.elements[1:], lbrace=lbrace)
    if i < len(d.elements) - 1 or i == 0:
        return d.with_changes(elements=[*d.elements[:i], *d.elements[i + 1 :]])
    prev, gone = d.elements[i - 1], d.elements[i]
    assert isinstance(prev.comma, cst.Comma)
    ws, close = prev.comma.whitespace_after, d.rbrace.whitespace_before
    rbrace = d.rbrace
    if isinstance(ws, cst.ParenthesizedWhitespace) and isinstance(close, cst.ParenthesizedWhitespace):
        rbrace = rbrace.with_changes(
            whitespace_before=close.with_changes(
                first_line=ws.first_line, empty_lines=[*ws.empty_lines, *close.empty_lines]
            )
        )
        comma = (
            gone.comma.with_changes(whitespace_before=prev.comma.whitespace_before)
            if isinstance(gone.comma, cst.Comma)
            else gone.comma
        )
    else:
        comma = gone.comma
    return d.with_changes(elements=[*d.elements[: i - 1], prev.with_changes(comma=comma)], rbrace=rbrace)


def items_of(module: cst.Module, d: cst.Dict, key: str) -> list[int]:
    want = expr_key(key)
    return [
        i
        for i, e in enumerate(d.elements)
        if isinstance(e, cst.DictElement) and expr_key(code_of(module, e.key)) == want
    ]


def placed(module: cst.Module, d: cst.Dict, op: ItemOp, value: str, what: str | Shown) -> cst.Dict:
    """`d` with the entry `op.key: value` where `after:` or `before:` says, else as its last item."""
    if op.before is not None:
        follows = items_of(module, d, op.before)
        hint = "fix `before:` to a key the literal has, or leave it out to add the entry as the last item"
        if len(follows) != 1:
            raise (NotFound if not follows else Ambiguous)(
                f"{what} has {'no key' if not follows else 'more than one key'} {op.before} (`before:` of the "
                f"new key {op.key})",
                hint,
            )
        if follows[0]:
            return inserted(d, op.key, value, follows[0] - 1)
        return first(d, op.key, value)
    if op.after is None:
        return added(d, op.key, value)
    before = items_of(module, d, op.after)
    hint = "fix `after:` to a key the literal has, or leave it out to add the entry as the last item"
    if not before:
        raise NotFound(f"{what} has no key {op.after} (`after:` of the new key {op.key})", hint)
    if len(before) > 1:
        raise Ambiguous(f"{what} writes the key {op.after} (`after:`) {len(before)} times", hint)
    return inserted(d, op.key, value, before[0])


def refuse_elsewhere(module: cst.Module, d: cst.Dict, op: ItemOp, i: int, what: str | Shown) -> None:
    """An entry taken away must sit where its inverse puts it back: right after `after:`, right before
    `before:`, else as the literal's last item."""
    keys = [code_of(module, e.key).strip() if isinstance(e, cst.DictElement) else None for e in d.elements]
    if op.after is not None:
        ok = i > 0 and items_of(module, d, op.after) == [i - 1]
    elif op.before is not None:
        ok = i + 1 < len(keys) and items_of(module, d, op.before) == [i + 1]
    else:
        ok = i == len(keys) - 1
    if ok:
        return
    prev = keys[i - 1] if i else None
    then = keys[i + 1] if i + 1 < len(keys) else None
    fix = (
        f"write `after: {prev}`, the key of the entry it follows"
        if prev is not None
        else f"write `before: {then}`, the key of the entry it precedes"
        if then is not None
        else "change the dict with a `replace` rewrite"
    )
    said = f"after {op.after}" if op.after else f"before {op.before}" if op.before else "the literal's last item"
    raise MatchFailure(
        f"{what}: the entry {op.key} is not {said}: undoing the rewrite would put it back elsewhere", fix
    )
