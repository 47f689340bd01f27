"""Run a patch's rewrites over a module's bytes, forward (apply) or backward (undo), in memory.

Each rewrite must match exactly once; a refusal names the rewrite (its id and registry
file:line) and is reported on the file's own line numbers. The result keeps the file's encoding.
"""

from __future__ import annotations

from radpatch.errors import RefusedError
from radpatch.gcpause import pausing
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite.matching import MatchFailure, unexplained
from radpatch.rewrite.source import Source, Undecodable, decode


def _decode(source: bytes, where: str) -> tuple[Source, str]:
    try:
        text, encoding = decode(source)
        return Source.parse(text), encoding
    except Undecodable as exc:
        raise RefusedError(f"{where} cannot be decoded as Python source: {exc}")
    except SyntaxError as exc:
        raise RefusedError(f"{where} does not parse as Python: {exc.msg} (line {exc.lineno})")
    except (RecursionError, MemoryError):
        raise RefusedError(
            f"{where} is nested too deeply for radpatch to analyse", "radpatch cannot prove a patch of this file"
        ) from None


class RewriteRefused(RefusedError):
    """A rewrite did not match (or could not be undone) exactly once."""

    def __init__(self, patch: Patch, rw: Rewrite, where: str, detail: str, hint: str) -> None:
        super().__init__(f"{patch.name}: rewrite {rw.id!r} ({rw.where}) on {where}: {detail}", hint)
        self.rewrite, self.rewrite_where, self.detail = rw.id, rw.where, detail


def short(exc: RefusedError) -> str:
    """A refusal without the patch and file it concerns (for messages that already name them)."""
    if isinstance(exc, RewriteRefused):
        return f"rewrite {exc.rewrite!r} ({exc.rewrite_where}): {exc.detail}"
    return exc.message


def _step(patch: Patch, rw: Rewrite, src: Source, where: str, undo: bool) -> Source:
    from radpatch.rewrite import ops  # libcst is loaded only when a rewrite really runs

    try:
        return ops.inverse(src, rw.op) if undo else ops.forward(src, rw.op)
    except MatchFailure as exc:
        raise RewriteRefused(patch, rw, where, f"cannot undo: {exc}" if undo else str(exc), exc.hint) from None
    except (RecursionError, MemoryError):
        raise RewriteRefused(
            patch, rw, where, "the code is nested too deeply for radpatch to analyse", "simplify the rewrite's code"
        ) from None


def _run(patch: Patch, order: tuple[Rewrite, ...], src: Source, where: str, undo: bool) -> Source:
    """Apply (or undo) the rewrites in `order`. A refusal is reported on the file's own lines:
    where the rewrites run before it moved them, the refused one is run again on the file."""
    original = src
    for rw in order:
        moved = src is not original and src.lines != original.lines  # src's line numbers are not the file's
        try:
            with unexplained(moved):  # a refusal here is reported from the runs below, not from this one
                src = _step(patch, rw, src, where, undo)
        except RewriteRefused:
            if not moved:
                raise
            _step(patch, rw, original, where, undo)  # its refusal there gives the file's own line numbers
            try:  # it runs on the file but not on what the rewrites run before it made of it: say why
                _step(patch, rw, src, where, undo)
            except RewriteRefused as exc:
                after = (
                    "after undoing the rewrites after it; line numbers count the lines undoing them removed"
                    if undo
                    else "after the rewrites before it; line numbers count the lines they added"
                )
                raise RewriteRefused(patch, rw, where, f"{exc.detail} ({after})", exc.hint) from None
            raise
    return src


@pausing
def forward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, where: str) -> bytes:
    src, encoding = _decode(source, where)
    original = src
    src = _run(patch, rws, src, where, undo=False)
    try:
        return _encode(src, encoding, where)
    except RefusedError as exc:  # name the rewrite whose code the encoding lacks (only on this refusal path)
        src = original
        for rw in rws:
            src = _step(patch, rw, src, where, undo=False)
            try:
                src.text.encode(encoding)
            except UnicodeEncodeError as bad:
                raise RewriteRefused(
                    patch,
                    rw,
                    where,
                    f"its code cannot be written in the file's encoding {encoding}: "
                    f"{bad.object[bad.start : bad.end]!r} ({bad.reason})",
                    exc.hint,
                ) from None
        raise RefusedError(f"{patch.name}: {exc.message}", exc.hint) from None


@pausing
def backward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, where: str) -> bytes:
    """The structural inverse: code AST-equal to the original (not necessarily its bytes)."""
    src, encoding = _decode(source, where)
    return _encode(_run(patch, tuple(reversed(rws)), src, where, undo=True), encoding, where)


def _encode(src: Source, encoding: str, where: str) -> bytes:
    try:
        return src.text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise RefusedError(
            f"the patched {where} cannot be written in its encoding {encoding}: {exc.reason}",
            "write the rewrite's code in characters the file's encoding has (or as escapes)",
        ) from None
