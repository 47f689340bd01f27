"""The round trip: whether a file's code is a patch's patched form (reverse-applying and
re-applying the patch reproduces it), and `carries`, the one judgement of whether a file radpatch
has no record of already carries the patch (status's `judge`, apply's `present`, verify). libcst is
loaded only inside these functions."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from radpatch.errors import RefusedError
from radpatch.gcpause import pausing
from radpatch.prove.same_code import same_code
from radpatch.registry.model import Patch, Rewrite


class Trip(Enum):
    PATCHED = "patched"  # reverse-applying and re-applying reproduces the code
    REFUSED = "refused"  # undoing (or re-applying) the patch stops at a rewrite
    DIFFERS = "differs"  # both run, and give other code


@dataclass(frozen=True)
class RoundTrip:
    """Whether a file's code is the patched form, by the round trip: reverse-applying and re-applying
    the patch reproduces it. `stops`: where it does not, in words (for the state's reason)."""

    trip: Trip
    stops: str = ""

    @property
    def patched(self) -> bool:
        return self.trip is Trip.PATCHED


@pausing
def round_trip(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    data: bytes,
    filename: str,
    forward: Callable[[bytes], bytes] | None = None,
    backward: Callable[[bytes], bytes] | None = None,
) -> RoundTrip:
    """Patched when `data` is the patched form (reverse-applying and re-applying reproduces its code:
    the same bytes, or the same syntax tree when the patch was written by another tool with its own
    layout, e.g. GNU patch from the diff the entry was imported from), else where undoing the patch
    stops. `forward`/`backward` default to plan's (verify passes memoised ones)."""
    from radpatch.rewrite import runner  # libcst: only when the hashes cannot decide
    from radpatch.rewrite.refused import short

    fwd = forward or (lambda d: runner.forward(patch, rws, d, filename))
    bwd = backward or (lambda d: runner.backward(patch, rws, d, filename))
    try:
        again = fwd(bwd(data))
    except RefusedError as exc:
        return RoundTrip(Trip.REFUSED, short(exc))
    if again == data or same_code(again, data):
        return RoundTrip(Trip.PATCHED)
    return RoundTrip(Trip.DIFFERS, "reverse-applying and re-applying does not reproduce the file")


def carries(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    data: bytes,
    filename: str,
    forward: Callable[[bytes], bytes] | None = None,
    backward: Callable[[bytes], bytes] | None = None,
    trip: RoundTrip | None = None,
    in_effect: Callable[[bytes], bool] | None = None,
) -> bool:
    """The one judgement of whether a file radpatch has no record of already carries the patch:
    the round trip reproduces it, it is not an unpatched file that only reads so because a
    rewrite's `with` lies inside its `find` (still_unpatched), and, where the caller can tell
    (`in_effect`: verify, from the change on a base, radpatch.releases.replaced), the new code
    takes effect there (refusal.NOT_IN_EFFECT: else not carried). status (judge), apply
    (refuse_if_present) and verify (releases.proof) all ask this. `trip`: the round trip, when
    the caller has it already; `forward`/`backward` as round_trip's."""
    if not (trip or round_trip(patch, rws, data, filename, forward, backward)).patched:
        return False
    if still_unpatched(patch, rws, data, filename, forward):
        return False
    return in_effect is None or in_effect(data)


def still_unpatched(
    patch: Patch, rws: tuple[Rewrite, ...], data: bytes, filename: str, forward: Callable[[bytes], bytes] | None = None
) -> bool:
    """A file that reads as patched by the round trip only because a rewrite's `with` is part of
    its `find` (`int(timeout)` -> `timeout`): the `with` match inside the unpatched `find` is no
    evidence of the patch. True when some rewrite is such a replace and applying still takes it."""
    if not any(_with_inside_find(rw) for rw in rws):
        return False
    from radpatch.rewrite import runner

    try:
        return (forward or (lambda d: runner.forward(patch, rws, d, filename)))(data) != data
    except RefusedError:
        return False


def _with_inside_find(rw: Rewrite) -> bool:
    """The rewrite's `with` is part of its `find`: an expression inside it (`int(timeout)` ->
    `timeout`), or a run of its statements (a method deleted after the one before it: `find` is
    both, `with` the first alone)."""
    find, with_ = getattr(rw.op, "find", None), getattr(rw.op, "with_", None)
    if not isinstance(find, str) or not isinstance(with_, str):
        return False
    try:
        f, w = ast.parse(textwrap.dedent(find).strip()), ast.parse(textwrap.dedent(with_).strip())
        if w.body and _statements_inside(f, [ast.dump(s) for s in w.body]):
            return True
        inner = ast.dump(w.body[0].value) if len(w.body) == 1 and isinstance(w.body[0], ast.Expr) else None
        if inner is None:
            return False
        top = f.body[0].value if len(f.body) == 1 and isinstance(f.body[0], ast.Expr) else None
        return any(ast.dump(n) == inner for n in ast.walk(f) if n is not top and n is not f.body[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # too deep to walk: the rewrite refuses it
        return False


def _statements_inside(tree: ast.Module, run: list[str]) -> bool:
    """`run` (dumped statements) is a contiguous part of some block of `tree` other than all of its
    top level."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            dumped = [ast.dump(s) for s in block]
            if node is tree and dumped == run:
                continue
            if any(dumped[i : i + len(run)] == run for i in range(len(dumped) - len(run) + 1)):
                return True
    return False
