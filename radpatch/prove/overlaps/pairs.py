"""Which entries change the same code? Two rewrites of two entries overlap when, on a release both
entries support and both rewrites apply to, they change the same module and:

- change the same node: the same statement/expression (`replace`, `delete`: scope and `find`, compared
  by syntax tree), the same parameter default, keyword argument, constant or decorator list, the
  same function's signature or body (and a body rewrite contains every node of its function);
- or change a node inside another's: a function or class one replaces or deletes whole (its
  `find` is the `def`/`class`) holds every node another changes in it, and the place beside it
  where definitions are inserted; a statement or expression one replaces holds the code another
  changes (a `set_keyword`'s keyword argument in the call a `replace` takes whole, a `set_constant`'s
  assignment in a module-level statement it replaces, one `find` inside the other's; a literal passed
  to a call in a `find` holding that call, or in the keyword a `set_keyword` changes:
  prove.overlaps.call_parts);
- or insert at the same anchor: the same statement on the same side (the first statement of an
  `insert_before`'s `find`, the last of an `insert_after`'s: `find: "x = 1\ny = 2"` after and
  `find: "y = 2"` after insert at one place), the same definition before/after which definitions go;
- or insert inside the span of statements the other's `find` matches (between two of them, or next
  to one nested in them), or share a statement with the span the other replaces or deletes: run
  first, it breaks the other's match (`Touch.statements`);
- or bind the same new module-level name to different things (`add_import`, `set_constant` of a new
  name: `registry.touch.binding`); two imports of one name from one place commute; an `add_import`
  also meets a `set_constant` of its name and a module-level rewrite whose `find` or written code
  binds it (`Touch.names`: an assignment, a def; one order clashes, the other does not);
- or add new entries to one dict literal at one place (`set_item` without `from:`: both as its last
  items, both right after one key, or one right after the key the other adds): the order they apply
  in is the dict's key order (`Touch` keys `entry place NAME[...]`); after two keys already there,
  or one last and one after a key, either order writes one dict;
- or stack: one's `find` is in the code the other writes (`with`, `code`); reported, with the
  order it needs, but not refused by apply (the other order fails to match by itself).

Copies of one `find` picked by `occurrence:` are the same code when the numbers are equal, and also
when one rewrite removes (delete, replace) or adds (an insertion of the `find` itself) a copy at or
before the other's: the other then counts a different copy depending on which runs first. Different
numbers otherwise are different code. Different `within:` picks are reported as an overlap that
radpatch cannot decide from the registry text (which copies each encloses depends on the file).

Overlapping entries may still stack (a quilt series does); what matters is that their order is known.
An entry's `requires:` (the names it must come after) orders it after those (prove.overlaps.ordering).
`apply` refuses two overlapping entries with no order between them, naming both
(prove.overlaps.apply_check); `list` and `verify` report every overlap. All three keep only those
whose order matters when tried on a file (prove.overlaps.order_matters: one decision).

Each operation says what it changes (`Operation.touches`, in its module of rewrite/ops/: a
`registry.touch.Touch` per node or anchor); one that does not say may change anything of its module,
and overlaps every other rewrite there.

The test is static (the registry text only): no wheel, no install, no libcst; except for two
insertions whose anchors differ, which only a file shows to be one place (prove.overlaps.gaps: the
installed file for apply, verify's cached release files for list and verify). The releases it is
asked about: the installed one (apply), or those releases.overlap_report probes for `list` and `verify`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from packaging.version import Version

from radpatch.prove.overlaps import call_written, created, entry_orders, gaps, ordering
from radpatch.prove.overlaps.gap_pairs import gap_words, import_gap, module_of, one_place
from radpatch.prove.overlaps.touching import Meet, Meeting, meet
from radpatch.registry.model import Patch
from radpatch.registry.touch import Touch


@dataclass(frozen=True)
class Overlap:
    first: str  # entry names
    second: str
    first_rewrite: str
    second_rewrite: str
    module: str
    what: str
    versions: tuple[Version, ...]  # the probed releases where they meet
    ordered: bool  # `requires:` orders one after the other
    kind: Meet
    # the two orders were tried on a release's file (prove.overlaps.order_matters); False: the registry
    # text says they may meet, and no file was at hand to try them on
    tried: bool = True

    def describe(self) -> str:
        at = f"{self.versions[0]}" + (f" to {self.versions[-1]}" if len(self.versions) > 1 else "")
        order = "ordered by `requires:`" if self.ordered else "no order between them (`requires:`)"
        return (
            f"{self.first} ({self.first_rewrite}) and {self.second} ({self.second_rewrite}) both {self.what} "
            f"in {self.module} (e.g. {at}); {order}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "patches": [self.first, self.second],
            "rewrites": [self.first_rewrite, self.second_rewrite],
            "module": self.module,
            "what": self.what,
            "versions": [str(v) for v in self.versions],
            "ordered": self.ordered,
            "tried": self.tried,
        }


def find(patches: list[Patch], versions: Iterable[Version], texts: gaps.Texts | None = None) -> list[Overlap]:
    """Every overlap between two of the entries, on the releases `versions` (apply: the installed
    one; `list` and `verify`: those releases.overlap_report probes).
    `texts`: the modules' text per release, to see two insertions at one place whose anchors differ
    (prove.overlaps.gaps); without it (or where it has no text) only the registry text is compared."""
    probe = sorted(set(versions))
    after = ordering.after(patches)
    out: list[Overlap] = []
    for a, b in combinations(patches, 2):
        if not set(a.named) & set(b.named) and not set(a.packages) & set(b.packages):
            continue
        start = len(out)
        for ra in a.rewrites:
            for rb in b.rewrites:
                for ta in ra.op.touches():
                    for tb in rb.op.touches():
                        meeting = meet(ta, tb) or created.element_find(ta, tb)
                        gap = meeting is None and texts is not None and gaps.maybe(ta, tb)
                        if meeting is None and not gap:
                            continue
                        where: dict[str, list[Version]] = {}
                        for v in probe:
                            m = module_of(a, ra, v)
                            if m is None or m != module_of(b, rb, v):
                                continue
                            if gap and not one_place(a, ra, b, rb, v, texts):
                                continue
                            if meeting is not None and meeting.kind in FILE_DECIDES and texts is not None:
                                if not call_written.differ(a, ra, b, rb, v, texts):
                                    continue  # on the file, both orders write the same code
                            where.setdefault(m, []).append(v)
                        if meeting is None:
                            meeting = Meeting(Meet.GAP, gap_words(ta, tb))
                        # one stacks on the other: the writer first, so that the refusal's hint has the order right
                        stacks = _writer_second(meeting, ta, tb)
                        if meeting.kind is Meet.STACKS and getattr((ra if stacks else rb).op, "occurrence", None):
                            # an `occurrence:` picks a copy in either order (the installed code has one
                            # too): the order decides what is written, as for two picks of one `find`
                            meeting = Meeting(Meet.COPIES, meeting.what + ", and `occurrence:` matches in either order")
                            stacks = False
                        for module, vs in where.items():
                            ordered = a.name in after[b.name] or b.name in after[a.name]
                            how = (meeting.what, tuple(vs), ordered, meeting.kind)
                            if stacks:
                                out.append(Overlap(b.name, a.name, rb.id, ra.id, module, *how))
                            else:
                                out.append(Overlap(a.name, b.name, ra.id, rb.id, module, *how))
                for (one, r1), (two, r2) in (((a, ra), (b, rb)), ((b, rb), (a, ra))):
                    made = created.inside_created(r1.op, r2.op) or created.removed_then_added(r1.op, r2.op)
                    vs = [v for v in probe if module_of(one, r1, v) is not None]
                    vs = [v for v in vs if module_of(one, r1, v) == module_of(two, r2, v)]
                    if made is not None and vs:
                        ordered = a.name in after[b.name] or b.name in after[a.name]
                        m = module_of(one, r1, vs[0]) or ""
                        how = (made.what, tuple(vs), ordered, made.kind)
                        out.append(Overlap(one.name, two.name, r1.id, r2.id, m, *how))
                if texts is not None and gaps.maybe_ops(ra.op, rb.op):
                    what, at = import_gap(a, ra, b, rb, probe, texts)
                    ordered = a.name in after[b.name] or b.name in after[a.name]
                    out.extend(
                        Overlap(a.name, b.name, ra.id, rb.id, m, what, tuple(vs), ordered, Meet.GAP)
                        for m, vs in at.items()
                    )
        if texts is not None and not _ordered(a, b, after):  # run whole where no two rewrites met, unordered
            met = {o.module for o in out[start:]}
            out.extend(_whole(a, b, probe, texts, met, after))
    return _unique(out)


def _ordered(a: Patch, b: Patch, after: dict[str, set[str]]) -> bool:
    return a.name in after[b.name] or b.name in after[a.name]


def _whole(
    a: Patch, b: Patch, probe: list[Version], texts: gaps.Texts, met: set[str], after: dict[str, set[str]]
) -> list[Overlap]:
    """The two entries' rewrites of a module run whole, in both orders, on the file (prove.overlaps.entry_orders)."""
    Orders = entry_orders.Orders
    ordered = a.name in after[b.name] or b.name in after[a.name]
    out = []
    for (m, verdict), (ra, rb, vs) in entry_orders.between(a, b, probe, texts, lambda m: m not in met).items():
        one, two = ((b, rb), (a, ra)) if verdict is Orders.SECOND else ((a, ra), (b, rb))
        kind = Meet.STACKS if verdict in (Orders.FIRST, Orders.SECOND) else Meet.ORDERS
        what = entry_orders.words(verdict, one[0].name, two[0].name)
        ids = [", ".join(rw.id for rw in rws) for _, rws in (one, two)]
        out.append(Overlap(one[0].name, two[0].name, ids[0], ids[1], m, what, tuple(vs), ordered, kind))
    return out


# met by the rules from the registry text as pairs that may meet; a file tells (prove.overlaps.call_written)
FILE_DECIDES = (Meet.WRITTEN, Meet.DISPLAY)


def _writer_second(meeting: Meeting, ta: Touch, tb: Touch) -> bool:
    """One stacks on code the other writes, and the writer is `tb`: named first, so that the hint
    of apply's refusal has the order right."""
    if meeting.kind is Meet.WRITTEN:
        return call_written.written(ta, tb)
    return meeting.kind is Meet.STACKS and not (tb.code and tb.code in ta.writes)


def _unique(found: list[Overlap]) -> list[Overlap]:
    seen: set[tuple[str, str, str, str, str]] = set()
    out = []
    for o in found:
        key = (o.first, o.second, o.first_rewrite, o.second_rewrite, o.module)
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out
