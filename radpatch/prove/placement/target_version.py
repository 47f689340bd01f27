"""Reachability on the target's Python: a test on the Python version (`if sys.version_info < (3, 11):`,
a flag bound to one, any spelling names.version_guard decides) is decided for the target's
major.minor, so the branch it makes dead there is dead code for placement, as `if False:` is
(`reachability`). One decision for every reader: the names package's `version_guard`.

`with_version` gives a version's `Placement` again with its unreachable statements found for the
target's version; the module is parsed again only when its text reads the version at all.

In the target interpreter's probe (prove/target_probe) the names package is served at top level
as radpatch_names, as for `guards`.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

try:
    from ..names.version_guard import aliases, decide, flags
except ImportError:  # served to the target interpreter: no parent package
    from radpatch_names.version_guard import aliases, decide, flags  # type: ignore[import-not-found,no-redef]

if TYPE_CHECKING:
    from . import Placement
    from .reachability import Unreachable

_READS = (b"version_info", b"hexversion")


def version_truth(tree: ast.Module, version: tuple[int, int]) -> Callable[[ast.expr], bool | None]:
    """The truth of a test on `version` (the target's major.minor), for a test version_guard decides;
    None for any other test, or one it cannot decide (it may vary)."""
    renamed, flagged = aliases(tree), flags(tree)

    def truth(test: ast.expr) -> bool | None:
        found = decide(test, version, renamed, flagged)
        return found if isinstance(found, bool) else None

    return truth


def with_version(p: Placement, version: tuple[int, int] | None) -> Placement:
    """`p` with its unreachable statements found for the target's `version` (as placement() with
    `version` finds them); `p` itself when the version is unknown or the text does not read it."""
    if version is None or p.source is None:
        return p
    data = p.source.encode() if isinstance(p.source, str) else p.source
    if not any(r in data for r in _READS):
        return p
    found = _unreachable_on(data, version)
    return p if found is None else dataclasses.replace(p, unreachable=found)


@functools.lru_cache(maxsize=8)
def _unreachable_on(data: bytes, version: tuple[int, int]) -> tuple[Unreachable, ...] | None:
    from .reachability import unreachable

    try:
        return tuple(unreachable(ast.parse(data), version))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
