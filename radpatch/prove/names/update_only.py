"""Update-only globals: `global x; x += 1` reads x before it binds it, so a function that only
updates a module name binds nothing the module lacked (with x bound nowhere else: NameError).
"""

from __future__ import annotations

from collections.abc import Iterable

from .scope_bindings import NameScope


def global_assigners(scopes: Iterable[NameScope]) -> dict[str, set[int]]:
    """The names functions bind in the module through `global`, each with the ids of the scopes that
    do (an augmented assignment binds only what it has read: it does not count)."""
    out: dict[str, set[int]] = {}
    for s in scopes:
        if s.kind != "module":
            for n in (s.bound - s.augmented_only) & s.globals_:
                out.setdefault(n, set()).add(id(s))
    return out
