"""Whether a release already holds the change, as the `pristine` check of radpatch.releases.proof
asks: read as patched (status's and apply's judgement, or the rewrites' round trip), or carried in
upstream's own layout (radpatch.releases.carried) where its new code takes effect; and whether it
holds new code that may not take effect (`not_in_effect`)."""

from __future__ import annotations

from collections.abc import Callable

from radpatch.errors import RefusedError
from radpatch.prove.star_exports import module_of
from radpatch.releases import carried, replaced, shadowed
from radpatch.releases.compared import Compared
from radpatch.releases.proof_job import File
from radpatch.releases.proof_run import JobRun, Memo


def _contains(run: JobRun, index: int, memo: Memo, f: File, data: bytes) -> bool:
    """`data` (a file of layer `index`) already holds the layer's change. In radpatch's layout,
    status's and apply's judgement tells (prove.form.carries); in upstream's own, only where the
    rewrites do not apply (where they apply, apply makes the change: an insertion already there is
    told by the round trip). Neither where a `replace`'s new code may not take effect (not_in_effect),
    nor where a later binding of the scope's name is what runs (radpatch.releases.shadowed)."""
    if shadowed.of(f, data) is not None:
        return False
    if memo.carries(data, _in_effect(run, index, f)):
        return True
    if memo.carries(data):
        return False  # it reads as patched, but the new code may not take effect (not_in_effect)
    try:
        memo.forward(data)
        return False
    except RefusedError:
        pass
    change = run.change(index, f.file)
    return change is not None and _carried(change, f, data) and not _undone(change, f, data)


def _carried(change: tuple[bytes, bytes], f: File, data: bytes) -> bool:
    """radpatch.releases.carried on the release's file, with the modules its decorators come from."""
    return carried.carries(Compared(*change, data, module_of(f.relpath), f.decorators))


def _undone(change: tuple[bytes, bytes], f: File, data: bytes) -> bool:
    """radpatch.releases.replaced on the release's file, with the modules its decorators come from."""
    return replaced.undone(Compared(*change, data, module_of(f.relpath), f.decorators))


def _in_effect(run: JobRun, index: int, f: File) -> Callable[[bytes], bool]:
    """Whether layer `index`'s new code in `f` takes effect, judged against its change on a base
    (radpatch.releases.replaced); True where no base tells (the first proof, without bases)."""

    def judge(data: bytes) -> bool:
        change = run.change(index, f.file)
        return change is None or not _undone(change, f, data)

    return judge


def not_in_effect(run: JobRun, index: int, memo: Memo, f: File, data: bytes) -> bool:
    """`data` holds layer `index`'s new code (it reads as patched, or holds the change in upstream's
    layout) but, against the change on a base, it may not take effect (prove.refusal.NOT_IN_EFFECT):
    not carried, so not obsolete."""
    change = run.change(index, f.file)
    if change is None or not _undone(change, f, data):
        return False
    if memo.carries(data):
        return True
    try:
        memo.forward(data)
        return False  # the rewrites still apply: apply makes the change there
    except RefusedError:
        return _carried(change, f, data)


def _holds(run: JobRun, index: int, memo: Memo, f: File, data: bytes) -> bool:
    """`data` holds layer `index`'s new code, in radpatch's layout or (against the change on a base) upstream's."""
    if memo.carries(data):
        return True
    try:
        memo.forward(data)
        return False
    except RefusedError:
        change = run.change(index, f.file)
        return change is not None and _carried(change, f, data)
