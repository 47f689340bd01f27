"""An entry's literal edit undone by a later rewrite of the same entry (att61 F12).

set_item, add_element, remove_element, set_keyword and set_default prove, when they run, that no later code of
the module undoes the edit (rewrite.later_changes); but the rewrites after it in the entry have not run yet then,
so `set_item CFG["timeout"]`, then an `insert_after` adding `CFG["timeout"] = 1`, applied (the other order was
refused). Here each such rewrite that has others after it in the file is run once more last, on what the
others make of the file: where its proof refuses there (a LaterChange), the entry is refused with that
refusal. Where it cannot run last (a later rewrite finds its result), nothing is concluded: the later rewrite
depends on it. set_constant's rebinding is proven on the whole result already (prove.placement).
"""

from __future__ import annotations

from radpatch.errors import RadpatchError, RefusedError
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite.refused import RewriteRefused
from radpatch.rewrite.runner import forward


def check_later_steps(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, filename: str) -> None:
    """Refuses (RewriteRefused) where a literal rewrite of `rws` is undone by the rewrites after it."""
    for k, rw in enumerate(rws[:-1]):
        if not rw.op.PROVES_LATER:
            continue
        try:
            forward(patch, (*rws[:k], *rws[k + 1 :], rw), before, filename)
        except RewriteRefused as exc:
            if exc.rewrite == rw.id and exc.later_change:
                raise RefusedError(
                    f"{exc.message} (with the entry's rewrites after it made first)",
                    f"a later rewrite of {patch.name} undoes {rw.id!r}'s edit: drop one of them, or write the "
                    "change as one `replace`",
                ) from None
        except RadpatchError:
            continue  # it cannot run last: a later rewrite depends on it
