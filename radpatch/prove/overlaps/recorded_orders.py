"""Both orders of a loaded entry and an applied entry known only from its record (ovl45, issue 23
item 4): the record's link of the file keeps the text right before and right after the applied
entry (prove.overlaps.applied_gaps), so the applied entry's change is a diff. The loaded entry's
rewrites of that module run by radpatch's own runner (prove.overlaps.entry_orders.run):

- the applied entry first: on the text after it;
- the loaded entry first: on the text before it, then the applied entry's diff put on top of that,
  as `patch` would with no fuzz (its changed lines and the loaded entry's must be apart, not even
  adjacent: else it is not known to apply, and the orders are not known to agree).

Both give the same code: the orders agree, and the overlap the touches found (prove.overlaps.applied)
is none. Both apply and give different code: an overlap, though the touches found none. Anything
else (a side that fails, changes on the same or adjacent lines) leaves it to the touches. The
applied entry's other order is its diff, not its rewrites (they are not loaded): a rewrite of it that
picks a copy by `occurrence:` may pick another after the loaded entry, which only its registry shows."""

from __future__ import annotations

import difflib
from pathlib import Path

from packaging.version import Version

from radpatch import source_lines
from radpatch.prove.overlaps.applied_clash import _module
from radpatch.prove.overlaps.applied_gaps import _link_texts
from radpatch.prove.overlaps.entry_orders import run, same_code
from radpatch.prove.overlaps.installed_files import InstalledTexts, _store_of
from radpatch.registry.model import Patch, Rewrite
from radpatch.state.record import PatchRecord, Store


def agree(files: InstalledTexts, p: Patch, version: Version, r: PatchRecord) -> bool:
    """In every module both change, `p` then the applied entry and the other way round write the
    same code (from the record's kept texts); False when that cannot be told."""
    return verdict(files, p, version, r) is True


def differ(files: InstalledTexts, p: Patch, version: Version, r: PatchRecord) -> bool:
    """In a module both change, both orders apply (from the record's kept texts) and write different code."""
    return verdict(files, p, version, r) is False


def verdict(files: InstalledTexts, p: Patch, version: Version, r: PatchRecord) -> bool | None:
    """True: both orders write the same code in every module both change; False: in one of them both
    apply and write different code; None: it cannot be told (a text not kept, an order that fails,
    changes on the same or adjacent lines)."""
    changed = {f.module.removesuffix(".__init__") for f in r.files}
    by_module: dict[str, list[Rewrite]] = {}
    for rw in p.rewrites_for(version):
        m = _module(p, rw, version)
        if m is not None and m in changed:
            by_module.setdefault(m, []).append(rw)
    if not by_module:
        return None
    out: bool | None = True
    for rws in by_module.values():
        texts = _texts(files, p, rws[0], r)
        if texts is None:
            return None
        before, after = texts
        theirs_first = run(p, tuple(rws), after)
        ours = run(p, tuple(rws), before)
        ours_first = None if ours is None else merged(before, after, ours)
        if theirs_first is None or ours_first is None:
            out = None
        elif not same_code(theirs_first, ours_first):
            return False
    return out


def _texts(files: InstalledTexts, p: Patch, rw: Rewrite, r: PatchRecord) -> tuple[str, str] | None:
    found = files.file(p, rw)
    held = None if found is None else _store_of(Path(found[0]), files.env)
    if found is None or held is None:
        return None
    store = Store(held[0])
    link = next((f for name, f in store.chain(held[1]) if name == r.patch), None)
    return None if link is None else _link_texts(store, link, found[1])


def merged(base: str, theirs: str, ours: str) -> str | None:
    """`base` with the changes of `theirs` and of `ours` both made, when they change lines apart
    (neither overlapping nor adjacent); None otherwise."""
    old = source_lines.split(base, keepends=True)
    a = _edits(old, source_lines.split(theirs, keepends=True))
    b = _edits(old, source_lines.split(ours, keepends=True))
    for i1, i2, _ in a:
        for j1, j2, _ in b:
            if max(i1, j1) <= min(i2, j2):
                return None
    out: list[str] = []
    at = 0
    for i1, i2, lines in sorted(a + b, key=lambda e: (e[0], e[1])):
        out.extend(old[at:i1])
        out.extend(lines)
        at = i2
    out.extend(old[at:])
    return "".join(out)


def _edits(old: list[str], new: list[str]) -> list[tuple[int, int, list[str]]]:
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    return [(i1, i2, new[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag != "equal"]
