"""Take a patch off a file: the kept original when the file is exactly as radpatch left it, else
the structural inverse (rewrite.runner.backward), accepted only when it is provably the recorded
original (byte for byte, or its code when only comments and layout were edited since). `revert`
runs it, and `apply` for a patch it re-applies in its current revision."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from radpatch import source_lines
from radpatch.errors import RefusedError
from radpatch.files import read_regular
from radpatch.prove import plan
from radpatch.prove.form import changed_scopes
from radpatch.prove.same_code import same_code, unreadable_here
from radpatch.registry.model import Rewrite
from radpatch.rewrite import runner
from radpatch.rewrite.ops.create_module import CreateModule
from radpatch.rewrite.refused import short
from radpatch.state import composed, kept, owner
from radpatch.state.code_hashes import code_hash
from radpatch.state.decide import PatchState, State, reinstall_hint
from radpatch.state.record import FileRecord, Store, sha256
from radpatch.state.restack import stacked_above, together

Say = Callable[[str], None]
Overlay = dict[Path, "bytes | None"]  # each file as the run's earlier changes leave it (None: no file)


def take_off(
    ps: PatchState,
    named: set[str],
    overlay: Overlay,
    say: Say,
    deleted: dict[Path, tuple[Path, ...]],
    only: frozenset[str] | None = None,
) -> list[plan.PlannedFile]:
    """Take the patch off every file its record names (or those of them in `only`: the others are
    as they were before it already), each from what the run's earlier changes left of it: the kept
    original when the file is exactly as radpatch left it, else the structural inverse, accepted
    only when it is provably the recorded original's code. A file the patch created comes off as no
    file (`deleted` gets it, with the directories made for it)."""
    assert ps.record is not None and ps.root is not None
    out = []
    for rec in ps.record.files:
        if only is not None and rec.path not in only:
            continue
        later = [n for n in stacked_above(ps, rec) if n not in named]
        if later:
            raise RefusedError(
                f"{ps.patch.name}: {rec.path} also carries {', '.join(later)}, applied on top of it",
                "revert them together: radpatch revert "
                + " ".join(together(ps.root, [*named, ps.patch.name], [ps.patch.name])),
            )
        path = ps.root / rec.path
        current = current_bytes(ps.patch.name, path, overlay, reinstall_hint(ps))
        pristine = _restored(ps, rec, current, say)
        overlay[path] = pristine
        if pristine is None:
            deleted[path] = tuple(ps.root / d for d in rec.made_dirs)
        out.append(plan.PlannedFile(rec.module, path, current, pristine or b""))
    return out


def own_record(ps: PatchState, overlay: Overlay) -> PatchState | None:
    """`ps`, applied with no record for this install, with its record of another install as its record,
    when every file of it is a module that record shows radpatch wrote from no file, exactly (state.owner:
    pip left it in place): no install owns those bytes, so revert takes it off by that record. Else None."""
    rec = ps.stale
    if rec is None or ps.root is None or ps.state is not State.APPLIED or not ps.files:
        return None
    store, paths = Store(ps.root), {f.relpath for f in ps.files}
    for f in ps.files:
        data = overlay[f.path] if f.path in overlay else f.data if f.exists else None
        if f.wheel_record_sha256 is not None or ps.patch.name not in owner.product(store, f.relpath, data):
            return None
    return replace(ps, record=rec) if {r.path for r in rec.files} == paths else None


def _restored(ps: PatchState, rec: FileRecord, current: bytes, say: Say) -> bytes | None:
    """What the file of `rec` becomes when `ps.patch` comes off it (None: no file, it created it)."""
    assert ps.root is not None
    store = Store(ps.root)
    wheel = next((f.wheel_record_sha256 for f in ps.files if f.relpath == rec.path), None)
    if owner.unproven(rec) and not _content_file(ps, rec, current):  # an older record: it stays (state.owner)
        return current
    if rec.created:
        if sha256(current) != rec.patched_sha256:  # edited since: deleted only if its code is still the patch's
            _layout_edited(ps, rec, current, store, say)
        return None
    if sha256(current) == rec.patched_sha256:
        kept = store.original(rec.original_sha256)
        if kept is not None:
            return kept
        return inverse_checked(
            ps,
            rec.path,
            _rewrites_of(ps, rec.path),
            current,
            {rec.original_sha256, wheel or rec.original_sha256},
            "its kept original is gone from .radpatch/originals/",
        )
    by_hand = composed.without(store, rec, current)  # others on it taken off by hand (a dry run: state.realign)
    return by_hand if by_hand is not None else _layout_edited(ps, rec, current, store, say)


def _content_file(ps: PatchState, rec: FileRecord, current: bytes) -> bool:
    """A module an older record (state.owner.unproven) says radpatch created that is still exactly the
    bytes recorded and one of the entry's content files: the registry holds them, so revert deletes it
    as radpatch did before format 6. Other bytes (a hand-written module adopted AST-equal) stay."""
    same = sha256(current) == rec.patched_sha256
    return same and any(isinstance(rw.op, CreateModule) and rw.op.data == current for rw in ps.patch.rewrites)


def _rewrites_of(ps: PatchState, relpath: str) -> tuple[Rewrite, ...]:
    """The current revision's rewrites of `relpath` (what undoes the patch structurally), or
    refused when it has none: an earlier revision patched the file and the current one moved."""
    found = ps.read_files
    rws = (
        next((t.rewritten.rewrites for t in found if t.rewritten.relpath == relpath), ())
        if not isinstance(found, RefusedError)
        else ()
    )
    if not rws and ps.patch.from_record:
        raise RefusedError(
            f"{ps.patch.name}: {relpath} is not exactly as radpatch left it, and no registry given has the entry, "
            "so nothing can undo its change structurally (only a file exactly as radpatch left it gets its "
            "kept original back from the record alone)",
            f"give the registry that holds {ps.patch.name} (--registry DIR) and revert again, or put the file "
            f"back to the installed bytes (radpatch restore {relpath})",
        )
    if not rws:
        raise RefusedError(
            f"{ps.patch.name}: {relpath} is not exactly as radpatch left it, and the entry's current "
            "revision does not rewrite it, so nothing can undo the earlier revision's change structurally",
            reinstall_hint(ps),
        )
    return rws


def inverse_checked(
    ps: PatchState, relpath: str, rws: tuple[Rewrite, ...], current: bytes, accept: set[str], why: str
) -> bytes:
    """The structural inverse, only if it is byte for byte a known original (recorded or RECORD's)."""
    assert ps.root is not None
    try:
        pristine = runner.backward(ps.patch, rws, current, str(ps.root / relpath))
    except RefusedError as exc:
        raise RefusedError(
            f"{ps.patch.name}: cannot revert {relpath} ({why}): undoing the patch stops at {short(exc)}",
            reinstall_hint(ps),
        )
    if sha256(pristine) not in accept:
        raise RefusedError(
            f"{ps.patch.name}: cannot revert {relpath} byte for byte ({why}, and undoing the patch does not "
            "give back the recorded original or the file in the distribution's RECORD)",
            reinstall_hint(ps),
        )
    return pristine


def _layout_edited(ps: PatchState, rec: FileRecord, current: bytes, store: Store, say: Say) -> bytes:
    """A patched file someone touched since (status judged its code unchanged): undo the patch
    structurally and keep their comment and layout edits, when the result is the recorded
    original's code; else refuse."""
    assert ps.root is not None
    applied = _by_applied_revision(rec, current, store)
    if applied is not None:
        say(f"{ps.patch.name}: note: {rec.path} had comment or layout edits since it was patched; they are kept")
        return applied
    rws = _rewrites_of(ps, rec.path)
    try:
        pristine = runner.backward(ps.patch, rws, current, str(ps.root / rec.path))
    except RefusedError as exc:
        raise RefusedError(
            f"{ps.patch.name}: cannot revert {rec.path}: undoing the patch stops at {short(exc)}"
            f"{_older_record(ps, rec, store)}",
            reinstall_hint(ps),
        )
    if sha256(pristine) == rec.original_sha256 or rec.created and not pristine.strip():
        return pristine
    same = bool(rec.original_code) and code_hash(pristine) == rec.original_code
    if not same and not rec.original_code:  # a record from before code hashes: compare with the kept original
        original = store.original(rec.original_sha256)
        if original is not None and (unreadable_here(original) or unreadable_here(pristine)):
            same = same_code(original, pristine, ps.dist.python if ps.dist else "") is True
        else:
            same = original is not None and not changed_scopes(original, pristine)
    if same:
        say(f"{ps.patch.name}: note: {rec.path} had comment or layout edits since it was patched; they are kept")
        return pristine
    gone = _markers_gone(rec, current, store)
    raise RefusedError(
        f"{ps.patch.name}: reverting {rec.path} would not give back the recorded original "
        f"(sha256 {rec.original_sha256[:12]}…){_older_record(ps, rec, store)}"
        + (f": the `{gone}` comment radpatch wrote is gone, and the undo finds what it added by it" if gone else ""),
        ("put the comment back where it was, or " if gone else "the file's code was edited since it was patched; ")
        + f"put it back to the installed bytes instead (radpatch restore {rec.path})",
    )


def _markers_gone(rec: FileRecord, current: bytes, store: Store) -> str:
    """A `# radpatch: ...` comment the patched file had and the file no longer has (att60 F06: taken away by
    hand, the code unchanged: the undo cannot tell the import it added from the file's own), or ""."""
    patched = store.original(rec.patched_sha256)
    if patched is None:
        return ""
    now = current.decode("utf-8", "replace")
    marks = [line.strip() for line in source_lines.split(patched.decode("utf-8", "replace")) if "# radpatch: " in line]
    return next((m[m.index("# radpatch: ") :] for m in marks if m not in now), "")


def _older_record(ps: PatchState, rec: FileRecord, store: Store) -> str:
    """Why the applied revision could not be taken off instead, when that is the reason: the record
    is from before results were kept and the entry was revised since ("" otherwise)."""
    if ps.record is None or ps.record.registry_digest == ps.patch.digest or store.original(rec.patched_sha256):
        return ""
    return (
        " (the entry was revised since it was applied, and radpatch's record, from an older radpatch, kept no "
        "copy of what the applied revision wrote, to tell its change from the edits beside it)"
    )


def _by_applied_revision(rec: FileRecord, current: bytes, store: Store) -> bytes | None:
    """The patch taken off as it was applied, whatever the entry says now: the edits someone made
    to the kept result (comment and layout only, status judged) carried over onto the kept
    original, line by line, when they touch no line the patch changed. None when either is not
    known (kept, or rebuilt for a record from before results were kept: state.kept), the edits meet
    the patch's, or the outcome is not the recorded original's code."""
    original, patched = store.original(rec.original_sha256), kept.result(rec, current, store)
    if original is None or patched is None or not rec.original_code:
        return None
    base, mine, theirs = (b.splitlines(keepends=True) for b in (patched, current, original))
    edits = sorted([*kept.edits(base, mine), *kept.edits(base, theirs)], key=lambda e: (e[0], e[1]))
    inserts = [e[0] for e in edits if e[0] == e[1]]
    if len(set(inserts)) < len(inserts):
        return None  # two insertions at one place: which goes first is not known
    out: list[bytes] = []
    at = 0
    for start, end, lines in edits:  # an insertion goes before a change starting where it is
        if start < at:
            return None  # the edits overlap
        out += base[at:start] + lines
        at = end
    merged = b"".join(out + base[at:])
    return merged if code_hash(merged) == rec.original_code else None


def current_bytes(name: str, path: Path, overlay: Overlay, hint: str) -> bytes:
    """The file's bytes as the run leaves them so far (`overlay`: what earlier steps of it wrote), else as on
    disk; refused for patch `name` with `hint` where it cannot be read (for revert and write.uninstalled)."""
    current = overlay.get(path)
    if current is not None:
        return current
    try:
        return read_regular(path)
    except OSError as exc:
        raise RefusedError(f"{name}: cannot read {path}: {exc.strerror}", hint) from None
