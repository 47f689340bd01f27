"""How two rewrites' touches meet (prove.overlaps.pairs): the same node, one inside the other's, the same
anchor, inside the other's span of statements, stacked, or copies of one `find` that may be the same;
read from the registry text alone (each operation's `touches()`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from enum import Enum

from radpatch.prove.overlaps import call_parts, call_written
from radpatch.registry.touch import BINDS, PLACE, Touch

_PICKS = "which copy `occurrence:`/`within:` picks depends on the file"


class Meet(Enum):
    """How two rewrites meet: what apply and `list` decide by (never by the words of `what`)."""

    BODY = "body"  # one changes a function's body, the other code inside it
    PART = "part"  # one changes a node inside the statement or expression the other's `find` takes whole
    COPIES = "copies"  # both pick copies of one `find`, and may pick the same one
    STACKS = "stacks"  # one's `find` is in the code the other writes: a series, the writer first
    WRITTEN = "written"  # a call-form rewrite may pick a call the other writes: the writer first (call_written)
    DISPLAY = "display"  # one's `find` is a display whose elements the other may change (call_written)
    MAY_NEST = "may nest"  # one's `find` is inside the other's, and which copy each picks depends on the file
    NESTED = "nested"  # one's `find` is inside the other's (or the same code, written apart)
    ANCHOR = "anchor"  # both insert at the same anchor
    GAP = "gap"  # both insert at one place, their anchors apart: the file shows it (prove.overlaps.gaps)
    BINDS = "binds"  # both bind the same new module-level name, to different things
    NODE = "node"  # both change (or one changes and one anchors at) the same node
    WHOLE = "whole"  # one replaces or deletes a whole definition, the other changes code in it (or next to it)
    UNDECLARED = "undeclared"  # an operation that does not say what it changes (Operation.touches)
    ORDERS = "orders"  # the two entries, run whole on the file, write different code by order (entry_orders)


@dataclass(frozen=True)
class Meeting:
    kind: Meet
    what: str  # in words, for the user


class Copies(Enum):
    """Which copies two rewrites with the same `find` in one scope pick (`_copies`)."""

    SAME = "same"  # the same copy (or every copy): they meet as two rewrites of one node
    APART = "apart"  # different copies that no order of the two can make the same
    MAY = "may"  # the same copy, or not, depending on the file or the order they run in


@dataclass(frozen=True)
class Picks:
    copies: Copies
    why: str = ""  # for MAY: why they may pick the same copy, in words


def meet(a: Touch, b: Touch) -> Meeting | None:
    """What the two touches share (how, and in words), or None."""
    if is_binding(a) or is_binding(b):  # a new name meets only another binding of it (its other touches say the rest)
        new, other = (a, b) if is_binding(a) else (b, a)
        name = new.key.removeprefix(BINDS)
        if not is_binding(other):  # a set_constant of it, or module-level code that binds it (a def, `x = ...`)
            if binds_name(other, name):
                return Meeting(Meet.BINDS, f"bind the same module-level name `{name}`")
            return None
        if a.key != b.key or a.writes == b.writes:
            return None  # another name, or the same import twice (one line, held by both: they commute)
        name = a.key.removeprefix(BINDS)
        return Meeting(Meet.BINDS, f"bind the same module-level name `{name}`")
    if a.role == "any" or b.role == "any":  # it did not say what it changes: it may change anything of the module
        undeclared = a if a.role == "any" else b
        return Meeting(
            Meet.UNDECLARED,
            f"may change the same code (the `{undeclared.key}` operation does not say what it changes)",
        )
    for whole, other in ((a, b), (b, a)):
        for name in whole.defines:
            short = name.rsplit(".", 1)[-1]
            beside = other.key in (f"definitions before {short}", f"definitions after {short}")
            if other.scope == name or other.scope.startswith(name + ".") or (beside and whole.scope == other.scope):
                if whole.writes and other.code and other.code in whole.writes:
                    return Meeting(
                        Meet.STACKS,
                        f"change {name} (the second's `find` is in the definition the first writes in its place)",
                    )
                return Meeting(
                    Meet.WHOLE, f"change {name} (one replaces or deletes the definition whole, the other code of it)"
                )
    if a.role == "body" or b.role == "body":
        body, other = (a, b) if a.role == "body" else (b, a)
        if other.role != "body" and other.scope == body.scope and other.beside_body:
            return None  # the function's decorators or signature: not its body, and the two commute
        if other.scope == body.scope or other.scope.startswith(body.scope + "."):
            return Meeting(Meet.BODY, f"change the body of {body.scope}()")
        return None
    if a.scope != b.scope:
        return None
    for whole, part in ((a, b), (b, a)):
        keyword = call_parts.keyword_meeting(part, whole)  # a call's literal in the keyword a set_keyword changes
        if keyword or whole.find and part.part and (holds(whole.find, part.part) or call_parts.holds(whole.find, part)):
            where = part_words(whole) if keyword else "other's `find`"
            inside = f"the {part_words(part)} is inside the {where}"
            if not keyword and (call_parts.picked(whole) or call_parts.picked(part)):  # the file says which
                return Meeting(Meet.MAY_NEST, f"may change the same code in {a.scope} ({inside}, and {_PICKS})")
            return Meeting(Meet.PART, f"change the same code ({inside}) in {a.scope}")
        # "defaults": inside one of the function's defaults (set_keyword's `header:`), any `default of P`
        lies = part.inside == whole.key or part.inside == "defaults" and whole.key.startswith("default of ")
        if part.inside and lies and part.role == whole.role == "node":
            inside = f"the {part_words(part)} is inside the {part_words(whole) if whole.part else whole.key}"
            return Meeting(Meet.PART, f"change the same code ({inside}) in {a.scope}")
    written = call_written.meeting(a, b)  # a call it may pick in code the other writes, or the display replaced
    if written is not None:
        return written
    if call_parts.same_call(a, b) is not None:  # the same argument of calls to one callee, picked otherwise
        return call_parts.as_one_call(a, b, meet)
    if a.key.startswith(PLACE) or b.key.startswith(PLACE):
        return _places(a, b)
    if a.same and a.same == b.same:
        picks = _copies(a, b)
        if picks.copies is Copies.APART:
            return None  # two copies of one statement that no order of the two can make the same
        if picks.copies is Copies.MAY:
            return Meeting(Meet.COPIES, f"pick copies of the same code in {a.scope} ({picks.why})")
    for first, then in ((a, b), (b, a)):
        if first.writes and then.code and then.code in first.writes:
            return Meeting(
                Meet.STACKS, f"change the same code in {a.scope} (the second's `find` is in the code the first writes)"
            )
    if a.key != b.key:
        # code changed by one and found by the other, written apart: the same statement (`x=f( a )` and
        # `x = f(a)` are one tree), or one inside the other (an expression of the statement replaced)
        both_anchor = a.role == "anchor" and b.role == "anchor"
        if both_anchor:  # one goes between two statements the other's `find` matches (or inside one)
            nested = _inside_span(a, b) or _inside_span(b, a)
        else:  # one changes a statement the other's `find` matches (or one `find` is inside the other's)
            nested = bool(a.code and b.code and (a.code in b.code or b.code in a.code)) or _shares(a, b)
        if not nested:
            return None
        picked = (a.occurrence, a.within, b.occurrence, b.within) != (None, "", None, "")
        if picked and a.same != b.same:
            # a copy of the smaller is inside the larger; whether it is the one picked depends on the file
            return Meeting(
                Meet.MAY_NEST,
                f"may change the same code in {a.scope} (one's `find` is inside the other's, and {_PICKS})",
            )
        if both_anchor:
            return Meeting(Meet.NESTED, f"insert inside the code the other's `find` matches in {a.scope}")
        if a.role != b.role:
            return Meeting(Meet.NESTED, f"change and anchor at the same code in {a.scope}")
        return Meeting(Meet.NESTED, f"change the same code (one inside the other) in {a.scope}")
    if a.role == "anchor" and b.role == "anchor":
        picked = (a.occurrence, a.within, b.occurrence, b.within) != (None, "", None, "")
        if picked and a.same != b.same:  # two `find`s ending (starting) at one statement, counted apart
            return Meeting(
                Meet.ANCHOR,
                f"may insert at the same anchor in {a.scope} (their `find`s differ, and which copy "
                "`occurrence:`/`within:` picks depends on the file)",
            )
        return Meeting(
            Meet.ANCHOR,
            f"insert {a.key}" if a.key.startswith("definitions ") else f"insert at the same anchor in {a.scope}",
        )
    noun = a.key.split(" ")[0] if not a.key.startswith("code ") else "statement or expression"
    if a.role != b.role:
        return Meeting(Meet.NODE, f"change and anchor at the same code in {a.scope}")
    return Meeting(Meet.NODE, f"change the same {noun} in {a.scope}")


def _places(a: Touch, b: Touch) -> Meeting | None:
    """Where two new entries of one dict literal go (set_item): both at its end, both right after
    one key, or one right after the key the other adds, the order they run in is the dict's key
    order; apart otherwise (after two keys already there, or one at the end and one after a key
    there: either order writes one dict). A place meets nothing else: the entry's own touch does."""
    if not (a.key.startswith(PLACE) and b.key.startswith(PLACE)) or len(a.part) < 4 or len(b.part) < 4:
        return None
    (_, name, after, key), (_, other, other_after, other_key) = a.part[:4], b.part[:4]
    if name != other:
        return None
    if after == other_after:
        where = f"both {a.says}"
    elif other_after and other_after == key or after and after == other_key:
        where = "one right after the entry the other adds"
    else:
        return None
    said = a.part[4] if len(a.part) > 4 else f"`{name}`"  # a record written before places kept it: the key
    if a.kind == "element place":
        where, order = where.replace("entry", "element"), "which applies first decides the order of its elements"
        return Meeting(Meet.ANCHOR, f"add an element at the same place of {said} ({where}; {order}) in {a.scope}")
    order = "which applies first decides the dict's key order"
    return Meeting(Meet.ANCHOR, f"add an entry at the same place of {said} ({where}; {order}) in {a.scope}")


def _gap(t: Touch) -> tuple[str, str] | None:
    """Where an insertion matched by its `find` goes: (its side, the statement of its `find` it goes
    next to); None for another touch."""
    side = t.key.split(" ", 1)[0]
    if t.role != "anchor" or not t.statements or side not in ("before", "after"):
        return None
    return side, t.statements[0 if side == "before" else -1]


def _inside_span(span: Touch, t: Touch) -> bool:
    """`t` inserts inside the code `span`'s `find` matches: between two of its statements (after one
    but the last, before one but the first), or next to a statement nested in one of them. Run
    first, it breaks `span`'s match; run second, it goes where `span` inserted or not."""
    gap = _gap(t)
    if gap is None or not span.statements:
        return False
    body = span.statements
    between = {("after", s) for s in body[:-1]} | {("before", s) for s in body[1:]}
    return gap in between or any(gap[1] in s and gap[1] != s for s in body)


def _shares(a: Touch, b: Touch) -> bool:
    """Two `find`s that share a statement: when one of them changes it, the other no longer matches."""
    return any(s in b.code for s in a.statements) or any(s in a.code for s in b.statements)


def _copies(a: Touch, b: Touch) -> Picks:
    """Two rewrites with the same `find` in one scope: SAME when they pick the same copy, APART
    when they cannot (different `occurrence:` numbers of the same copies, neither removing or adding
    a copy that would re-number the other's), else MAY, with why they may (in words)."""
    if a.occurrence == "all" or b.occurrence == "all":
        return Picks(Copies.SAME)
    if a.within != b.within:
        return Picks(Copies.MAY, "their `within:` differ, and which copies each encloses depends on the file")
    if a.occurrence is None or b.occurrence is None or a.occurrence == b.occurrence:
        return Picks(Copies.SAME)
    for first, then in ((a, b), (b, a)):
        adds = bool(first.writes and first.code and first.code in first.writes)
        n, m = first.occurrence, then.occurrence
        if (first.consumes or adds) and isinstance(n, int) and isinstance(m, int) and m >= n:
            done = "removes" if first.consumes else "adds"
            return Picks(
                Copies.MAY,
                f"one {done} copy {n}, so the other's `occurrence: {m}` counts a different copy "
                "depending on which runs first",
            )
    return Picks(Copies.APART)


# what a touch says, read to see how two meet (registry.touch writes them, each operation of itself)


def is_binding(t: Touch) -> bool:
    return t.role == "node" and t.scope == "<module>" and t.key.startswith(BINDS)


def binds_name(t: Touch, name: str) -> bool:
    """A touch that is no `binding` but changes what module-level `name` is bound to: a
    `set_constant` of it (`from:` or not), or a module-level rewrite whose `find` or written code
    binds it (`Touch.names`)."""
    if t.scope != "<module>" or is_binding(t):
        return False
    return (len(t.part) == 2 and t.part[0] == "constant" and t.part[1] == name) or name in t.names


def part_words(t: Touch) -> str:
    """How a message names the node `t.part` places: what its operation said (`says`), or, for a
    touch recorded before operations said it, by where it lies."""
    if t.says:
        return t.says
    if t.part and t.part[0] == "keyword" and len(t.part) > 2:
        return f"keyword argument `{t.part[2]}=` of a call to `{t.part[1]}`"
    return f"constant `{t.part[1]}`" if len(t.part) > 1 else "node"


def holds(find: str, part: tuple[str, ...]) -> bool:
    """The code `find` matches holds the node `part` places: a call's keyword argument (with the
    value expected there), a call passing no such keyword where it is added (no value: set_keyword
    without `from:`), or something in the assignment to a module-level name."""
    tree = call_parts.tree_of(find)
    if tree is None or not part:
        return False
    if part[0] == "keyword" and len(part) == 4:
        _, call, keyword, value = part
        callee, was = call_parts.tree_of(call), call_parts.tree_of(value) if value else None
        if callee is None:
            return False
        want = ast.dump(getattr(callee, "body", callee))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast.dump(node.func) == want and not value:
                if all(kw.arg != keyword for kw in node.keywords):
                    return True  # a keyword added (no `from:`): to a call passing none
            elif isinstance(node, ast.Call) and ast.dump(node.func) == want:
                for kw in node.keywords:
                    if kw.arg == keyword and (was is None or ast.dump(kw.value) == ast.dump(getattr(was, "body", was))):
                        return True
        return False
    if part[0] == "constant" and len(part) == 2:
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            if any(isinstance(t, ast.Name) and t.id == part[1] for t in targets):
                return True
    return False
