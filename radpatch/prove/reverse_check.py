"""The reverse step's check: undoing the patch gives back the original code (as a syntax tree) and
re-applying gives the patched file again; on a refusal, the first rewrite whose own step does not
undo. For `steps` (and `ast_equal` for adoption)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable

from radpatch.errors import RefusedError
from radpatch.gcpause import pausing
from radpatch.prove.analysis import backward, forward, short
from radpatch.prove.refusal import REVERSE_HINT, Refusal
from radpatch.registry.model import Patch, Rewrite


@pausing
def ast_equal(a: bytes, b: bytes) -> bool:
    try:
        return _dumped(a) == _dumped(b)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


@functools.lru_cache(maxsize=4)
def _dumped(data: bytes) -> str:
    """The syntax tree of the exact bytes `data`, dumped: prove.below compares each lower entry's
    result with the one result on top (a failure, not kept, is raised again)."""
    return ast.dump(ast.parse(data))


def reverse_refusal(
    before: bytes, after: bytes, backward_: Callable[[bytes], bytes], forward_: Callable[[bytes], bytes], filename: str
) -> Refusal | None:
    """The reverse proof: None, or why the patched `after` cannot be undone. backward(after) must be
    AST-equal to `before` and forward(backward(after)) must give `after` again."""
    try:
        restored = backward_(after)
        if restored == before:  # forward is a function of the bytes: forward(restored) is `after`
            return None
        if not ast_equal(restored, before):
            why = f"undoing the patch on {filename} does not give back the original code (compared as syntax trees)"
            return Refusal("reverse", why, REVERSE_HINT)
        if forward_(restored) != after:
            why = f"the patched {filename} is not stable: undoing and re-applying the patch gives different code"
            return Refusal("reverse", why, REVERSE_HINT)
    except RefusedError as exc:
        why, rewrite = short(exc)
        return Refusal("reverse", why, REVERSE_HINT, rewrite)
    return None


def _undo_one(patch: Patch, one: tuple[Rewrite, ...], prior: bytes, after: bytes, filename: str) -> Refusal | None:
    """The reverse proof of one rewrite's own step: `prior` patched by `one` gave `after`."""
    return reverse_refusal(
        prior, after, lambda d: backward(patch, one, d, filename), lambda d: forward(patch, one, d, filename), filename
    )


def _blame(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, filename: str) -> Refusal | None:
    """The first rewrite whose own step does not undo, named with its registry file:line."""
    for k in range(len(rws)):
        one = rws[k : k + 1]
        try:
            prior = forward(patch, rws[:k], before, filename)
            after = forward(patch, one, prior, filename)
        except RefusedError:
            return None
        refusal = _undo_one(patch, one, prior, after, filename)
        if refusal is not None:
            return refusal.blame(rws[k])
    return None
