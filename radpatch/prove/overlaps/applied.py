"""Overlaps with entries already applied whose registry this run does not load (a later build stage
run with another `--registry`): their record says what they changed (state.touched), so a loaded
entry is compared with that. A record that does not say (written before it was kept) leaves the
overlap unknown. Two insertions at one gap of the file (prove.overlaps.gaps: an `add_import` and an
`insert_after` the last import) say no anchor the touches could compare: the record's link of the
file (its kept text before and after the entry) shows where the applied entry inserted, and its
touches which side of its anchor; where they cannot tell, the pair is refused as unchecked.
One path (`clashes`) for every command: `apply` refuses on the first (prove.overlaps.apply_check.check_apply),
`list` and `verify` report them (`report`), `status --check` fails on an overlap and says which it
cannot check."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from radpatch.context import Context
from radpatch.errors import RadpatchError, RefusedError
from radpatch.prove.overlaps import commute, gaps, ordering
from radpatch.prove.overlaps.installed_files import InstalledTexts, _store_of, installed_file
from radpatch.prove.overlaps.touching import Meet, is_binding, meet
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.state import touched
from radpatch.state.record import ABSENT, FileRecord, PatchRecord, Store, sha256

if TYPE_CHECKING:
    from radpatch.install.environment import PythonEnv


@dataclass(frozen=True)
class AppliedClash:
    """A loaded entry against an applied entry known only from its record."""

    entry: str
    applied: str
    what: str  # in words: the overlap, or why it cannot be checked
    hint: str
    known: bool  # False: the record does not say what its entry changed (the overlap is unknown)

    def to_json(self) -> dict[str, object]:
        return {"patch": self.entry, "applied": self.applied, "what": self.line(), "known": self.known}

    def line(self) -> str:
        if self.known:
            return self.what
        return f"cannot check {self.entry} against {self.applied}: {self.what}"


def clashes(
    mine: list[tuple[Patch, Version]],
    records: list[PatchRecord],
    requires: dict[str, set[str]],
    env: PythonEnv | None = None,
    texts: InstalledTexts | None = None,
) -> list[AppliedClash]:
    """Each entry (with its installed release) that overlaps an applied entry known only from its
    record, unless `requires:` (`requires`: entry -> every entry it comes after) orders the two;
    and each whose file such a record changed without saying what (the overlap is unknown).
    `env`: the environment, whose files show two insertions at one gap (`_one_gap`); `texts`: those
    files, with what apply's plan already read of them."""
    out: list[AppliedClash] = []
    on_disk = texts if texts is not None else InstalledTexts(env) if env is not None else None
    for p, version in mine:
        ours = touched.of(p, version)
        modules = {t.module for t in ours}
        for r in records:
            if r.patch == p.name or r.patch in requires.get(p.name, set()) or p.name in requires.get(r.patch, set()):
                continue
            if r.touches is None:
                files = [f.path for f in r.files if f.module.removesuffix(".__init__") in modules]
                if files and env is not None and _imports_only(p, version, r):
                    read = _imports_read(env, p, version, r)
                    if read is not _UNREAD:
                        out.extend([read] if read is not None else [])
                        continue
                if files:
                    out.append(
                        AppliedClash(
                            p.name,
                            r.patch,
                            f"{p.name} changes {files[0]}, which the applied entry {r.patch} changed too; {r.patch}'s "
                            "registry is not loaded and its record (written by an older radpatch) does not say what "
                            "it changed, so radpatch cannot tell whether the two overlap",
                            f"pass {r.patch}'s registry with --registry as well (and add `requires: [{r.patch}]` to "
                            f"{p.name} if it is meant to stack on it)",
                            False,
                        )
                    )
                continue
            found = _meeting(p, ours, r)
            gap = _one_gap(on_disk, p, version, r) if on_disk is not None and not found else None
            out.extend(found if gap is None else [gap])
    return out


_UNREAD = AppliedClash("", "", "", "", False)  # the files do not tell: the record's silence decides


def _imports_only(p: Patch, version: Version, r: PatchRecord) -> bool:
    """Every rewrite of `p` in a module the record changed adds an import (`add_import`)."""
    changed = {f.module.removesuffix(".__init__") for f in r.files}
    mine = [rw for rw in p.rewrites_for(version) if _module(p, rw, version) in changed]
    return bool(mine) and all(rw.op.at_imports() == "import" for rw in mine)


def _module(p: Patch, rw: Rewrite, version: Version) -> str | None:
    choice = p.module(rw.file).module_for(version)
    return choice.module.removesuffix(".__init__") if choice else None


def _imports_read(env: PythonEnv, p: Patch, version: Version, r: PatchRecord) -> AppliedClash | None:
    """An entry made only of `add_import`s against an applied entry whose record does not say what
    it changed, decided from the files: the record's link (the file right before and after the
    applied entry, kept by radpatch and checked by their hashes). The import overlaps it when it
    applies to the file before the entry and not after it (the entry bound the name: a known overlap),
    or when the entry inserted code (not imports) at the place the import goes (on which side of its
    anchor the record does not say, nor so whether the order matters: unknown). None: no overlap;
    _UNREAD: the files do not tell (radpatch no longer holds them)."""
    from radpatch.rewrite.matching import MatchFailure
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.source import Source

    changed = {f.module.removesuffix(".__init__") for f in r.files}
    for rw in p.rewrites_for(version):
        if _module(p, rw, version) not in changed:
            continue
        found = installed_file(env, p, rw)
        held = _store_of(Path(found[0]), env) if found is not None else None
        if found is None or held is None:
            return _UNREAD
        store = Store(held[0])
        link = next((f for name, f in store.chain(held[1]) if name == r.patch), None)
        texts = _link_texts(store, link, found[1]) if link is not None else None
        if texts is None:
            return _UNREAD
        before, after = texts
        fits: list[bool] = []
        for text in (before, after):
            try:
                with code_errors():
                    rw.op.forward(Source.parse(text))
                fits.append(True)
            except (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError):
                fits.append(False)
        if fits == [True, False]:
            return AppliedClash(
                p.name,
                r.patch,
                f"{p.name} and {r.patch} overlap: {p.name} ({rw.id}) adds an import the file takes before "
                f"{r.patch} and refuses after it (in {held[1]}: {r.patch} binds the name or changed the imports); "
                f"{r.patch} is applied here (from a registry this run does not load) and nothing orders them "
                "(`requires:`)",
                f"if {p.name} is meant to go after {r.patch}, add `requires: [{r.patch}]` to {p.name} and pass "
                f"{r.patch}'s registry with --registry as well; else revert {r.patch} first",
                True,
            )
        shared = _shared_gaps(rw.op, before, after)
        if shared:
            return AppliedClash(
                p.name,
                r.patch,
                f"{p.name} ({rw.id}) adds an import where the applied entry {r.patch} inserted code ({held[1]}); "
                f"{r.patch}'s registry is not loaded and its record (written by an older radpatch) does not say "
                "on which side of its anchor, so radpatch cannot tell whether the order of the two matters",
                f"pass {r.patch}'s registry with --registry as well (radpatch then compares the two), and add "
                f"`requires: [{r.patch}]` to {p.name} if it is meant to go after it",
                False,
            )
    return None


def _side(op: Operation) -> str | None:
    """Where an insertion goes at its gap: `imports` (after the module's imports), `after` or
    `before` its anchor; None for a rewrite that is no insertion."""
    if op.at_imports() is not None:
        return "imports"
    anchors = [t for t in op.touches() if t.role == "anchor"]
    return _anchor_side([t.key for t in anchors]) if anchors else None


def _anchor_side(keys: list[str]) -> str | None:
    sides = set()
    for key in keys:
        words = key.split()
        word = words[1] if words[0] == "definitions" and len(words) > 1 else words[0]
        sides.add("before" if word == "before" else "after")  # `into:` a class: after its last line
    return sides.pop() if len(sides) == 1 else None


def _recorded_side(r: PatchRecord, module: str) -> str | None:
    """Which side the applied entry inserted at, from its record: `imports` when it says it changes
    nothing in the module but the names it binds (`add_import`, the one operation that says so), its
    anchors' side, or None when the record cannot tell (a change it recorded as no anchor, or anchors on both sides)."""
    here = [t.touch for t in r.touches or () if t.module == module and not is_binding(t.touch)]
    if not here:
        return "imports"
    if any(t.role != "anchor" for t in here):
        return None
    return _anchor_side([t.key for t in here])


def _link_texts(store: Store, link: FileRecord, current: str) -> tuple[str, str] | None:
    """The file right before and right after the applied entry (its record's link), or None when
    radpatch no longer holds them."""
    if link.original_sha256 == ABSENT:
        return None
    before = store.original(link.original_sha256)
    after = current.encode("utf-8")
    if sha256(after) != link.patched_sha256:
        after = store.original(link.patched_sha256) or b""
        if sha256(after) != link.patched_sha256:
            return None
    try:
        return None if before is None else (before.decode("utf-8"), after.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def _one_gap(files: InstalledTexts, p: Patch, version: Version, r: PatchRecord) -> AppliedClash | None:
    """An insertion of `p` and the applied entry's change at one gap of the file, in an order that
    decides the code (an `add_import` and an insertion after the last import), as a one-stage
    apply of both refuses them (prove.overlaps.pairs); unchecked when the record cannot tell."""
    for rw in p.rewrites_for(version):
        ours = _side(rw.op)
        choice = p.module(rw.file).module_for(version)
        found = files.file(p, rw) if ours is not None and choice is not None else None
        if ours is None or found is None or choice is None:
            continue
        module = choice.module.removesuffix(".__init__")
        held = _store_of(Path(found[0]), files.env)
        if held is None:
            continue
        store = Store(held[0])
        link = next((f for name, f in store.chain(held[1]) if name == r.patch), None)
        if link is None:
            continue
        texts = _link_texts(store, link, found[1])
        theirs = _recorded_side(r, module)
        where = held[1]
        if texts is not None:
            before, after = texts
            shared = _shared_gaps(rw.op, before, after)
            if not shared:
                continue
            where = f"{held[1]}, after line {shared[0] + 1}" if shared[0] >= 0 else f"{held[1]}, at its top"
            if theirs is not None and _orders_agree(ours, theirs):
                continue
            if ours == "imports" and _placed(r, module) and _commute(rw.op, before, after):
                continue  # two placed by radpatch, each binding names the other leaves alone: they commute
        if theirs is not None and texts is not None:
            return AppliedClash(
                p.name,
                r.patch,
                f"{p.name} and {r.patch} overlap: {p.name} ({rw.id}) and {r.patch} insert at the same place "
                f"({where}), so the order decides the code; {r.patch} is applied here (from a registry this run "
                "does not load) and nothing orders them (`requires:`)",
                f"if {p.name} is meant to go after {r.patch}, add `requires: [{r.patch}]` to {p.name} and pass "
                f"{r.patch}'s registry with --registry as well; else revert {r.patch} first",
                True,
            )
        return AppliedClash(
            p.name,
            r.patch,
            f"{p.name} ({rw.id}) inserts at a place in {where} where the applied entry {r.patch} may have "
            f"inserted too; {r.patch}'s registry is not loaded and its record does not say enough to tell "
            "whether the order of the two matters, so radpatch cannot check them",
            f"pass {r.patch}'s registry with --registry as well (radpatch then compares the two), and add "
            f"`requires: [{r.patch}]` to {p.name} if it is meant to go after it",
            False,
        )
    return None


def _placed(r: PatchRecord, module: str) -> bool:
    """The applied entry's record says it anchored nothing in `module`: radpatch chose where its
    code went (after the imports: an `add_import`, a `set_constant` of a new name)."""
    here = [t.touch for t in r.touches or () if t.module == module]
    return bool(here) and all(t.role == "node" and t.scope == "<module>" and not t.code for t in here)


def _commute(op: Operation, before: str, after: str) -> bool:
    """`op` applies after the applied entry (`after`) and alone on the file before it, and the two
    each add only bindings of names the other neither binds nor reads (prove.overlaps.commute)."""
    mine = commute.forward(op, before)
    return mine is not None and commute.forward(op, after) is not None and commute.independent(before, after, mine)


def _shared_gaps(op: Operation, before: str, after: str) -> list[int]:
    """The lines of `before` after which `op` inserts and at which the applied entry (its record's
    `before` -> `after`) inserted too, at the same indent (two import lines at one gap excepted)."""
    applied = gaps.inserted(before, after)
    return [
        line
        for line, indent, imports in gaps.places(op, before)
        for other_line, other_indent, other_imports in applied
        if (line, indent) == (other_line, other_indent) and not (imports and other_imports)
    ]


def _orders_agree(ours: str, theirs: str) -> bool:
    """Two insertions at one gap write the same code in either order (prove.overlaps.gaps): imports with
    imports, and two that each stay next to their own anchor; not two that both go after the same
    line (an `add_import` and an `insert_after` the last import)."""
    if "imports" not in (ours, theirs):
        return True  # two anchors: the same anchor is a meeting of their touches, else each stays by its own
    other = theirs if ours == "imports" else ours
    return other in ("imports", "before")


def _meeting(p: Patch, ours: tuple[touched.Touched, ...], r: PatchRecord) -> list[AppliedClash]:
    for t in ours:
        for theirs in r.touches or ():
            if theirs.module != t.module:
                continue
            meeting = meet(t.touch, theirs.touch)
            if meeting is None or meeting.kind is Meet.STACKS:
                continue
            return [
                AppliedClash(
                    p.name,
                    r.patch,
                    f"{p.name} and {r.patch} overlap: {p.name} ({t.rewrite}) and {r.patch} ({theirs.rewrite}) "
                    f"both {meeting.what} in {t.module}; {r.patch} is applied here (from a registry this run "
                    "does not load) and nothing orders them (`requires:`)",
                    f"if {p.name} is meant to stack on {r.patch}, add `requires: [{r.patch}]` to {p.name} and "
                    f"pass {r.patch}'s registry with --registry as well; else revert {r.patch} first",
                    True,
                )
            ]
    return []


def refuse(
    mine: list[tuple[Patch, Version]],
    records: list[PatchRecord],
    requires: dict[str, set[str]],
    env: PythonEnv | None = None,
    texts: InstalledTexts | None = None,
) -> None:
    """apply: refuse on the first clash (an overlap, or one radpatch cannot check)."""
    found = clashes(mine, records, requires, env, texts)
    if found:
        raise RefusedError(found[0].what, found[0].hint)


def in_env(ctx: Context, patches: list[Patch]) -> list[AppliedClash]:
    """The clashes of the loaded entries installed in the target environment with the entries its
    record holds that no loaded registry has (list, verify, status --check)."""
    from radpatch.install import locate

    known = set(ctx.registry.names())
    records: dict[str, PatchRecord] = {}
    for d in ctx.env.paths:
        try:
            found = Store(d).records()
        except RadpatchError:
            continue  # an unreadable record is status's to explain, not an overlap
        for n, rec in found.items():
            if n not in known:
                records.setdefault(n, rec)
    if not records:
        return []
    mine: list[tuple[Patch, Version]] = []
    for p in patches:
        try:
            dist = locate.find_target(ctx.env, p)
        except RadpatchError:
            continue
        if dist is not None:
            mine.append((p, dist.version))
    direct = {p.name: set(p.requires) for p in patches} | {r.patch: set(r.requires) for r in records.values()}
    return clashes(mine, list(records.values()), ordering.after_names(direct), ctx.env)
