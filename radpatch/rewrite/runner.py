"""Run a patch's rewrites over a module's bytes, forward (apply) or backward (undo), in memory.

Each rewrite must match exactly once; a refusal names the rewrite (its id and registry file:line) and is reported
on the file's own line numbers. The result keeps the file's encoding.

`occurrence: N` counts the matches of the installed file, as it is before the entry's rewrites run: `occurrence: 1`
and `occurrence: 2` of one `assert`, as two rewrites, change the installed file's first and second. Forward, the
installed file's N-th match is found again by its position in the file as the rewrites before it left it (its
line, mapped through their edits; on a line they changed, character by character: several rewrites of one call's
arguments, rewrite.line_map). Backward there is no installed file to look at, so the index is worked out from the
entry: N, less the matches that rewrites above it with the same scope and pattern took before it (`_counted`);
forward checks that the two agree, and refuses what backward could not undo.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from radpatch.errors import RefusedError, Undecodable
from radpatch.gcpause import pausing
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite.line_map import Edit, follow, line_map
from radpatch.rewrite.matching import MatchFailure, unexplained
from radpatch.rewrite.refused import RewriteRefused
from radpatch.rewrite.source import Source, declared, decode, refuse_lone_cr

Rws = tuple[Rewrite, ...]
Trace = list[tuple[Rewrite, str, str]]  # each rewrite's (rewrite, text before it, text after it)


def _decode(source: bytes, filename: str) -> tuple[Source, str]:
    try:
        text, encoding = decode(source)
        refuse_lone_cr(text, filename)
        return Source.parse(text), encoding
    except Undecodable as exc:
        raise RefusedError(f"{filename} cannot be decoded as Python source: {exc}")
    except SyntaxError as exc:
        raise RefusedError(
            f"{filename} does not parse as Python: {exc.msg} (line {exc.lineno}; read with Python "
            f"{sys.version_info[0]}.{sys.version_info[1]}'s grammar and libcst's)",
            "check the file; code in a grammar newer than both is patched by a radpatch running on the target's Python",
        )
    except (RecursionError, MemoryError):
        raise RefusedError(
            f"{filename} is nested too deeply for radpatch to analyse", "radpatch cannot prove a patch of this file"
        ) from None


def _step(patch: Patch, rw: Rewrite, src: Source, filename: str, undo: bool) -> Source:
    from radpatch.rewrite import ops  # libcst is loaded only when a rewrite really runs

    try:
        return ops.inverse(src, rw.op) if undo else ops.forward(src, rw.op)
    except MatchFailure as exc:
        detail = f"cannot undo: {exc}" if undo else str(exc)
        raise RewriteRefused(patch, rw, filename, detail, exc.hint, exc) from None
    except (RecursionError, MemoryError):
        raise RewriteRefused(
            patch, rw, filename, "the code is nested too deeply for radpatch to analyse", "simplify the rewrite's code"
        ) from None


def _run(
    patch: Patch, order: Rws, src: Source, filename: str, undo: bool, applied: Rws, trace: Trace | None = None
) -> Source:
    """Apply (or undo) the rewrites in `order` (`applied`: the same, in the order apply runs them).
    A refusal is reported on the file's own lines: where the rewrites run before it moved them, the
    refused one is run again on the file. `trace`: gets each rewrite's (rewrite, text before, text after)."""
    original = src
    lines: dict[int, int] = {n: n for n in range(1, len(src.lines) + 1)}  # the file's line -> its line in src
    edits: list[Edit] = []  # each rewrite's edit so far, to follow a place on a line one changed
    for rw in order:
        moved = src is not original and src.lines != original.lines  # src's line numbers are not the file's
        was = src
        src = _run_one(patch, rw, src, original, (lines, edits), filename, undo, applied, moved)
        if trace is not None:
            trace.append((rw, was.text, src.text))
        if src.lines != was.lines:  # mapped one rewrite at a time: each edit is one region of the file
            step = line_map(was.lines, src.lines)
            lines = {k: step[v] for k, v in lines.items() if v in step}
            edits.append((was.lines, src.lines, getattr(rw.op, "find", None) is None))  # line_map.Edit
    return src


def _run_one(
    patch: Patch,
    rw: Rewrite,
    src: Source,
    original: Source,
    lines: tuple[dict[int, int], list[Edit]],
    filename: str,
    undo: bool,
    applied: tuple[Rewrite, ...],
    moved: bool,
) -> Source:
    """One rewrite of `_run`; `lines` maps the file's lines to their place in `src` (and holds the
    edits that made `src` of the file, to follow a place on a line they changed)."""
    nth = getattr(rw.op, "occurrence", None)
    if isinstance(nth, int):
        counted = _counted(applied, rw, nth)
        if undo:
            run = _same_edit_run(applied, rw, nth)
            rw = _with_occurrence(rw, counted)
            if run is not None:
                from radpatch.rewrite.ops.common.selection import undoing_in_run

                with undoing_in_run(*run):
                    return _step(patch, rw, src, filename, undo)
        elif moved or counted != nth:
            return _forward_counted(patch, rw, nth, counted, src, original, lines, filename)
    try:
        with unexplained(moved):  # a refusal here is reported from the runs below, not from this one
            return _step(patch, rw, src, filename, undo)
    except RewriteRefused:
        if not moved:
            raise
        _step(patch, rw, original, filename, undo)  # its refusal there gives the file's own line numbers
        try:  # it runs on the file but not on what the rewrites run before it made of it: say why
            _step(patch, rw, src, filename, undo)
        except RewriteRefused as exc:
            after = (
                "after undoing the rewrites after it; line numbers count the lines undoing them removed"
                if undo
                else "after the rewrites before it; line numbers count the lines they added"
            )
            raise RewriteRefused(patch, rw, filename, f"{exc.detail} ({after})", exc.hint, exc) from None
        raise
    return src


def _with_occurrence(rw: Rewrite, nth: int) -> Rewrite:
    op: Any = rw.op  # one of the operations with `occurrence:`, each a frozen dataclass
    return dataclasses.replace(rw, op=dataclasses.replace(op, occurrence=nth))


def _same_edit_run(applied: tuple[Rewrite, ...], rw: Rewrite, nth: int) -> tuple[int, int] | None:
    """(index, size) of `rw`'s occurrence in the run of neighbouring installed occurrences that
    rewrites making the same edit (equal but for `occurrence:`) and still applied when `rw` is
    undone (those before it) changed; None when none is next to it."""
    same = _as_occurrence(rw.op, 0)
    before = applied[: next(i for i, r in enumerate(applied) if r is rw)]
    taken = {
        n for r in before if isinstance(n := getattr(r.op, "occurrence", None), int) and _as_occurrence(r.op, 0) == same
    }
    below = next(k for k in range(nth) if nth - 1 - k not in taken)
    above = next(k for k in range(len(taken) + 1) if nth + 1 + k not in taken)
    return None if below == above == 0 else (below, below + 1 + above)


def _as_occurrence(op: object, nth: int) -> object:
    return dataclasses.replace(op, occurrence=nth) if dataclasses.is_dataclass(op) else op  # type: ignore[type-var]


def _counted(applied: tuple[Rewrite, ...], rw: Rewrite, nth: int) -> int:
    """Which match `occurrence: nth` (counted on the installed file) is once the rewrites before
    it have run, as far as the entry says: the rewrites above it that change (CONSUMES) a match of
    the same scope and pattern with a lower `occurrence:` took one match before it each."""
    key = rw.op.match_key()
    before = applied[: next(i for i, r in enumerate(applied) if r is rw)]
    taken = 0
    for r in before:
        n = getattr(r.op, "occurrence", None)
        if r.op.CONSUMES and isinstance(n, int) and n < nth and key is not None and r.op.match_key() == key:
            taken += 1
    return nth - taken


def _forward_counted(
    patch: Patch,
    rw: Rewrite,
    nth: int,
    counted: int,
    src: Source,
    original: Source,
    lines: tuple[dict[int, int], list[Edit]],
    filename: str,
) -> Source:
    """Apply `rw` to the installed file's `nth` match, in `src` (the file as the rewrites before it
    left it): found by its position in the installed file, mapped through their edits (on a line
    they changed, character by character: line_map.follow)."""
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.ops.common.match_probe import probe

    def matches(of: Source) -> list[tuple[int, int]] | None:
        with code_errors():
            return probe(lambda: rw.op.forward(of))

    try:
        installed = matches(original)
    except MatchFailure:
        installed = None
    if installed is None or nth > len(installed):
        return _step(patch, rw, original, filename, undo=False)  # refused there, on the file's own lines
    line, column = installed[nth - 1]
    to = lines[0].get(line)
    where = (to, column) if to is not None else follow(lines[1], line, column)
    try:
        now = matches(src) or []
    except MatchFailure as exc:
        after = "after the rewrites before it; line numbers count the lines they added"
        raise RewriteRefused(patch, rw, filename, f"{exc} ({after})", exc.hint, exc) from None
    if where is None or where not in now:
        raise RewriteRefused(
            patch,
            rw,
            filename,
            f"occurrence {nth}, the installed file's match at line {line}, is changed by the rewrites before it",
            "two rewrites cannot change the same code: write the change in one rewrite, or pick another "
            "occurrence (`occurrence:` counts the installed file's matches)",
        )
    k = now.index(where) + 1
    if k != counted:
        raise RewriteRefused(
            patch,
            rw,
            filename,
            f"occurrence {nth} (the installed file's match at line {line}) is match {k} of the file as the "
            f"rewrites before it leave it, and {counted} by the entry's count: radpatch could not undo it",
            "the entry counts the matches that rewrites above it took only when they have the same scope, "
            "pattern and `within:`: move this rewrite above the ones that change its other matches, or "
            "give them the same scope and pattern",
        )
    return _step(patch, _with_occurrence(rw, k), src, filename, undo=False)


@pausing
def forward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, filename: str) -> bytes:
    src, encoding = _decode(source, filename)
    original = src
    src = _run(patch, rws, src, filename, undo=False, applied=rws)
    if not source and src.text:  # no file before (create_module): written as its content declares
        try:
            encoding = declared(src.text)
        except Undecodable as exc:
            raise RefusedError(f"{patch.name}: the new {filename} declares an encoding Python lacks: {exc}") from None
    if src.lines != original.lines:  # a rewrite ran: libcst and the operations are loaded
        from radpatch.rewrite.ops.common.import_lines import imports_before_uses

        src = imports_before_uses(original, src)
    try:
        return _encode(src, encoding, filename)
    except RefusedError as exc:  # name the rewrite whose code the encoding lacks (only on this refusal path)
        for k, rw in enumerate(rws):  # each prefix as apply runs it (occurrences counted on the file)
            src = _run(patch, rws[: k + 1], original, filename, undo=False, applied=rws)
            try:
                src.text.encode(encoding)
            except UnicodeEncodeError as bad:
                raise RewriteRefused(
                    patch,
                    rw,
                    filename,
                    f"its code cannot be written in the file's encoding {encoding}: "
                    f"{bad.object[bad.start : bad.end]!r} ({bad.reason})",
                    exc.hint,
                ) from None
        raise RefusedError(f"{patch.name}: {exc.message}", exc.hint) from None


@pausing
def steps(patch: Patch, rws: Rws, source: bytes, filename: str) -> Trace:
    """Each rewrite's edit as forward makes it, in order: (rewrite, the text before it, after it)."""
    trace: Trace = []
    _run(patch, rws, _decode(source, filename)[0], filename, undo=False, applied=rws, trace=trace)
    return trace


@pausing
def backward(patch: Patch, rws: tuple[Rewrite, ...], source: bytes, filename: str) -> bytes:
    """The structural inverse: code AST-equal to the original (not necessarily its bytes)."""
    src, encoding = _decode(source, filename)
    return _encode(_run(patch, tuple(reversed(rws)), src, filename, undo=True, applied=rws), encoding, filename)


def _encode(src: Source, encoding: str, filename: str) -> bytes:
    try:
        return src.text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise RefusedError(
            f"the patched {filename} cannot be written in its encoding {encoding}: {exc.reason}",
            "write the rewrite's code in characters the file's encoding has (or as escapes)",
        ) from None
