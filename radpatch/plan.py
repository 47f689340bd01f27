"""Plan a patch in memory and prove it before anything is written.

For each file: apply every rewrite (each must match exactly once), compile() the result, check
that it introduces no undefined name, and reverse-apply it, requiring the original bytes back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


from radpatch import names, rewrites
from radpatch.errors import RefusedError
from radpatch.matching import MatchFailure
from radpatch.model import Patch, Rewrite
from radpatch.source import Source, Undecodable, decode


@dataclass(frozen=True)
class FileChange:
    module: str
    path: Path
    before: bytes
    after: bytes
    pristine: bytes | None = None  # the unpatched file, when `before` is not it (re-applying a new revision)

    @property
    def original(self) -> bytes:
        return self.before if self.pristine is None else self.pristine


def _decode(source: bytes, where: str) -> tuple[Source, str]:
    try:
        text, encoding = decode(source)
        return Source.parse(text), encoding
    except Undecodable as exc:
        raise RefusedError(f"{where} cannot be decoded as Python source: {exc}")
    except SyntaxError as exc:
        raise RefusedError(f"{where} does not parse as Python: {exc.msg} (line {exc.lineno})")


class RewriteRefused(RefusedError):
    """A rewrite did not match (or could not be undone) exactly once."""

    def __init__(self, patch: Patch, rw: Rewrite, where: str, detail: str) -> None:
        super().__init__(
            f"{patch.name}: rewrite {rw.id!r} ({rw.where}) on {where}: {detail}",
            "the installed code differs from what the patch expects; check the version range and the rewrite's `find`",
        )
        self.rewrite, self.rewrite_where, self.detail = rw.id, rw.where, detail


def short(exc: RefusedError) -> str:
    """A refusal without the patch and file it concerns (for messages that already name them)."""
    if isinstance(exc, RewriteRefused):
        return f"rewrite {exc.rewrite!r} ({exc.rewrite_where}): {exc.detail}"
    return exc.message


def forward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, where: str) -> bytes:
    src, encoding = _decode(source, where)
    for rw in rws:
        try:
            src = rewrites.forward(src, rw.op)
        except MatchFailure as exc:
            raise RewriteRefused(patch, rw, where, str(exc))
    return src.text.encode(encoding)


def backward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, where: str) -> bytes:
    src, encoding = _decode(source, where)
    for rw in reversed(rws):
        try:
            src = rewrites.inverse(src, rw.op)
        except MatchFailure as exc:
            raise RewriteRefused(patch, rw, where, f"cannot undo: {exc}")
    return src.text.encode(encoding)


def compile_error(after: bytes, where: str) -> str | None:
    try:
        compile(after, where, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return f"the patched {where} does not compile: {getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"
    return None


def names_error(before: bytes, after: bytes, where: str) -> str | None:
    new = names.introduced(_text(before), _text(after), where)
    if new:
        return f"the patched {where} would use undefined names: " + ", ".join(f"{n} in {s}" for s, n in new)
    return None


def reverse_error(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, after: bytes, where: str) -> str | None:
    try:
        restored = backward(patch, rws, after, where)
    except RefusedError as exc:
        return short(exc)
    return None if restored == before else f"reverse-applying the patch to {where} does not give back the original byte for byte"


def prove(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, after: bytes, where: str) -> None:
    """Refuse unless `after` compiles, adds no undefined name and reverses to `before` exactly."""
    steps: tuple[tuple[Callable[[], str | None], str], ...] = (
        (lambda: compile_error(after, where), ""),
        (lambda: names_error(before, after, where), "this version's code lacks names the rewrite relies on; declare a variant for it"),
        (lambda: reverse_error(patch, rws, before, after, where), ""),
    )
    for step, hint in steps:
        why = step()
        if why:
            raise RefusedError(f"{patch.name}: {why}", hint)


def _text(data: bytes) -> str:
    return decode(data)[0]


def plan(patch: Patch, rws: tuple[Rewrite, ...], module: str, path: Path, before: bytes) -> FileChange:
    where = str(path)
    after = forward(patch, rws, before, where)
    prove(patch, rws, before, after, where)
    return FileChange(module, path, before, after)
