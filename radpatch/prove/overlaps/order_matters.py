"""Does the order of two entries matter? The one decision `list`, `verify` and `apply` take on every
overlap the rules find (prove.overlaps.pairs, from the registry text): the two entries' rewrites of
the module are run whole, by radpatch's own runner, first then second and second then first, on the
module's text before either (prove.overlaps.entry_orders.judge):

- both orders write the same code (the same syntax tree; or two that only add module-level bindings
  the other leaves alone, prove.overlaps.commute): the order does not matter, and there is no
  overlap: `list` and `verify` do not report it, `apply` does not refuse it (ovl47, issue 23);
- they write different code, or one order (or both) fails: the order matters (`MATTERS`); reported,
  and refused by apply unless `requires:` orders them or it is a stack (the writer first);
- there is no file to try them on (`UNTRIED`): `list` and `verify` say the two *may* overlap, not
  tried on a release's file, and apply (which always has the installed file) refuses it as the rules
  say. The file: verify's cached release for `list` and `verify` (for `list`, else the installed
  release's file where its bytes are the release's: releases.overlap_report), the installed one (as it
  was before either entry) for `apply`.

Neither applying alone on the file (each stacks on a third entry, say) leaves the rules' finding
standing (`MATTERS`): the file cannot say otherwise.

A pair whose other entry is applied and known only from its record (its registry not loaded:
prove.overlaps.applied) takes the same decision (`recorded`, `overlapping`; port49): both orders are
run from the record's kept texts (prove.overlaps.recorded_orders); the same code is `SAME`, different
code `MATTERS` (an overlap even where the touches found none), and where the record cannot tell (a
text not kept, changes on the same or adjacent lines: the applied entry's order is its diff, not its
rewrites, so a merge that fails is not an order that fails) `UNTRIED`: as the touches found."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from enum import Enum

from packaging.version import Version

from radpatch.prove.overlaps import entry_orders, gaps, pairs, recorded_orders
from radpatch.prove.overlaps.gap_pairs import module_of, text_of
from radpatch.prove.overlaps.installed_files import InstalledTexts
from radpatch.prove.overlaps.pairs import Overlap
from radpatch.registry.model import Patch, Rewrite
from radpatch.state.record import PatchRecord


class Tried(Enum):
    MATTERS = "matters"  # on a file, the two orders write different code, or one of them fails
    SAME = "same"  # on every file tried, both orders write the same code: no overlap
    UNTRIED = "untried"  # no file to try the two orders on: the registry text says they may meet


def tried(o: Overlap, patches: Sequence[Patch], texts: gaps.Texts | None) -> tuple[Tried, tuple[Version, ...]]:
    """How the overlap `o` between two of `patches` fares on the file, and the releases that say so:
    those where the order matters (`MATTERS`), or, none mattering, those no file was at hand for
    (`UNTRIED`); `SAME` with the releases tried."""
    by_name = {p.name: p for p in patches}
    first, second = by_name.get(o.first), by_name.get(o.second)
    matters: list[Version] = []
    untried: list[Version] = []
    for v in o.versions:
        if first is None or second is None or texts is None:
            untried.append(v)
            continue
        ra, rb = _of_module(first, o.module, v), _of_module(second, o.module, v)
        text = text_of(first, ra[0], second, v, texts) if ra and rb else None
        if text is None:
            untried.append(v)
        elif entry_orders.judge(first, ra, second, rb, text) is not entry_orders.Orders.AGREE:
            matters.append(v)
    if matters:
        return Tried.MATTERS, tuple(matters)
    if untried:
        return Tried.UNTRIED, tuple(untried)
    return Tried.SAME, o.versions


def recorded(files: InstalledTexts | None, p: Patch, version: Version, r: PatchRecord) -> Tried:
    """How the pair of `p` and the applied entry of record `r` fares when both orders are run from the
    record's kept texts: `SAME`, `MATTERS`, or `UNTRIED` where they cannot be told (no files at hand)."""
    told = recorded_orders.verdict(files, p, version, r) if files is not None else None
    return Tried.SAME if told is True else Tried.MATTERS if told is False else Tried.UNTRIED


def overlapping(verdict: Tried, found: bool) -> bool:
    """The one decision: a pair is an overlap where its order matters, never where both orders write the
    same code, and, untried, where the rules (`found`: the registry text, or a record's touches) say so."""
    return verdict is Tried.MATTERS or (verdict is Tried.UNTRIED and found)


def _of_module(p: Patch, module: str, v: Version) -> tuple[Rewrite, ...]:
    return tuple(rw for rw in p.rewrites_for(v) if module_of(p, rw, v) == module)


def overlaps(patches: list[Patch], versions: Iterable[Version], texts: gaps.Texts | None) -> list[Overlap]:
    """Every overlap the rules find between two of the entries on `versions`, tried on the file: those
    whose order matters (`tried` True, their `versions` where it does) and those no file was at hand
    for (`tried` False); none whose two orders write the same code."""
    out = []
    for o in pairs.find(patches, versions, texts):
        verdict, where = tried(o, patches, texts)
        if overlapping(verdict, True):  # found by the rules
            out.append(dataclasses.replace(o, versions=where, tried=verdict is Tried.MATTERS))
    return out
