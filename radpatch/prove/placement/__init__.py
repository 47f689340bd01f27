"""Proofs about where a patch's code ends up: it is not shadowed, and it is the code that runs.

- Shadowing: a definition the patch adds at module level must not share its name with anything
  the target binds there (import, assignment, def, class) where both may run: one of the two
  would silently replace the other. Branches that never both run (if/else, a try and its
  fallback handlers, match cases, a stable guard and its negation: `branches`) replace nothing.
- Dead code: a rewrite must not change a `def`/`class` that a later statement of its scope
  replaces: in the same block or in one that runs after it (`def f` ... `def f` again, `f = ...`,
  `from x import f`), or on some path only (`if cond: def f`, a try's fallback, a loop body).
  A definition whose name is read by something that surely runs in between (`@f.setter`,
  `register(f)`), or that has a decorator radpatch does not know (it may register it), is alive.
- Unreachable code: nothing the patch adds or changes may follow, in its block, a statement
  control never gets past (return, raise, continue, break, an if/else, try or match whose every
  path leaves, a loop without a break whose else leaves, `while True:` without a break, a `with`
  whose body returns), nor sit in a block that never runs (`if TYPE_CHECKING:` but for its
  imports, `if False:`, `while 0:`, the else of `if True:`).
- Dynamic rebinding: a binding the patch adds or changes must not be followed by a module-level
  star import, `globals().update(...)` or a computed-name `setattr` that may replace it, unless a
  star-imported module on the target's path provably does not bind the name.

Each check is one pass over the top-level statements or over all statement lists, taken from each
version's tree into a `Placement` (so only one whole-module tree is alive at a time); only the
definitions that could be dead are compared (with ast.dump) between the original and the patch.
One module per proof: `shadowing`, `live` (live versus dead definitions), `reachability` (with
the tests on the Python version decided for the target's major.minor: `target_version`),
`rebinding`, `fallbacks` (the handlers of a guarded import, which run only where it fails).
Standard library only and relative imports: prove/target_probe serves the package
to a target interpreter of another Python version. The TYPE_CHECKING guard predicate is the names
package's own (`guards`: one rule for every reader); the module's other names for itself and its
namespace, which `live` and `rebinding` both follow, are `aliases`; the stores a module-level call
makes (`operator.setitem(globals(), ...)`, a partial of setattr, one inside a comprehension, a
lambda or a default argument; a call radpatch cannot read handed the namespace may store any name)
are `calls`, for both.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from .fallbacks import Fallback, changed_fallbacks, fallbacks
from .live import DeadDef, dead_changes, dead_definitions
from .reachability import Unreachable, unreachable, unreachable_changes
from .rebinding import Rebinder, StarBinds, bindings, rebinders, rebound_changes
from .shadowing import Binding, module_bindings, shadowed
from .stores import stored_definitions
from .target_version import with_version

__all__ = [
    "Binding",
    "DeadDef",
    "Fallback",
    "Placement",
    "Rebinder",
    "StarBinds",
    "Unreachable",
    "changed_fallbacks",
    "dead_changes",
    "fallback_candidates",
    "first_failing",
    "module_bindings",
    "placement",
    "rebound_changes",
    "shadowed",
    "unreachable_changes",
    "with_version",
]


@dataclass(frozen=True)
class Placement:
    """What both proofs need of one version of a module, taken from its tree in one pass, so the
    tree can be freed before the other version is parsed."""

    bindings: tuple[Binding, ...]
    dead: dict[tuple[str, str, int], DeadDef]
    unreachable: tuple[Unreachable, ...] = ()
    stored: dict[tuple[str, str, int], DeadDef] = field(default_factory=dict)  # replaced by an attribute store
    source: str | bytes | None = None  # the version's text, parsed again only on a refusal path
    rebinders: tuple[Rebinder, ...] = ()  # later statements that may bind names radpatch cannot list
    bound: dict[tuple[str, str], tuple[tuple[int, str], ...]] = field(default_factory=dict)  # their owners' bindings
    fallbacks: tuple[Fallback, ...] = ()  # the handlers of guarded imports (`try: from fast import f`)


def placement(
    tree: ast.Module,
    source: str | bytes | None = None,
    module: tuple[str, bool] | None = None,
    version: tuple[int, int] | None = None,
) -> Placement:
    """`module`: the module's (dotted name, is a package), to see stores through an import of itself.
    `version`: the target's major.minor, for which tests on the Python version are decided
    (`target_version`); None: they may vary (`target_version.with_version` decides them later)."""
    dynamic = rebinders(tree, module)
    return Placement(
        tuple(module_bindings(tree)),
        dead_definitions(tree),
        tuple(unreachable(tree, version)),
        stored_definitions(tree, module),
        source,
        dynamic,
        bindings(tree, {r.owner for r in dynamic}) if dynamic else {},
        fallbacks(tree),
    )


def fallback_candidates(before: Placement, after: Placement) -> list[str]:
    """The fallbacks `after` changes with their imports left alone (changed_fallbacks), as JSON: what a
    target interpreter of another version (prove/target_probe) hands back to be asked of the target."""
    return [f.to_json() for f in changed_fallbacks(before.fallbacks, after.fallbacks)]


def first_failing(count: int, failing: Callable[[int], bool]) -> int | None:
    """The first k in 1..count with failing(k) (which rewrite, applied in order, causes it)."""
    return next((k for k in range(1, count + 1) if failing(k)), None)
