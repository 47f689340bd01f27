"""An applied entry known only from its record, against a loaded entry's insertion at the same
place: the record's link of the file (its kept text right before and after the applied entry) shows
where it inserted, and its touches on which side of its anchor (`_one_gap`); an entry made only of
`add_import`s against a record that does not say what it changed, read from the files
(`_imports_read`). For prove.overlaps.applied."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.prove.overlaps import commute, gaps
from radpatch.prove.overlaps.applied_clash import _UNREAD, AppliedClash, _module
from radpatch.prove.overlaps.installed_files import InstalledTexts, _store_of, installed_file
from radpatch.prove.overlaps.touching import is_binding
from radpatch.registry.model import Operation, Patch
from radpatch.state.record import ABSENT, FileRecord, PatchRecord, Store, sha256

if TYPE_CHECKING:
    from radpatch.install.environment import PythonEnv


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
