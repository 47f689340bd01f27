"""Where the importer counts a call as apply does: `occurrence:` among the matches, discounted by the
entry's earlier set_keyword steps of the same match (as rewrite.runner counts), and a call's number
among every call to its callee (`call_occurrence:`, for a keyword taken from one call while another
passes none, or added to one while another passes it with that value), counted alike in the
installed scope and in the scope as the earlier steps leave it."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.scope_walk import expressions
from radpatch.importing.statements import loose_key

if TYPE_CHECKING:
    from radpatch.importing.keywords import KeywordToggle


def call_number(
    body: list[ast.stmt], installed: list[ast.stmt], change: KeywordToggle, at: tuple[int, int]
) -> int | None:
    """The call's number (from 1) among every call to the callee in the scope as the earlier steps
    leave it, where the installed scope counts it alike (the call at `at` there); else None."""
    callee = loose_key(change.call.func)
    now = [e for e in expressions(body) if isinstance(e, ast.Call) and loose_key(e.func) == callee]
    was = [
        (e.lineno, e.col_offset)
        for e in expressions(installed)
        if isinstance(e, ast.Call) and loose_key(e.func) == callee
    ]
    k = next((j for j, e in enumerate(now) if e is change.call), None)
    return k + 1 if k is not None and at in was and was.index(at) == k else None


def counted_alike(installed: int, now: int, earlier: Sequence[ImportStep], said: Mapping[str, Value | None]) -> bool:
    """Whether apply counts `occurrence:` as the importer does: the call is match `installed` (from 0)
    of the installed scope and `now` of the scope as this entry's earlier steps leave it, and apply
    discounts only the matches taken by earlier set_keyword steps of the same scope, call, keyword
    and `from:` (rewrite.runner); a match another kind of step took (a `replace` of a call it could
    not say as set_keyword) leaves the counts apart, and apply refuses the entry."""
    same = sum(
        1
        for s in earlier
        if s.op == "set_keyword" and s.get("call_occurrence") is None and all(s.get(k) == v for k, v in said.items())
    )
    return installed - same == now
