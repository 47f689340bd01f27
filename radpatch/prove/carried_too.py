"""Which other entries of the registries a file's other edits are: a file adopt refuses because it
is not the run's result on its bytes before may be exactly that result with another entry's code
too (two entries applied by hand, one named). The entry named tells the user what to run (`apply`
naming both adopts them), where "other edits at line N" alone led to `radpatch restore`.

Asked only on that refusal path: each other entry that rewrites the file is run, with the rewrites
only (no proof: nothing is planned from it), on top of the run's result when it requires one of the
run's entries, else under them, and the file's code compared (AST-equal, as adopt compares)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from radpatch.errors import RadpatchError
from radpatch.install.environment import PythonEnv
from radpatch.prove.analysis import forward
from radpatch.prove.reverse_check import ast_equal
from radpatch.registry.model import Patch, Rewrite

MOST = 6  # other entries tried on one file (pairs of them too: at most 15 more runs)


@dataclass(frozen=True)
class Other:
    """Another entry of the registries, not in the run, with its rewrites of the file."""

    patch: Patch
    rewrites: tuple[Rewrite, ...]


# the other entries that rewrite a file (write.apply reads them from the loaded registries)
Others = Callable[[Path], list[Other]]


def carried_too(
    path: Path,
    before: bytes,
    users: Sequence[tuple[Patch, tuple[Rewrite, ...]]],
    disk: bytes,
    others: list[Other],
) -> list[str]:
    """The names of the fewest other entries (one, else two) whose code, with the run's entries
    (`users`, in order, on `before`), gives the file's code `disk`; [] when none does."""
    run = {p.name for p, _ in users}
    below = _required(users)
    tried = [o for o in others if o.patch.name not in run][:MOST]
    for size in (1, 2):
        for group in combinations(tried, size):
            if _gives(path, before, users, list(group), below, disk):
                return [o.patch.name for o in group]
    return []


def _required(users: Sequence[tuple[Patch, tuple[Rewrite, ...]]]) -> set[str]:
    return {r for p, _ in users for r in p.requires}


def _gives(
    path: Path,
    before: bytes,
    users: Sequence[tuple[Patch, tuple[Rewrite, ...]]],
    group: list[Other],
    below: set[str],
    disk: bytes,
) -> bool:
    """`group` run with the run's entries in their order: an entry the run requires, or one that
    requires none of the run's, goes under them; one that requires a run entry goes on top."""
    run = {p.name for p, _ in users}
    under = [o for o in group if o.patch.name in below or not set(o.patch.requires) & run]
    above = [o for o in group if o not in under]
    steps = [*((o.patch, o.rewrites) for o in under), *users, *((o.patch, o.rewrites) for o in above)]
    data = before
    try:
        for patch, rws in steps:
            data = forward(patch, rws, data, str(path))
    except RadpatchError:
        return False
    return ast_equal(data, disk)


def from_registries(load: Callable[[], list[Patch]], run: Sequence[Patch], env: PythonEnv) -> Others:
    """The `Others` of the loaded registries (`load`: Registry.load_valid, called once, when first
    asked): each entry not in `run` whose current revision rewrites the file in `env`'s install, as
    install.targets reads it (an entry that does not cover the installed version is none)."""
    from radpatch.install import targets

    names = {p.name for p in run}
    read: list[targets.InstalledTargets] = []

    def others(path: Path) -> list[Other]:
        if not read:
            read.extend(targets.read(p, env) for p in load() if p.name not in names)
        out = []
        for found in read:
            if found.declined is not None or isinstance(found.files, RadpatchError):
                continue
            out += [Other(found.patch, f.rewritten.rewrites) for f in found.files if f.path == path]
        return out

    return others
