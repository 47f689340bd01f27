"""One expression of a statement as the importer's rewrite chooser says it (importing.rewrites): the
smallest pair of expressions that holds a statement's whole difference, and the text a `replace`
of one expression is written with (its grouping parentheses kept, parentheses added where the
operators around it bind tighter; a string of several literals never a `find` by itself); and the
entries of a dict literal added or changed (`item_changes`, said as `set_item`)."""

from __future__ import annotations

import ast
import io
import keyword
import re
import textwrap
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from radpatch.importing.shapes import (
    header,
)
from radpatch.importing.statements import (
    Sources,
    indented,
    key,
    segment,
    start_line,
)


def concatenated(src: Sources, node: ast.expr) -> bool:
    """A string written as several literals (`"a" f"{b}"`): no expression `find` matches it whole
    (the rewrites see one f-string where libcst holds a concatenation), so the enclosing one is used."""
    if not isinstance(node, ast.JoinedStr) and not (
        isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
    ):
        return False
    text = segment(src, node)
    if text is None:
        return True
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(f"(\n{textwrap.dedent(text).strip()}\n)").readline))
    except (tokenize.TokenError, SyntaxError):
        return True
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_START", -1)}
    return sum(1 for t in tokens if t.type in kinds) > 1


def grouped(src: Sources, node: ast.expr) -> str | None:
    """The expression's text with the grouping parentheses the file puts around it (`(a and b)`),
    so the replacement keeps the patch's bytes; not a call's or a tuple's own parentheses."""
    text = segment(src, node)
    if text is None or node.end_lineno is None or node.end_col_offset is None:
        return text
    lines = src.lines_of(node)
    before = lines[node.lineno - 1].encode()[: node.col_offset].decode("utf-8", "surrogateescape").rstrip()
    after = lines[node.end_lineno - 1].encode()[node.end_col_offset :].decode("utf-8", "surrogateescape").lstrip()
    if before.endswith("(") and after.startswith(")"):
        ahead = before[:-1].rstrip()
        word = re.search(r"[A-Za-z_]\w*$", ahead)
        if (
            not ahead
            or (word is not None and keyword.iskeyword(word.group()))
            or not (ahead[-1].isalnum() or ahead[-1] in "_)]}'\"")
        ):
            return f"({text})"
    return text


def fitting(src: Sources, stmt: ast.stmt, old: ast.expr, new: str, target: ast.stmt) -> str | None:
    """`new` as it must be written to stand where `old` stands in `stmt` and give `target`: as is, or
    in parentheses where the operators around it bind tighter (`not (a and b)`); None if neither."""
    lines = [ln.encode() for ln in src.lines_of(stmt)]
    first, last = start_line(stmt), stmt.end_lineno or stmt.lineno
    if old.end_lineno is None or old.end_col_offset is None:
        return None
    start = lines[old.lineno - 1].decode("utf-8", "surrogateescape")
    indent = start[: len(start) - len(start.lstrip())]
    for text in (indented(new, indent), indented(f"({new})", indent)):
        head = b"\n".join(lines[first - 1 : old.lineno - 1] + [lines[old.lineno - 1][: old.col_offset]])
        tail = b"\n".join([lines[old.end_lineno - 1][old.end_col_offset :]] + lines[old.end_lineno : last])
        code = (head + text.encode() + tail).decode("utf-8", "surrogateescape")
        try:
            got = ast.parse(textwrap.dedent(code)).body
        except SyntaxError:
            continue
        if len(got) == 1 and key(header(got[0])) == key(header(target)):
            return new if text == indented(new, indent) else f"({new})"
    return None


def smallest_difference(b: ast.AST, a: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """The pairs of expressions that hold every difference between b and a, innermost first (a lone
    name or constant gives way to the expression around it: `y > 3`, not `3`). Empty when the
    difference is not inside one expression, or is a name being bound."""
    path = difference_path(b, a)
    out: list[tuple[ast.expr, ast.expr]] = []
    for at in range(len(path) - 1, -1, -1):
        eb, ea = path[at]
        if at and _subscript_elements(path[at - 1][0], eb):
            continue  # `g[a, b]`'s `a, b`: the subscript's elements, not one expression (libcst, `find`)
        if not (isinstance(eb, ast.expr) and isinstance(ea, ast.expr)):
            if isinstance(eb, ast.stmt):
                break
            continue  # an operator, keyword or argument list: the expression holding it
        if not (_loadable(eb) and _loadable(ea)):
            return []
        if isinstance(eb, (ast.JoinedStr, ast.FormattedValue)) or isinstance(ea, (ast.JoinedStr, ast.FormattedValue)):
            out = []  # inside an f-string only the whole f-string is an expression to libcst
        if not isinstance(eb, (ast.FormattedValue, ast.Slice, ast.Starred)) and not isinstance(
            ea, (ast.FormattedValue, ast.Slice, ast.Starred)
        ):
            out.append((eb, ea))
    if (
        len(out) > 1
        and isinstance(out[0][0], (ast.Name, ast.Constant))
        and isinstance(out[0][1], (ast.Name, ast.Constant))
    ):
        out = out[1:]
    return out


def _subscript_elements(outer: ast.AST, node: ast.AST) -> bool:
    """`node` is the tuple of a subscript's elements written without parentheses (`Literal["a", "b"]`,
    `x[1:2, 3]`): the rewrites hold it as the subscript's element list, so no `find` names it alone."""
    return isinstance(outer, ast.Subscript) and outer.slice is node and isinstance(node, ast.Tuple)


def _loadable(e: ast.expr) -> bool:
    ctx = getattr(e, "ctx", None)
    return ctx is None or isinstance(ctx, ast.Load)


def difference_path(b: ast.AST, a: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """From (b, a) down, the pairs of nodes on the one path holding all differences."""
    path = [(b, a)]
    while True:
        x, y = path[-1]
        if type(x) is not type(y):
            return path
        diffs: list[tuple[ast.AST, ast.AST]] = []
        for f in x._fields:
            vx, vy = getattr(x, f, None), getattr(y, f, None)
            if isinstance(vx, list) and isinstance(vy, list):
                if len(vx) != len(vy) or any(
                    p != q for p, q in zip(vx, vy) if not (isinstance(p, ast.AST) and isinstance(q, ast.AST))
                ):
                    return path  # a list of names (`case P(x=0)`'s attributes, `global a, b`) is compared as is
                diffs += [
                    (p, q)
                    for p, q in zip(vx, vy)
                    if isinstance(p, ast.AST) and isinstance(q, ast.AST) and key(p) != key(q)
                ]
            elif isinstance(vx, ast.AST) and isinstance(vy, ast.AST):
                if key(vx) != key(vy):
                    diffs.append((vx, vy))
            elif vx != vy:
                return path
        if len(diffs) != 1 or not all(isinstance(n, ast.AST) for n in diffs[0]):
            return path
        path.append(diffs[0])


@dataclass(frozen=True)
class ItemChange:
    """One entry of a dict literal, added (`old` None), changed, or removed (`new` None); an entry
    added in the middle of the literal, or removed from it, names the key of the entry it follows
    (`after`), one added or removed as its last items none."""

    key: ast.expr
    old: ast.expr | None
    new: ast.expr | None
    after: ast.expr | None = None
    before: ast.expr | None = None  # an entry added before the literal's first: the key it precedes


def item_changes(b: ast.stmt, a: ast.stmt, lines: Sequence[str] = ()) -> tuple[str, list[ItemChange]] | str | None:
    """When b and a bind one name to a dict literal and differ only in its items: the name and the
    entries added or changed (`set_item`), changed ones first. A string (why) when the difference is
    in the items but set_item cannot say it: an entry removed, entries reordered, one added before
    a first `**` item or right after one. None when they are not such assignments, or differ
    elsewhere. Entries added before the first say `before:` its key; an entry added in the middle
    (vLLM's alphabetical tables) names the key it follows, which may be another added entry: the
    steps run in the literal's order. `lines`, the before-file's, tell the comments a removed entry
    carries (which set_item could not put back on revert)."""
    if type(b) is not type(a) or not isinstance(b, (ast.Assign, ast.AnnAssign)):
        return None
    assert isinstance(a, (ast.Assign, ast.AnnAssign))
    targets_b = b.targets if isinstance(b, ast.Assign) else [b.target]
    targets_a = a.targets if isinstance(a, ast.Assign) else [a.target]
    if (
        len(targets_b) != 1
        or not isinstance(targets_b[0], ast.Name)
        or [key(t) for t in targets_b] != [key(t) for t in targets_a]
    ):
        return None
    if isinstance(b, ast.AnnAssign) and isinstance(a, ast.AnnAssign) and key(b.annotation) != key(a.annotation):
        return None
    db, da = b.value, a.value
    if not isinstance(db, ast.Dict) or not isinstance(da, ast.Dict):
        return None
    kb, ka = _entries(db), _entries(da)  # a `**other` item stands for itself, its key its expression
    if len(set(kb)) != len(kb) or len(set(ka)) != len(ka):
        return None  # a key written twice: the literal's items are not one entry per key
    was = dict(zip(kb, db.values))
    kept = [k for k in ka if k in was]
    if len(kept) < len(kb):
        return _removals(targets_b[0].id, db, da, kb, ka, lines)
    if kept != kb:
        return "its entries are reordered (set_item keeps their order)"
    if any(k is None and e not in was for k, e in zip(da.keys, ka)):
        return "a `**` item is added (set_item adds `key: value` entries only)"
    start = ka.index(kb[0]) if kb else 0  # entries before this one are new, the first says `before:` it
    if start and da.keys[start] is None:
        return "an entry is added before a `**` item (set_item places one before a key, or after one)"
    end = ka.index(kb[-1]) + 1 if kb else 0  # entries from here on are the literal's last items
    if any(da.keys[j - 1] is None for j in range(1, end) if ka[j] not in was):
        return "an entry is added right after a `**` item (set_item adds one after a key, or as the last item)"
    changed = [ItemChange(k, was[key(k)], v) for k, v in zip(da.keys, da.values) if k and key(k) in was]
    out = [c for c in changed if c.old is not None and c.new is not None and key(c.old) != key(c.new)]
    out += [
        ItemChange(k, None, v, da.keys[j - 1] if 0 < j < end else None, da.keys[start] if j == 0 and start else None)
        for j, (k, v) in enumerate(zip(da.keys, da.values))
        if k and key(k) not in was
    ]
    return (targets_b[0].id, out) if out else None


def _entries(d: ast.Dict) -> list[str]:
    return [key(k) if k is not None else "**" + key(v) for k, v in zip(d.keys, d.values)]


def _removals(
    name: str, db: ast.Dict, da: ast.Dict, kb: list[str], ka: list[str], lines: Sequence[str]
) -> tuple[str, list[ItemChange]] | str:
    """Entries removed (and others' values changed, none added or moved): one removal each, in the
    literal's order, each naming where it is as the steps before leave the literal: nothing for its
    last item, else `after:` the key before it, else `before:` the key after it."""
    gone = [j for j, k in enumerate(kb) if k not in ka]
    if [k for k in kb if k in ka] != ka:
        return "entries are removed and others added or reordered (set_item removes one only where nothing moves)"
    now = dict(zip(kb, db.values))
    out = [ItemChange(k, now[key(k)], v) for k, v in zip(da.keys, da.values) if k and key(now[key(k)]) != key(v)]
    left = list(range(len(kb)))  # the before-literal's items, as the removals so far leave them
    for j in gone:
        if db.keys[j] is None:
            return "a `**` item is removed (set_item removes `key: value` entries only)"
        at = left.index(j)
        above, below = left[at - 1] if at else None, left[at + 1] if at + 1 < len(left) else None
        if _commented(db, j, above, below, lines):
            return "a removed entry has a comment on or next to its lines (revert could not write it back)"
        after = before = None
        if below is not None:
            after = db.keys[above] if above is not None else None
            before = db.keys[below] if after is None else None
            if after is None and before is None:
                return "an entry is removed between `**` items (set_item names a key it follows or precedes)"
            if after is None and before is None:
                return "an entry is removed between `**` items (set_item names a key it follows or precedes)"
        out.append(ItemChange(db.keys[j], db.values[j], None, after, before))  # type: ignore[arg-type]
        left.remove(j)
    return name, out


def _commented(d: ast.Dict, j: int, prev: int | None, nxt: int | None, lines: Sequence[str]) -> bool:
    """Whether entry j of `d` (between items `prev` and `nxt`, as the removals before leave it) has a
    comment set_item's inverse would not put back where it was: on its own lines, on lines right
    above it, or (the literal's first) on lines right above the next item."""
    v = d.values[j]
    start = (d.values[prev].end_lineno or 0) + 1 if prev is not None else d.lineno + 1
    end = v.end_lineno or v.lineno
    if prev is None and nxt is not None:
        end = max(end, (d.keys[nxt] or d.values[nxt]).lineno - 1)
    for row in range(start, end + 1):
        if not 0 < row <= len(lines) or row == v.end_lineno == d.end_lineno:
            continue  # the literal's own last line: its comment is the statement's, not the entry's
        text = lines[row - 1]
        if "#" in (text[v.end_col_offset :] if row == v.end_lineno else text):
            return True
    return False
