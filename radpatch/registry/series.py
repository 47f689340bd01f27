"""A series: entries ordered by `requires:` (an entry comes after the entries it names).

`apply A` also applies what A requires, requirements first (an applied one is a no-op); `revert`
of an entry that an applied entry requires is refused, naming the dependents to revert with it
(quilt pops the patches above before the one below). A cycle or an unknown name is a registry
error at the entry that names it.
"""

from __future__ import annotations

from collections.abc import Callable

from radpatch.errors import RegistryError, UsageError
from radpatch.registry.model import Patch


def with_requirements(patches: list[Patch], load: Callable[[str], Patch]) -> list[Patch]:
    """`patches` and everything they require (transitively), requirements first; otherwise in the
    order given."""
    out: dict[str, Patch] = {}
    visiting: list[str] = []

    def visit(p: Patch) -> None:
        if p.name in out:
            return
        if p.name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(p.name) :], p.name])
            raise RegistryError([f"{p.source}: requires: a cycle ({cycle}): an entry cannot come after itself"])
        visiting.append(p.name)
        for name in p.requires:
            try:
                needed = load(name)
            except RegistryError as exc:  # the required entry's own file is invalid
                raise RegistryError([f"{p.source}: requires: {name!r}: {exc.message}"]) from None
            except UsageError as exc:  # no registry given holds it
                raise RegistryError(
                    [f"{p.source}: requires: {name!r}: {exc.message}"],
                    f"give the registry that holds {name} too (--registry DIR, repeatable, or RADPATCH_REGISTRY), "
                    "or correct the name in requires:",
                ) from None
            visit(needed)
        visiting.pop()
        out[p.name] = p

    for p in patches:
        visit(p)
    return list(out.values())


def requirements_of(patch: Patch, load: Callable[[str], Patch]) -> tuple[Patch, ...]:
    """The entries `patch` requires, transitively, in the order apply runs them (verify and port
    prove it on what they leave)."""
    return tuple(with_requirements([patch], load)[:-1])


def dependents(name: str, everything: list[Patch]) -> list[str]:
    """The entries that require `name`, directly or through others, nearest first."""
    found: list[str] = []
    frontier = [name]
    while frontier:
        current = frontier.pop(0)
        for p in everything:
            if current in p.requires and p.name not in found and p.name != name:
                found.append(p.name)
                frontier.append(p.name)
    return found
