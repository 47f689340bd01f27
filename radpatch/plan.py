"""Plan a patch in memory and prove it before anything is written.

For each file: apply every rewrite (each must match exactly once), compile() the result, check
that it introduces no undefined name, and reverse-apply it, requiring the original bytes back.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


from radpatch import names, proofs, rewrites, targetpy
from radpatch.environment import PythonEnv
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


def compile_error(after: bytes, where: str, python: PythonEnv | None = None, before: bytes | None = None) -> str | None:
    """Compiled with the target interpreter's grammar (asked directly when it is another version)."""
    if python is not None and not targetpy.same_grammar(python.executable, python.version):
        why = _target(python, before if before is not None else after, after, where).compile_error
    else:
        try:
            compile(after, where, "exec", dont_inherit=True)
            return None
        except (SyntaxError, ValueError) as exc:
            why = f"{getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"
        except (RecursionError, MemoryError):
            why = "too deeply nested to compile"
    return None if why is None else f"the patched {where} does not compile{_for(python)}: {why}"


def names_error(before: bytes, after: bytes, where: str, python: PythonEnv | None = None) -> str | None:
    """Names the patch makes unresolvable at run time (see names.py), each with its line."""
    try:
        if python is not None and not targetpy.same_grammar(python.executable, python.version):
            new = list(_target(python, before, after, where).problems)
        else:
            new = names.introduced(_text(before), _text(after), where)
    except (RecursionError, MemoryError):
        return f"the patched {where} is too deeply nested to check its names"
    if new:
        return f"the patched {where} would use undefined names{_for(python)}: " + "; ".join(p.describe() for p in new)
    return None


def placement_error(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, after: bytes, where: str) -> str | None:
    """A definition the patch adds shadows the module's own, or a rewrite lands in dead code."""
    try:
        trees = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"the patched {where} cannot be parsed by radpatch's own Python to check where its code lands ({type(exc).__name__})"
    for check in (proofs.shadowed, proofs.dead_changes):
        found = check(*trees)
        if found:  # which rewrite: the first prefix of them that shows it (only on this refusal path)
            k = proofs.first_failing(len(rws), lambda k: bool(check(ast.parse(before), ast.parse(forward(patch, rws[:k], before, where)))))
            rw = rws[(k or len(rws)) - 1]
            return f"rewrite {rw.id!r} ({rw.where}) on {where}: {found[0]}"
    return None


def _target(python: PythonEnv, before: bytes, after: bytes, where: str) -> targetpy.Verdict:
    return targetpy.check(python.executable, _text(before), after, _text(after), where)


def _for(python: PythonEnv | None) -> str:
    return "" if python is None or targetpy.same_grammar(python.executable, python.version) else f" for Python {python.version[0]}.{python.version[1]}"


def reverse_error(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, after: bytes, where: str) -> str | None:
    try:
        restored = backward(patch, rws, after, where)
    except RefusedError as exc:
        return short(exc)
    return None if restored == before else f"reverse-applying the patch to {where} does not give back the original byte for byte"


def prove(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, after: bytes, where: str, python: PythonEnv | None = None) -> None:
    """Refuse unless `after` compiles (in the target's grammar), adds no unresolvable name, puts
    its code where it runs and reverses to `before` exactly."""
    steps: tuple[tuple[Callable[[], str | None], str], ...] = (
        (lambda: compile_error(after, where, python, before), ""),
        (lambda: names_error(before, after, where, python), "this version's code lacks names the rewrite relies on; declare a variant for it"),
        (lambda: placement_error(patch, rws, before, after, where), "rename the payload definition, or point the rewrite at the definition that runs"),
        (lambda: reverse_error(patch, rws, before, after, where), ""),
    )
    for step, hint in steps:
        why = step()
        if why:
            raise RefusedError(f"{patch.name}: {why}", hint)


def _text(data: bytes) -> str:
    return decode(data)[0]


def plan(patch: Patch, rws: tuple[Rewrite, ...], module: str, path: Path, before: bytes, python: PythonEnv | None = None) -> FileChange:
    where = str(path)
    after = forward(patch, rws, before, where)
    prove(patch, rws, before, after, where, python)
    return FileChange(module, path, before, after)
