"""Which entries come after which, by `requires:` (transitively): two overlapping entries are
ordered when one comes after the other (prove.overlaps.pairs, prove.overlaps.apply_check, prove.overlaps.applied)."""

from __future__ import annotations

from radpatch.registry.model import Patch


def after(patches: list[Patch]) -> dict[str, set[str]]:
    """Entry -> every entry it comes after, through `requires:` (transitively)."""
    return after_names({p.name: set(p.requires) for p in patches})


def after_names(direct: dict[str, set[str]]) -> dict[str, set[str]]:
    """Entry -> every entry it comes after, from entry -> the entries it requires."""
    out: dict[str, set[str]] = {}
    for name in direct:
        seen: set[str] = set()
        todo = list(direct[name])
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(direct.get(n, ()))
        out[name] = seen
    return out
