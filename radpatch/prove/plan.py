"""Plan a patch in memory and prove it before anything is written.

For each file: apply every rewrite (each must match exactly once), compile() the result, check
that it introduces no undefined name, and prove it can be undone: backward(after) is AST-equal
to the original, and forward(backward(after)) == after (status recognises the patched form, and
a second apply is a no-op). The proof never depends on the layout `find` was typed in; revert
writes the exact original bytes radpatch keeps (state/record.py).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

from radpatch.errors import RefusedError
from radpatch.files import checked_pyc
from radpatch.gcpause import paused, pausing
from radpatch.install import target_python
from radpatch.install.environment import PythonEnv
from radpatch.prove import names, placement
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite.matching import MatchFailure, unexplained
from radpatch.rewrite.source import Source, Undecodable, decode, remember


@dataclass(frozen=True)
class FileChange:
    module: str
    path: Path
    before: bytes
    after: bytes
    pristine: bytes | None = None  # the unpatched file, when `before` is not it (re-applying a new revision)
    pyc: bytes | None = None  # `after`'s checked-hash .pyc, when this interpreter compiled it for the proof

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


@dataclass(frozen=True)
class _Analysis:
    """What the names and placement proofs need of one version of a module, from one parse of
    it, which also gives the rewrites their index of it (source.remember): the tree is freed
    before another version is parsed, so one whole-module tree is alive at a time. compile()
    runs on the bytes, separately (_compiled): compiling the tree would hold it and the
    compiler's own copy of it at once."""

    problems: tuple[names.Problem, ...] | None  # None: not parsed, or too deeply nested to walk
    placement: placement.Placement | None  # None: not parsed, or too deeply nested to walk
    unparsed: str = ""  # why radpatch's own Python could not analyse it (the exception's name)


def _why(exc: SyntaxError | ValueError) -> str:
    return f"{getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"


def _compiled(data: bytes, filename: str) -> tuple[str | None, CodeType | None]:
    """(why `data` does not compile ("message (line N)"), None), or (None, its code)."""
    try:
        return None, compile(data, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return _why(exc), None
    except (RecursionError, MemoryError):
        return "too deeply nested to compile", None


@functools.lru_cache(maxsize=4)
def _analysis(data: bytes) -> _Analysis:
    with paused():
        try:
            text: str | None = decode(data)[0]
        except Undecodable:
            text = None  # ast.parse says why
        try:
            tree = ast.parse(data if text is None else text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return _Analysis(None, None, type(exc).__name__)
        if text is not None:
            remember(text, tree)  # the rewrites' own index of this text: no second parse
        try:
            found: tuple[names.Problem, ...] | None = tuple(names.problems_in(tree))
        except (RecursionError, MemoryError):
            found = None
        try:
            return _Analysis(found, placement.placement(tree))
        except (RecursionError, MemoryError) as exc:
            return _Analysis(found, None, type(exc).__name__)


def compile_error(after: bytes, where: str, python: PythonEnv | None = None, before: bytes | None = None) -> str | None:
    """Compiled with the target interpreter's grammar (asked directly when it is another version)."""
    return _compile(after, where, python, before, want_pyc=False)[0]


def _compile(
    after: bytes, where: str, python: PythonEnv | None, before: bytes | None, want_pyc: bool = True
) -> tuple[str | None, bytes | None]:
    """(why `after` does not compile, None), or (None, its checked-hash .pyc when this
    interpreter compiled it: the bytecode apply writes, so the file is compiled once)."""
    out = None
    if python is not None and not target_python.same_grammar(python.executable, python.version):
        why = _target(python, before if before is not None else after, after, where).compile_error
    else:
        why, code = _compiled(after, where)
        out = checked_pyc(after, code) if code is not None and want_pyc else None
        del code  # the marshalled bytes are a fraction of the code objects: free them before the next proof
    return (None, out) if why is None else (f"the patched {where} does not compile{_for(python)}: {why}", None)


def _introduced(before: bytes, after: bytes) -> list[names.Problem] | None:
    """Names `after` cannot resolve that `before` could (None when either could not be walked)."""
    old, new = _analysis(before).problems, _analysis(after).problems
    return None if old is None or new is None else names.new_problems(old, new)


@pausing
def names_error(before: bytes, after: bytes, where: str, python: PythonEnv | None = None) -> str | None:
    """Names the patch makes unresolvable at run time (see names.py), each with its line."""
    new: list[names.Problem] | None
    if python is not None and not target_python.same_grammar(python.executable, python.version):
        try:
            new = list(_target(python, before, after, where).problems)
        except (RecursionError, MemoryError):
            new = None
    else:
        new = _introduced(before, after)
    if new is None:
        unparsed = _analysis(before).unparsed or _analysis(after).unparsed
        if unparsed in ("SyntaxError", "ValueError"):
            return f"the patched {where} cannot be parsed by radpatch's own Python to check its names ({unparsed})"
        return f"the patched {where} is too deeply nested to check its names"
    if new:
        return f"the patched {where} would use undefined names{_for(python)}: " + "; ".join(p.describe() for p in new)
    return None


def _placed(
    check: Callable[[placement.Placement, placement.Placement], list[str]], before: bytes, after: bytes
) -> list[str]:
    old, new = _analysis(before).placement, _analysis(after).placement
    return [] if old is None or new is None else check(old, new)


@pausing
def placement_error(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, after: bytes, where: str) -> str | None:
    """A definition the patch adds shadows the module's own, or a rewrite lands in dead code."""
    old, new = _analysis(before), _analysis(after)
    if old.placement is None or new.placement is None:
        return (
            f"the patched {where} cannot be parsed by radpatch's own Python to check where its code lands "
            f"({old.unparsed or new.unparsed})"
        )
    for check in (placement.shadowed, placement.dead_changes):
        found = check(old.placement, new.placement)
        if found:  # which rewrite: the first prefix of them that shows it (only on this refusal path)
            k = placement.first_failing(
                len(rws), lambda k: bool(_placed(check, before, forward(patch, rws[:k], before, where)))
            )
            rw = rws[(k or len(rws)) - 1]
            return f"rewrite {rw.id!r} ({rw.where}) on {where}: {found[0]}"
    return None


def _target(python: PythonEnv, before: bytes, after: bytes, where: str) -> target_python.Verdict:
    return target_python.check(python.executable, _text(before), after, _text(after), where)


def _for(python: PythonEnv | None) -> str:
    return (
        ""
        if python is None or target_python.same_grammar(python.executable, python.version)
        else f" for Python {python.version[0]}.{python.version[1]}"
    )


@pausing
def ast_equal(a: bytes, b: bytes) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def reverse_check(
    before: bytes, after: bytes, backward_: Callable[[bytes], bytes], forward_: Callable[[bytes], bytes], where: str
) -> str | None:
    """The reverse proof: None, or why the patched `after` cannot be undone. backward(after) must be
    AST-equal to `before` and forward(backward(after)) must give `after` again."""
    try:
        restored = backward_(after)
        if restored == before:  # forward is a function of the bytes: forward(restored) is `after`
            return None
        if not ast_equal(restored, before):
            return f"undoing the patch on {where} does not give back the original code (compared as syntax trees)"
        if forward_(restored) != after:
            return f"the patched {where} is not stable: undoing and re-applying the patch gives different code"
    except RefusedError as exc:
        return short(exc)
    return None


@pausing
def reverse_error(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, after: bytes, where: str) -> str | None:
    why = reverse_check(
        before, after, lambda d: backward(patch, rws, d, where), lambda d: forward(patch, rws, d, where), where
    )
    return None if why is None else _blame(patch, rws, before, where) or why


def _blame(patch: Patch, rws: tuple[Rewrite, ...], before: bytes, where: str) -> str | None:
    """The first rewrite whose own step does not undo, named with its registry file:line."""
    for k in range(len(rws)):
        one = rws[k : k + 1]
        try:
            prior = forward(patch, rws[:k], before, where)
            after = forward(patch, one, prior, where)
        except RefusedError:
            return None
        why = reverse_check(
            prior, after, lambda d: backward(patch, one, d, where), lambda d: forward(patch, one, d, where), where
        )
        if why is not None:
            return why if why.startswith("rewrite ") else f"rewrite {rws[k].id!r} ({rws[k].where}): {why}"
    return None


NAMES_HINT = (
    "every name the patched code uses must be defined: import it first (an `add_import` rewrite before it, "
    "or the import in the payload), keep the code that defines it, or, if this version lacks it, declare a `versions:` variant"
)


@pausing
def prove(
    patch: Patch, rws: tuple[Rewrite, ...], before: bytes, after: bytes, where: str, python: PythonEnv | None = None
) -> bytes | None:
    """Refuse unless `after` compiles (in the target's grammar), adds no unresolvable name, puts
    its code where it runs and reverses to `before`. A refusal names the first rewrite that
    causes it (its id and registry file:line). Returns `after`'s checked-hash .pyc when this
    interpreter compiled it (None when another interpreter was asked)."""
    why, pyc = _compile(after, where, python, before)
    if why:
        culprit = _first(patch, rws, before, where, lambda d: compile_error(d, where, python, before) is not None)
        _refuse(patch, culprit, where, why, "fix the rewrite's code so the patched file is valid Python at that place")
    why = names_error(before, after, where, python)
    if why:
        missing = {p.key for p in _introduced(before, after) or ()}
        culprit = _first(
            patch, rws, before, where, lambda d: bool(missing & {p.key for p in _introduced(before, d) or ()})
        )
        _refuse(patch, culprit, where, why, NAMES_HINT)
    why = placement_error(patch, rws, before, after, where)
    if why:
        raise RefusedError(
            f"{patch.name}: {why}", "rename the payload definition, or point the rewrite at the definition that runs"
        )
    why = reverse_error(patch, rws, before, after, where)
    if why:
        raise RefusedError(
            f"{patch.name}: {why}",
            "the rewrite cannot be undone as written: make `find`/`with` name distinct code (narrow with `within:`)",
        )
    return pyc


def _refuse(patch: Patch, culprit: Rewrite | None, where: str, why: str, hint: str) -> None:
    if culprit is None:
        raise RefusedError(f"{patch.name}: {why}", hint)
    raise RefusedError(f"{patch.name}: rewrite {culprit.id!r} ({culprit.where}): {why}", hint)


def _first(
    patch: Patch, rws: tuple[Rewrite, ...], before: bytes, where: str, bad: Callable[[bytes], bool]
) -> Rewrite | None:
    """The first rewrite after which the file is `bad` (None when a prefix cannot be planned)."""
    data = before
    for rw in rws:
        try:
            data = forward(patch, (rw,), data, where)
        except RefusedError:
            return None
        try:
            if bad(data):
                return rw
        except (SyntaxError, ValueError):  # an intermediate state symtable cannot read: keep going
            continue
    return None


def _text(data: bytes) -> str:
    return decode(data)[0]


@pausing
def plan(
    patch: Patch, rws: tuple[Rewrite, ...], module: str, path: Path, before: bytes, python: PythonEnv | None = None
) -> FileChange:
    where = str(path)
    _analysis(before)  # one parse of the original, for its proofs and the rewrites' index both
    after = forward(patch, rws, before, where)
    pyc = prove(patch, rws, before, after, where, python)
    return FileChange(module, path, before, after, pyc=pyc)
