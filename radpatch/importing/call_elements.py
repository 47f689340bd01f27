"""Elements added to or taken from a set, list or tuple display passed to a call, not bound to a
name (`parser.add_argument("--x", choices=["a", "b"])` gaining "c"; a registry call's list of
archs): said as add_element / remove_element with `call:` and `keyword:` (or `argument:`, its
position), with `occurrence:` where the scope has several calls to the callee passing that
argument, instead of a set_keyword or `replace` of the whole display; and a dict literal's entries
so passed, as set_item with the same keys.

The calls counted are the ones add_element counts (rewrite.ops.common.call_display): every call to
the callee, AST-compared, passing the argument, whatever it holds; so the element steps leave the
count as they found it, and the call is the same match in the installed scope and in the scope as
this entry's earlier steps leave it, or no step is said."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from radpatch.importing.changed_expressions import ItemChange, difference_path, item_changes
from radpatch.importing.element_changes import ElementChange, display_changes
from radpatch.importing.import_steps import Value
from radpatch.importing.scope_walk import expressions
from radpatch.importing.statements import Sources, loose_key, segment


@dataclass(frozen=True)
class CallDisplay:
    """The call (in the before-file) whose display argument changes, which argument, and how."""

    call: ast.Call
    keyword: str | None  # the keyword argument holding the display, or
    argument: int | None  # its position among the positional arguments, from 1
    changes: list[ElementChange]


def _argument_change(
    b: ast.AST, a: ast.AST, dicts: bool = False
) -> tuple[ast.Call, str | None, int | None, ast.AST, ast.AST] | None:
    """The call, its argument (keyword or position) and the argument's value before and after, when
    that value is all that differs between b and a. With `dicts`, the value is the innermost dict literal
    holding every difference (a value changed inside it: `{"a": 1}` -> `{"a": 2}`), not only one
    whose entries differ."""
    path = difference_path(b, a)
    ends = [len(path)]
    if dicts:
        ends = [k + 1 for k in range(len(path) - 1, 1, -1) if all(isinstance(n, ast.Dict) for n in path[k])]
    for end in ends:
        found = _argument_at(path[:end])
        if found is not None:
            return found
    return None


def _argument_at(
    path: list[tuple[ast.AST, ast.AST]],
) -> tuple[ast.Call, str | None, int | None, ast.AST, ast.AST] | None:
    if len(path) < 3:
        return None
    (db, da), (pb, _), (cb, _) = path[-1], path[-2], path[-3]
    if isinstance(pb, ast.keyword) and pb.arg is not None and isinstance(cb, ast.Call):
        return cb, pb.arg, None, db, da
    if isinstance(pb, ast.Call) and db in pb.args:
        at = pb.args.index(db)
        if any(isinstance(x, ast.Starred) for x in pb.args[:at]):
            return None
        return pb, None, at + 1, db, da
    return None


def call_display_change(b: ast.AST, a: ast.AST, src: Sources) -> CallDisplay | str | None:
    """When all that differs between b and a is the elements of one display passed to one call:
    the call, the argument and the changes; a string (why) where the elements changed as no
    add_element says (display_changes); else None."""
    found = _argument_change(b, a)
    if found is None:
        return None
    call, keyword, argument, db, da = found
    changes = display_changes(db, da, src.before, src.after)  # type: ignore[arg-type]
    if changes is None or isinstance(changes, str):
        return changes
    return CallDisplay(call, keyword, argument, changes)


def call_dict_change(b: ast.AST, a: ast.AST, src: Sources) -> tuple[CallDisplay, list[ItemChange]] | str | None:
    """The same for the entries of a dict literal passed to one call (set_item's changes, as
    changed_expressions.item_changes reads them in an assignment)."""
    found = _argument_change(b, a, dicts=True)
    if found is None or not isinstance(found[3], ast.Dict) or not isinstance(found[4], ast.Dict):
        return None
    call, keyword, argument, db, da = found
    stand_in = ast.Name("_")  # item_changes reads `NAME = {...}`: the call's dict stands as its value
    items = item_changes(ast.Assign([stand_in], db), ast.Assign([stand_in], da), src.before)  # type: ignore[arg-type]
    if items is None or isinstance(items, str):
        return items
    return CallDisplay(call, keyword, argument, []), items[1]


def passing(body: list[ast.stmt], change: CallDisplay) -> list[ast.Call]:
    """The calls in the scope to the callee passing the argument, in source order (as add_element
    counts them)."""
    callee = loose_key(change.call.func)
    out = []
    for e in expressions(body):
        if not isinstance(e, ast.Call) or loose_key(e.func) != callee:
            continue
        if change.keyword is not None:
            if any(k.arg == change.keyword for k in e.keywords):
                out.append(e)
            continue
        assert change.argument is not None
        n = change.argument
        if len(e.args) >= n and not any(isinstance(x, ast.Starred) for x in e.args[:n]):
            out.append(e)
    return out


def call_address(
    src: Sources, change: CallDisplay, now: list[ast.stmt], installed: list[ast.stmt] | None
) -> Sequence[tuple[str, Value]] | None:
    """The `call:`, `keyword:`/`argument:` and `occurrence:` keys that find the call: the same
    match among the calls of the installed scope and of the scope as it is now (`now`); None where
    they differ or the call is not found there."""
    callee = segment(src, change.call.func)
    if callee is None or installed is None:
        return None
    here = passing(now, change)
    if change.call not in here:
        return None
    i = here.index(change.call)
    spots = [(c.lineno, c.col_offset) for c in passing(installed, change)]
    if len(spots) != len(here) or (change.call.lineno, change.call.col_offset) not in spots:
        return None
    if spots.index((change.call.lineno, change.call.col_offset)) != i:
        return None
    keys: list[tuple[str, Value]] = [("call", callee)]
    keys.append(("keyword", change.keyword) if change.keyword is not None else ("argument", change.argument or 1))
    if len(here) > 1:
        keys.append(("occurrence", i + 1))
    return keys
