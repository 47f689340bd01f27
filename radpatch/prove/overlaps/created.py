"""Two meetings the touches' rules (prove.overlaps.touching) leave out, found from the operations
themselves (ovl45, issue 23 item 4):

- a rewrite inside a definition another entry creates: `insert_definitions` adds `def g` (or a
  method `K.extra`), the other's scope is `g` (or inside it). It stacks: it matches only after the
  definition is there (`STACKS`, the creator first);
- a `find` that is one element of a literal another rewrite changes by its parts (`add_element`,
  `remove_element`, `set_item`): the `find` may be that element (`NODE`; the release's file, run
  whole in both orders, decides for `apply`: prove.overlaps.entry_orders);
- a `remove_element` and an `add_element` that appends to the same display: the removal takes only
  the display's last element (its undo puts it back there), so it matches only before the other
  (`STACKS`, the removal first).

Asked by prove.overlaps.pairs where `touching.meet` finds nothing."""

from __future__ import annotations

from collections.abc import Iterable

from radpatch.prove.overlaps.touching import Meet, Meeting
from radpatch.registry.model import Operation
from radpatch.registry.touch import Touch


def created_scopes(op: Operation) -> tuple[str, ...]:
    """The qualified names of the definitions `op` creates (an `insert_definitions`), else ()."""
    names = getattr(op, "names", None)
    anchor = getattr(op, "anchor", None)
    side = getattr(op, "side", None)
    if not isinstance(names, tuple) or not isinstance(anchor, str) or side not in ("before", "after", "into"):
        return ()
    if not getattr(op, "in_class", False):
        return tuple(n for n in names if isinstance(n, str))
    owner = anchor if side == "into" else anchor.rpartition(".")[0]
    return tuple(f"{owner}.{n}" for n in names if isinstance(n, str))


def inside_created(creator: Operation, other: Operation) -> Meeting | None:
    """`other` changes code inside a definition `creator` adds."""
    return _first(
        Meet.STACKS,
        (
            f"change the same code (the second's scope `{t.scope}` is inside `{name}`, which the first "
            "adds: it matches only after it)"
            for name in created_scopes(creator)
            for t in other.touches()
            if t.scope == name or t.scope.startswith(name + ".")
        ),
    )


def element_find(a: Touch, b: Touch) -> Meeting | None:
    """One's `find` is the very element (or dict key) the other's literal rewrite names, in one scope."""
    return _first(
        Meet.NODE,
        (
            f"may change the same code in {lit.scope} (one's `find` may be the {lit.says or 'element'} "
            "the other changes)"
            for lit, other in ((a, b), (b, a))
            if lit.kind in ("display element", "dict entry") and other.role == "node" and other.code
            if lit.scope == other.scope and lit.key.endswith(f"[{other.code}]")
        ),
    )


def _first(kind: Meet, said: Iterable[str]) -> Meeting | None:
    """A meeting of `kind` in the words of the first place the two meet (`said`: the words of each
    place, found lazily, in order); None when they meet nowhere."""
    what = next(iter(said), None)
    return None if what is None else Meeting(kind, what)


def removed_then_added(remover: Operation, adder: Operation) -> Meeting | None:
    """`remove_element` takes only a display's last element (its undo puts it back there), and the
    other's `add_element` appends to the same display: the removal matches only before it."""
    if getattr(remover, "remove", False) is not True or getattr(adder, "remove", True) is not False:
        return None
    ours = [t for t in remover.touches() if t.kind == "display element"]
    ends = {
        (t.scope, t.key) for t in adder.touches() if t.key.startswith("entry place ") and t.key.endswith("[the end]")
    }
    return _first(
        Meet.STACKS,
        (
            f"change the same code in {t.scope} (the first removes the {t.says}, which must be the display's "
            "last element; the second appends to it)"
            for t in ours
            if (t.scope, f"entry place {t.key.removeprefix('element ').rpartition('[')[0]}[the end]") in ends
        ),
    )
