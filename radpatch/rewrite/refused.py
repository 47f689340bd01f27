"""A rewrite's refusal as rewrite.runner reports it: which rewrite (its id and registry file:line), on
which file, and why; typed, so a caller asks what refused it (`scope_gone`, `later_change`) instead of
reading the message or walking the exception's context."""

from __future__ import annotations

from radpatch.errors import RefusedError
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite.matching import LaterChange, MatchFailure


class Occupied(MatchFailure):
    """The place the rewrite writes to holds code already (fill_module: the module has a statement). On a
    file another entry stacked on it, that entry's code is there: it builds on this one (prove.below)."""


class RewriteRefused(RefusedError):
    """A rewrite did not match (or could not be undone) exactly once, from `cause` when a refusal gave it.
    `scope_gone`: its scope (a definition it needs) is not in the module (MatchFailure.scope_gone);
    `later_change`: later code of the module undoes its edit (a LaterChange: prove.entry_order asks it);
    `occupied`: the place it writes to holds code already (an Occupied: prove.below asks it)."""

    def __init__(self, patch: Patch, rw: Rewrite, filename: str, detail: str, hint: str, cause: Cause = None):
        super().__init__(f"{patch.name}: rewrite {rw.id!r} ({rw.location}) on {filename}: {detail}", hint)
        self.rewrite, self.rewrite_location, self.detail = rw.id, rw.location, detail
        self.scope_gone: bool = cause is not None and cause.scope_gone
        self.later_change: bool = isinstance(cause, LaterChange) or (
            isinstance(cause, RewriteRefused) and cause.later_change
        )
        self.occupied: bool = isinstance(cause, Occupied) or (isinstance(cause, RewriteRefused) and cause.occupied)


Cause = MatchFailure | RewriteRefused | None


def short(exc: RefusedError) -> str:
    """A refusal without the patch and file it concerns (for messages that already name them)."""
    if isinstance(exc, RewriteRefused):
        return f"rewrite {exc.rewrite!r} ({exc.rewrite_location}): {exc.detail}"
    return exc.message
