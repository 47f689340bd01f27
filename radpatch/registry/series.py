"""A series: entries ordered by `requires:` (an entry comes after the entries it names).

`apply A` also applies what A requires, requirements first (an applied one is a no-op); `revert`
of an entry that an applied entry requires is refused, naming the dependents to revert with it
(quilt pops the patches above before the one below). A cycle or an unknown name is a registry
error at the entry that names it.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

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
            raise RegistryError([_cycle(p, [*visiting[visiting.index(p.name) :], p.name])], CYCLE_HINT)
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


CYCLE_HINT = (
    "take one entry of the cycle out of the other's `requires:`: a series is applied in one order, "
    "each entry after the ones it requires"
)


def refuse_cycles(patches: list[Patch], load: Callable[[str], Patch]) -> None:
    """A RegistryError naming each `requires:` cycle reachable from `patches` (file:line of the
    `requires:` key of its first entry, the cycle), so that every command reading these entries
    says it, not only the `apply` that fails on it; unknown or invalid requirements are left to
    the commands that load them."""
    problems: dict[frozenset[str], str] = {}
    done: set[str] = set()
    order = {p.name: i for i, p in enumerate(patches)}

    def visit(p: Patch, visiting: list[Patch]) -> None:
        names = [v.name for v in visiting]
        if p.name in names:
            on = visiting[names.index(p.name) :]
            # said from the entry named first (the command's), else from the least name: one wording per cycle
            first = min(range(len(on)), key=lambda i: (order.get(on[i].name, len(order)), on[i].name))
            cycle = [v.name for v in [*on[first:], *on[:first], on[first]]]
            problems.setdefault(frozenset(cycle), _cycle(on[first], cycle))
            return
        if p.name in done:
            return
        for name in p.requires:
            try:
                needed = load(name)
            except UsageError:  # RegistryError too: said by the commands that apply it
                continue
            visit(needed, [*visiting, p])
        done.add(p.name)

    for p in patches:
        visit(p, [])
    if problems:
        raise RegistryError(list(problems.values()), CYCLE_HINT)


def _cycle(p: Patch, cycle: list[str]) -> str:
    return f"{p.source}{_requires_at(p)}: requires: a cycle ({' -> '.join(cycle)}): an entry cannot come after itself"


def _requires_at(p: Patch) -> str:
    """`:line:column` of the entry's `requires:` key, or "" when it cannot be read again."""
    try:
        node = yaml.compose(p.source.read_text(encoding="utf-8-sig"), Loader=yaml.SafeLoader)
    except (OSError, ValueError, yaml.YAMLError):
        return ""
    for key, _ in node.value if isinstance(node, yaml.MappingNode) else ():
        if key.value == "requires":
            return f":{key.start_mark.line + 1}:{key.start_mark.column + 1}"
    return ""


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
