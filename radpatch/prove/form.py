"""How a file's code reads by the patch's rewrites (libcst), when its hashes cannot decide: in
the patched form (undoing and re-applying the patch gives it back), in the unpatched form, or
neither. state.decide asks it through the `Judge` it is given (status and apply pass `judge`);
apply asks it again before planning a patch (does the install already carry what it adds?).
libcst is loaded only inside these functions: `status` imports this module, and stays on hashes
when they decide."""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Callable

from radpatch.errors import RefusedError
from radpatch.gcpause import pausing
from radpatch.prove.edited import edited_over_stack
from radpatch.prove.refusal import NOT_IN_EFFECT
from radpatch.prove.round_trips import carries as carries  # verify's proof imports them from here too
from radpatch.prove.round_trips import round_trip as round_trip
from radpatch.prove.round_trips import still_unpatched
from radpatch.prove.same_code import same_code, unreadable_here
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.state import verified
from radpatch.state.decide import FileState, PatchState, State
from radpatch.state.record import FileRecord, Store, sha256
from radpatch.state.stack import own_base, trusted_names


def judge(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    data: bytes,
    filename: str,
    recorded: FileRecord | None,
    store: Store,
    python: str = "",
) -> tuple[State, str]:
    """The state of a file whose hashes cannot decide (state.decide.Judge), from the rewrites:
    applied when undoing and re-applying the patch reproduces it (drifted when code outside the
    patch changed since radpatch wrote it), not applied when the patch applies to it, else drifted.
    Drifted under recorded patches stacked above this one: the detail names what changed since the
    stack's last patch wrote the file (prove.edited), not the patches' own recorded changes."""
    state, detail = _judge(patch, rws, data, filename, recorded, store, python)
    if state is State.DRIFTED and recorded is not None:
        over = edited_over_stack(store, recorded, data)
        if over:
            return state, over
    return state, detail


def _judge(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    data: bytes,
    filename: str,
    recorded: FileRecord | None,
    store: Store,
    python: str,
) -> tuple[State, str]:
    from radpatch.rewrite import runner
    from radpatch.rewrite.ops.common import kept_trees
    from radpatch.rewrite.refused import short

    with kept_trees():  # undoing and applying read the same definitions
        trip = round_trip(patch, rws, data, filename)
        undo = trip.stops
        if trip.patched and not recorded and not carries(patch, rws, data, filename, trip=trip):
            return State.NOT_APPLIED, ""
        if trip.patched and not recorded and not verified.in_effect(patch)(data):
            return State.NOT_APPLIED, NOT_IN_EFFECT  # verify read it against a release the entry is written for
        if trip.patched:
            edited = _edited_since_patched(patch, rws, data, filename, recorded, store, python) if recorded else ""
            return (State.DRIFTED, edited) if edited else (State.APPLIED, "")
        try:
            runner.forward(patch, rws, data, filename)
        except RefusedError as exc:
            if patch.requires and not recorded:
                # an entry of a series rewrites what its requirements leave: on a file radpatch never
                # patched, matching neither form on its own says the requirements come first, not that
                # someone changed the file (apply runs and proves them all before it writes anything)
                first = ", ".join(patch.requires)
                return (
                    State.NOT_APPLIED,
                    f"it rewrites what {first} leaves: {first} comes first",
                )
            part = "" if recorded else carried_part(patch, rws, data, filename)
            return (
                State.DRIFTED,
                f"{part}matches neither form: applying stops at {short(exc)}; undoing stops at {undo}",
            )
    if recorded:  # radpatch patched it, and the patch no longer reads as applied: its own code was edited
        return State.DRIFTED, f"radpatch's patch was edited since it was applied (undoing it stops at {undo})"
    return State.NOT_APPLIED, ""


def carried_part(patch: Patch, rws: tuple[Rewrite, ...], data: bytes, filename: str) -> str:
    """A file radpatch has no record of that carries some of the file's rewrites and not the others
    (a half-applied hand edit), in words first ("carries 1 of 3 rewrites ('a'; not 'b', 'c'): "),
    each rewrite judged by its own round trip; "" when it carries none (att20b F3)."""
    if len(rws) < 2:
        return ""
    held = [rw.id for rw in rws if round_trip(patch, (rw,), data, filename).patched]
    if not held:
        return ""
    lacks = [rw.id for rw in rws if rw.id not in held]
    quoted = ", ".join(repr(i) for i in held), ", ".join(repr(i) for i in lacks)
    return f"carries {len(held)} of {len(rws)} rewrites ({quoted[0]}; not {quoted[1]}): "


def _edited_since_patched(
    patch: Patch, rws: tuple[Rewrite, ...], data: bytes, filename: str, recorded: FileRecord, store: Store, python: str
) -> str:
    """Why a file that still carries the patch counts as drifted, or "" if it does not: code
    outside the patch changed since radpatch wrote it (comments and layout do not count). Code
    radpatch's Python cannot read is compared by the target interpreter `python` (same_code)."""
    from radpatch.rewrite import runner  # libcst: only when the hashes cannot decide

    pristine = runner.backward(patch, rws, data, filename)
    if sha256(pristine) == recorded.original_sha256:
        return ""
    original = store.original(recorded.original_sha256)
    if original is None:
        return "changed since radpatch patched it (and its original is not kept to compare with)"
    why = unreadable_here(original) or unreadable_here(pristine)
    if why:
        same = same_code(original, pristine, python)
        if same is None:
            return f"{why}, nor can the target's Python be asked: whether its code changed since is not told"
        return "" if same else "edited since radpatch patched it: its code changed (compared by the target's Python)"
    differ = changed_scopes(original, pristine)
    return f"edited since radpatch patched it: {', '.join(differ)} changed" if differ else ""


@pausing
def changed_scopes(a: bytes, b: bytes) -> list[str]:
    """Top-level definitions (or `<module>`) whose code differs between two versions of a file.
    Order is code too: top-level statements that moved count as changed."""

    def scopes(data: bytes) -> list[tuple[str, str]]:
        out = []
        for node in ast.parse(data).body:
            name = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else "<module>"
            out.append((name, ast.dump(node)))
        return out

    def grouped(items: list[tuple[str, str]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name, dump in items:
            out.setdefault(name, []).append(dump)
        return out

    old, new = scopes(a), scopes(b)
    g_old, g_new = grouped(old), grouped(new)
    differ = {n for n in g_old.keys() | g_new.keys() if g_old.get(n) != g_new.get(n)}
    if not differ and old != new:  # the same statements in another order
        moved = {name for pair in zip(old, new) if pair[0] != pair[1] for name in (pair[0][0], pair[1][0])}
        return [f"{n} (moved)" for n in sorted(moved)]
    return sorted(differ)


def refuse_if_present(ps: PatchState, f: FileState, data: bytes) -> None:
    """The installed code already carries what the patch (or one of its inserts) adds: applying
    would add it a second time. Refused: only the entry's author can tell upstream took the change.
    (A replace whose `with` is there already fails its own proof; an insert would not.)
    `data`: the text it is planned on. Code radpatch's own entries put there does not count: it must
    also be there without them, in the file before this run's earlier changes (`f.data`) with the
    trusted records of the other entries taken off (state.stack.own_base: the kept original when it is
    exactly their work on the wheel's bytes, else each taken off as applied, someone's other edits and
    this entry's own code kept). A one-gap twin inserting the same statement put its own copy there;
    this entry adds another (att23d F2, att23e G3)."""
    dist = ps.dist
    assert dist is not None
    found = _present(ps, f, data)
    if found is None:
        return
    if not f.exists:
        return  # no file before the run: whatever it holds, this run's entries wrote
    store, name = Store(dist.root), ps.patch.name
    wheel = f.wheel_record_sha256 or dist.recorded_sha256(f.relpath)
    base = own_base(store, f.relpath, f.data, wheel, name, trusted_names(store, dist, ps.dist_record))
    if base != data and _present(ps, f, base) is None:
        return
    present, what = found
    missing = _nothing_taken(ps, f, present, data)
    if missing is not None:
        raise missing
    hints = {rw.op.present_hint() for rw in present}
    twin = hints.pop() if len(hints) == 1 else ""  # a hint every rewrite found present gives
    raise RefusedError(
        f"{ps.patch.name}: {f.relpath} of {dist.name} {dist.version} already contains {what}; "
        "applying would add it a second time",
        f"if upstream took the change, declare {dist.version} in the entry's `obsolete:` "
        f"or limit the rewrite's `versions:` (`radpatch verify {ps.patch.name}` checks every release){twin}",
    )


def _nothing_taken(ps: PatchState, f: FileState, present: list[Rewrite], data: bytes) -> RefusedError | None:
    """A file reads as patched by rewrites that take something away only because it lacks what they
    name (a typo in `element:`, or code upstream never had): when every rewrite of the file takes
    something away, the refusal is the first one's own no-match (what is missing, the closest
    candidates), not "already contains" with its `obsolete:` hint, which holds only where the rest
    of the rewrites' result is there too."""
    if not present or not all(rw.op.takes_away() for rw in f.rewrites):
        return None
    from radpatch.rewrite.runner import forward

    for rw in present:
        try:
            forward(ps.patch, (rw,), data, str(f.path))
        except RefusedError as exc:
            return exc
    return None


def _present(ps: PatchState, f: FileState, data: bytes) -> tuple[list[Rewrite], str] | None:
    """The rewrites whose result `data` already holds, and what that is in words; None: none."""
    return present(ps.patch, f.rewrites, data, str(f.path), verified.in_effect(ps.patch))


def present(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    data: bytes,
    filename: str,
    in_effect: Callable[[bytes], bool] | None = None,
) -> tuple[list[Rewrite], str] | None:
    """The one per-rewrite judgement of what a file's code already holds of a patch (one file's
    rewrites `rws`): every rewrite (it reads as patched: carries), or the inserts whose code is
    already at their anchor (applied again, they would add it a second time), with what that is in
    words; None: none. apply refuses on it (refuse_if_present); verify's pristine check asks it of
    the release's file (releases.proof), so a release that carries part of the change is not `pass`."""
    text = data.decode("utf-8", "replace")
    memo: list[str | None] = []

    def unparsed() -> str | None:  # the file as ast.unparse writes it, once
        if not memo:
            memo.append(_unparsed(text))
        return memo[0]

    maybe = [rw for rw in rws if _may_hold(rw.op, text, unparsed)]
    if still_unpatched(patch, rws, data, filename):
        return None  # `with` lies inside the unpatched `find` (`int(x)` -> `x`): nothing of the patch is there
    if len(maybe) == len(rws) and carries(patch, rws, data, filename, in_effect=in_effect):
        return list(rws), "what the patch adds (it reads as patched although radpatch did not patch it)"
    repeatable = [rw for rw in maybe if rw.op.REPEATABLE and len(rws) > 1]
    found = [rw for rw in repeatable if round_trip(patch, (rw,), data, filename).patched]
    if not found:
        return None
    return found, f"what rewrite {', '.join(repr(r.id) for r in found)} adds"


def _may_hold(op: Operation, text: str, unparsed: Callable[[], str | None]) -> bool:
    """The operation's cheap text test (may_be_present) on the file as written or, when that says
    no, on the file (`unparsed`) and the operation's code both as ast.unparse writes them: code
    upstream wrote with other spacing, quotes, comments or redundant parentheses is still the same
    code (the round trip, AST-compared, then decides)."""
    if op.may_be_present(text):
        return True
    spelled = {f.name: _unparsed(getattr(op, f.name)) for f in op.FIELDS if f.kind == "code"}
    changes = {k: v for k, v in spelled.items() if v is not None}
    normal_text = unparsed() if changes and dataclasses.is_dataclass(op) else None
    if normal_text is None:
        return False
    try:
        return dataclasses.replace(op, **changes).may_be_present(normal_text)
    except (TypeError, ValueError):  # an operation that checks its fields on construction
        return False


def _unparsed(code: object) -> str | None:
    """`code` (a file's text or an operation's code field) as ast.unparse writes it; None when it is
    not code."""
    if not isinstance(code, str):
        return None
    try:
        return ast.unparse(ast.parse(textwrap.dedent(code)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
