"""Append an element to a comma-separated list (parameters, call arguments) and take it back,
keeping every original byte: the inverse of `append` restores the list exactly; `insert` and
`remove` do the same at any index (a keyword argument put before `**kwargs` or after another).

Layouts handled: `f(a)`, `f(a, b)`, one element per line with or without a trailing comma,
and a comment after an element's comma (it stays with that element).
"""

from __future__ import annotations

from typing import TypeVar

import libcst as cst

Element = cst.Param | cst.Arg
E = TypeVar("E", cst.Param, cst.Arg)
_WS_AFTER = {cst.Param: "whitespace_after_param", cst.Arg: "whitespace_after_arg"}


def _after(el: Element) -> cst.BaseParenthesizableWhitespace:
    return getattr(el, _WS_AFTER[type(el)])  # type: ignore[no-any-return]


def _plain(ws: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """The same line break without the comment or blank lines it may carry."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
    return ws


def separator(elements: list[E], opening_gap: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """How this list separates its elements: like its first two, else like the opening gap."""
    if len(elements) >= 2 and isinstance(elements[-2].comma, cst.Comma):
        return _plain(elements[-2].comma.whitespace_after)
    return _plain(opening_gap) if isinstance(opening_gap, cst.ParenthesizedWhitespace) else cst.SimpleWhitespace(" ")


def append(elements: list[E], new: E, sep: cst.BaseParenthesizableWhitespace) -> list[E]:
    if not elements:
        return [new]
    prev = elements[-1]
    attr = _WS_AFTER[type(prev)]
    if not isinstance(prev.comma, cst.Comma):
        # `a)` -> `a, new)`: new takes a's trailing whitespace, a gets a separator comma.
        new = new.with_changes(**{attr: _after(prev)})
        prev = prev.with_changes(comma=cst.Comma(whitespace_after=sep), **{attr: cst.SimpleWhitespace("")})
        return _with_last(elements[:-1], prev, new)
    orig = prev.comma
    ws = orig.whitespace_after
    if isinstance(ws, cst.ParenthesizedWhitespace) and isinstance(sep, cst.ParenthesizedWhitespace):
        # `a,  # c\n)` -> `a,  # c\n    new,\n)`: the comment stays on a's line.
        prev = prev.with_changes(
            comma=orig.with_changes(
                whitespace_after=sep.with_changes(first_line=ws.first_line, empty_lines=ws.empty_lines)
            )
        )
        new = new.with_changes(comma=orig.with_changes(whitespace_after=_plain(ws)))
    else:
        prev = prev.with_changes(comma=orig.with_changes(whitespace_after=sep))
        new = new.with_changes(comma=orig)
    return _with_last(elements[:-1], prev, new)


def pop(elements: list[E]) -> list[E]:
    """Exact inverse of `append`: drop the last element, give the previous one its layout back."""
    rest, last = elements[:-1], elements[-1]
    if not rest:
        return []
    prev = rest[-1]
    attr = _WS_AFTER[type(prev)]
    if not isinstance(last.comma, cst.Comma):
        prev = prev.with_changes(comma=cst.MaybeSentinel.DEFAULT, **{attr: _after(last)})
        return _with_last(rest[:-1], prev)
    lc, pc = last.comma, prev.comma
    assert isinstance(pc, cst.Comma)
    lw, pw = lc.whitespace_after, pc.whitespace_after
    if isinstance(lw, cst.ParenthesizedWhitespace) and isinstance(pw, cst.ParenthesizedWhitespace):
        restored = lc.with_changes(
            whitespace_before=pc.whitespace_before,
            whitespace_after=lw.with_changes(first_line=pw.first_line, empty_lines=pw.empty_lines),
        )
    else:
        restored = lc.with_changes(whitespace_before=pc.whitespace_before)
    return _with_last(rest[:-1], prev.with_changes(comma=restored))


def insert(elements: list[E], i: int, new: E, opening_gap: cst.BaseParenthesizableWhitespace) -> list[E]:
    """`new` put at index i, in the list's layout; `remove(result, i)` gives `elements` back byte
    for byte. Between two elements it takes the layout between them: the one before keeps the
    comment on its line, the blank lines and comments before the one after stay before that one."""
    if i >= len(elements):
        return append(elements, new, separator(elements, opening_gap))
    if i == 0:
        gap = _plain(opening_gap) if isinstance(opening_gap, cst.ParenthesizedWhitespace) else cst.SimpleWhitespace(" ")
        return _with_last([new.with_changes(comma=cst.Comma(whitespace_after=gap))], *elements)
    prev = elements[i - 1]
    assert isinstance(prev.comma, cst.Comma)  # an element followed by another
    ws = prev.comma.whitespace_after
    mine: cst.BaseParenthesizableWhitespace = ws
    theirs: cst.BaseParenthesizableWhitespace = ws
    if isinstance(ws, cst.ParenthesizedWhitespace):
        mine = ws.with_changes(empty_lines=())
        theirs = ws.with_changes(first_line=cst.TrailingWhitespace())
    new = new.with_changes(comma=prev.comma.with_changes(whitespace_after=theirs))
    prev = prev.with_changes(comma=prev.comma.with_changes(whitespace_after=mine))
    return _with_last(elements[: i - 1], prev, new, *elements[i:])


def remove(elements: list[E], i: int) -> list[E]:
    """The list without its i-th element: the exact inverse of `insert` at i."""
    if i == len(elements) - 1:
        return pop(elements)
    if i == 0:
        return list(elements[1:])
    prev = elements[i - 1]
    pc, gc = prev.comma, elements[i].comma
    assert isinstance(pc, cst.Comma) and isinstance(gc, cst.Comma)
    kept = prev.with_changes(comma=pc.with_changes(whitespace_after=_joined(pc.whitespace_after, gc.whitespace_after)))
    return _with_last(elements[: i - 1], kept, *elements[i + 1 :])


def _joined(
    ws: cst.BaseParenthesizableWhitespace, next_ws: cst.BaseParenthesizableWhitespace
) -> cst.BaseParenthesizableWhitespace:
    """`ws` with the blank lines and comments `next_ws` had before the element after it."""
    if isinstance(ws, cst.ParenthesizedWhitespace) and isinstance(next_ws, cst.ParenthesizedWhitespace):
        return ws.with_changes(empty_lines=(*ws.empty_lines, *next_ws.empty_lines))
    return ws


def _with_last(head: list[E], *tail: E) -> list[E]:
    out = list(head)
    out.extend(tail)
    return out
