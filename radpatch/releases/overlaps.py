"""Which entries change the same code? Two rewrites of two entries overlap when, on a release both
entries support and both rewrites apply to, they change the same module and:

- change the same node: the same statement/expression (`replace`, `delete`: scope and `find`, compared
  by syntax tree), the same parameter default, keyword argument, constant or decorator list, the
  same function's signature or body (and a body rewrite contains every node of its function);
- or change a node inside another's: a function or class one replaces or deletes whole (its
  `find` is the `def`/`class`) holds every node another changes in it, and the place beside it
  where definitions are inserted; a statement or expression one replaces holds the code another
  changes (a `set_keyword`'s keyword argument in the call a `replace` takes whole, a `set_constant`'s
  assignment in a module-level statement it replaces, one `find` inside the other's);
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
- or stack: one's `find` is in the code the other writes (`with`, `code`); reported, with the
  order it needs, but not refused by apply (the other order fails to match by itself).

Copies of one `find` picked by `occurrence:` are the same code when the numbers are equal, and also
when one rewrite removes (delete, replace) or adds (an insertion of the `find` itself) a copy at or
before the other's: the other then counts a different copy depending on which runs first. Different
numbers otherwise are different code. Different `within:` picks are reported as an overlap that
radpatch cannot decide from the registry text (which copies each encloses depends on the file).

Overlapping entries may still stack (a quilt series does); what matters is that their order is known.
An entry's `requires:` (the names it must come after) orders it after those. `apply` refuses two
overlapping entries with no order between them, naming both; `list` and `verify` report every
overlap.

Each operation says what it changes (`Operation.touches`, in its module of rewrite/ops/: a
`registry.touch.Touch` per node or anchor); one that does not say may change anything of its module,
and overlaps every other rewrite there.

The test is static (the registry text only): no wheel, no install, no libcst; except for two
insertions whose anchors differ, which only a file shows to be one place (releases.gaps: the
installed file for apply, verify's cached release files for list and verify). Which releases it
probes: every version the entries' ranges name, the installed one (apply), and the releases verify
listed before (the cached list), so a list run never asks the index.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from radpatch.context import Context
from radpatch.errors import RadpatchError, RefusedError
from radpatch.install.dist_infos import canonical_name
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.registry.touch import Touch, import_bindings
from radpatch.registry.versions import allows
from radpatch.releases import commute, gaps
from radpatch.releases.installed_files import InstalledTexts, installed_texts
from radpatch.releases.touching import Meet, Meeting, meet

if TYPE_CHECKING:
    from radpatch.install.targets import InstalledTargets
    from radpatch.state.record import PatchRecord


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
        }


def probes(patches: Iterable[Patch], extra: Iterable[Version] = ()) -> list[Version]:
    """The versions to test: those every range of the entries names, the extra ones, and the cached list."""
    out: set[Version] = set(extra)
    listed: set[str] = set()
    for p in patches:
        specs: list[SpecifierSet] = [p.supported, *(c.versions for t in p.targets for c in t.choices)]
        specs += [r.versions for r in p.rewrites if r.versions is not None]
        for spec in specs:
            for s in spec:
                try:
                    out.add(Version(s.version.rstrip(".*")))
                except InvalidVersion:
                    pass
        if p.distribution not in listed:
            listed.add(p.distribution)
            out.update(_cached_listing(p.distribution))
    return sorted(out)


def _cached_listing(dist: str) -> list[Version]:
    from radpatch.releases.wheels import cache_root  # no network: only what verify listed before

    try:
        data = json.loads((cache_root() / canonical_name(dist) / "versions.json").read_text())
        return [Version(v) for v in data["versions"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, InvalidVersion):
        return []


def _module(p: Patch, rw: Rewrite, v: Version) -> str | None:
    """The module the rewrite changes on release `v`; None where it changes nothing there (out of
    the entry's range or its own, or the entry declared `obsolete:` there: apply does nothing)."""
    if not allows(p.supported, v) or not rw.applies_to(v) or (p.obsolete is not None and allows(p.obsolete, v)):
        return None
    choice = p.target(rw.target).module_for(v)
    # one file, however it is spelled: a package is its `__init__` (`radpatch import` writes `pkg.__init__`)
    return choice.module.removesuffix(".__init__") if choice else None


def _after(patches: list[Patch]) -> dict[str, set[str]]:
    """Entry -> every entry it comes after, through `requires:` (transitively)."""
    return _after_names({p.name: set(p.requires) for p in patches})


def _after_names(direct: dict[str, set[str]]) -> dict[str, set[str]]:
    """Entry -> every entry it comes after, from entry -> the entries it requires."""
    out: dict[str, set[str]] = {}
    for name in direct:
        seen: set[str] = set()
        todo = list(direct[name])
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(direct.get(n, ()))
        out[name] = seen
    return out


def find(
    patches: list[Patch], versions: Iterable[Version] | None = None, texts: gaps.Texts | None = None
) -> list[Overlap]:
    """Every overlap between two of the entries, on the probed releases (or on `versions` only).
    `texts`: the modules' text per release, to see two insertions at one place whose anchors differ
    (releases.gaps); without it (or where it has no text) only the registry text is compared."""
    probe = probes(patches) if versions is None else sorted(set(versions))
    after = _after(patches)
    out: list[Overlap] = []
    for a, b in combinations(patches, 2):
        if not set(a.named) & set(b.named) and not set(a.packages) & set(b.packages):
            continue
        for ra in a.rewrites:
            for rb in b.rewrites:
                for ta in ra.op.touches():
                    for tb in rb.op.touches():
                        meeting = meet(ta, tb)
                        gap = meeting is None and texts is not None and gaps.maybe(ta, tb)
                        if meeting is None and not gap:
                            continue
                        where: dict[str, list[Version]] = {}
                        for v in probe:
                            m = _module(a, ra, v)
                            if m is None or m != _module(b, rb, v):
                                continue
                            if gap and not _one_place(a, ra, b, rb, v, texts):
                                continue
                            where.setdefault(m, []).append(v)
                        if meeting is None:
                            meeting = Meeting(Meet.GAP, _gap_words(ta, tb))
                        # one stacks on the other: the writer first, so that the refusal's hint has the order right
                        stacks = meeting.kind is Meet.STACKS and not (tb.code and tb.code in ta.writes)
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
                if texts is not None and gaps.maybe_ops(ra.op, rb.op):
                    out.extend(
                        _import_gap(a, ra, b, rb, probe, texts, a.name in after[b.name] or b.name in after[a.name])
                    )
    return _unique(out)


def _import_gap(
    a: Patch, ra: Rewrite, b: Patch, rb: Rewrite, probe: list[Version], texts: gaps.Texts, ordered: bool
) -> list[Overlap]:
    """`add_import` (or a new `set_constant`) and an insertion that go into one gap of the file: the
    imports' end (releases.gaps); they say no anchor the touches could compare."""
    where: dict[str, list[Version]] = {}
    for v in probe:
        m = _module(a, ra, v)
        if m is not None and m == _module(b, rb, v) and _one_place(a, ra, b, rb, v, texts):
            if not _commute_on(a, ra, b, rb, v, texts):
                where.setdefault(m, []).append(v)
    what = f"insert at the same place ({ra.op.describe()} and {rb.op.describe()} go into one gap on the file)"
    return [Overlap(a.name, b.name, ra.id, rb.id, m, what, tuple(vs), ordered, Meet.GAP) for m, vs in where.items()]


def _one_place(a: Patch, ra: Rewrite, b: Patch, rb: Rewrite, v: Version, texts: gaps.Texts | None) -> bool:
    text = _text(a, ra, b, v, texts)
    return text is not None and gaps.same_place(ra.op, rb.op, text)


def _text(a: Patch, ra: Rewrite, b: Patch, v: Version, texts: gaps.Texts | None) -> str | None:
    if isinstance(texts, InstalledTexts):  # apply: the file before either of the two, as a one-stage apply reads it
        return texts.before(a, ra, b.name)
    return texts(a, ra, v) if texts is not None else None


def _commute_on(a: Patch, ra: Rewrite, b: Patch, rb: Rewrite, v: Version, texts: gaps.Texts) -> bool:
    """Two that radpatch places after the imports commute on the release's file (releases.commute)."""
    text = _text(a, ra, b, v, texts)
    return text is not None and _commute(ra.op, rb.op, text)


def _commute(a: Operation, b: Operation, text: str) -> bool:
    """Both placed after the imports by radpatch (no anchor an author chose), both orders apply,
    and each adds only bindings of names the other leaves alone (releases.commute)."""
    if not (gaps.at_imports(a) and gaps.at_imports(b)):
        return False
    one, two = commute.forward(a, text), commute.forward(b, text)
    return (
        one is not None
        and two is not None
        and gaps.in_order(a, b, text) is not None
        and gaps.in_order(b, a, text) is not None
        and commute.independent(text, one, two)
    )


def _gap_words(a: Touch, b: Touch) -> str:
    """Two insertions at one gap, in words: where each anchors."""
    where = [
        t.key if t.key.startswith("definitions ") else f"{t.key.split()[0]} a statement of {t.scope}" for t in (a, b)
    ]
    return f"insert at the same place ({where[0]} and {where[1]} are one gap on the file)"


def _unique(found: list[Overlap]) -> list[Overlap]:
    seen: set[tuple[str, str, str, str, str]] = set()
    out = []
    for o in found:
        key = (o.first, o.second, o.first_rewrite, o.second_rewrite, o.module)
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out


def lines(found: list[Overlap]) -> list[str]:
    """One line per pair of entries (their overlapping rewrites listed), for list and verify."""
    pairs: dict[tuple[str, str], list[Overlap]] = {}
    for o in found:
        pairs.setdefault((o.first, o.second), []).append(o)
    out = []
    for (a, b), os_ in pairs.items():
        if len(os_) == 1:
            out.append(os_[0].describe())
            continue
        order = "ordered by `requires:`" if all(o.ordered for o in os_) else "no order between them (`requires:`)"
        each = "; ".join(f"{o.first_rewrite}/{o.second_rewrite}: {o.what} in {o.module}" for o in os_)
        out.append(f"{a} and {b} overlap in {len(os_)} places ({each}); {order}")
    return out


def refuse_unordered(
    patches: list[Patch],
    versions: Iterable[Version] | None = None,
    apart: Callable[[Overlap], bool] | None = None,
    applied: Iterable[str] = (),
    texts: gaps.Texts | None = None,
) -> None:
    """For apply: refuse when two of the entries overlap with no order between them, naming both.
    `apart`: tells, from the installed file, an overlap the registry text could not decide that is none.
    `applied`: the entries already applied here (the hint asks the other one to require them).
    `texts`: the modules' installed text, to see two insertions in one gap (releases.gaps); such a
    pair is refused only when `apart` says the two orders write different files (see the note above _stacks)."""
    bad = [
        o
        for o in find(patches, versions, texts)
        if not o.ordered and not _stacks(o) and not (apart is not None and apart(o))
        if o.kind is not Meet.GAP or apart is not None
    ]
    if bad:
        o, applied = bad[0], set(applied)
        before, after = (o.second, o.first) if o.second in applied and o.first not in applied else (o.first, o.second)
        either = "" if before in applied else " (or the other way round)"
        raise RefusedError(
            f"{o.first} and {o.second} overlap: {o.describe()}"
            + (f" (and {len(bad) - 1} more overlap(s))" if len(bad) > 1 else ""),
            f"say which comes first: add `requires: [{before}]` to {after}{either}, or apply only one of them",
        )


def refuse_reimport(patches: list[Patch], versions: Iterable[Version]) -> None:
    """For apply (att23d F6): an entry ordered after another's `add_import` that inserts the same
    import statement itself (an `insert_after` the last import of `import json`) would add it a
    second time; refused naming the entry that adds it, not upstream (the file was pristine)."""
    by_name = {p.name: p for p in patches}
    after = _after(patches)
    for o in find(patches, versions):
        if o.kind is not Meet.BINDS or not o.ordered:
            continue
        for first, fid, then, tid in (
            (o.first, o.first_rewrite, o.second, o.second_rewrite),
            (o.second, o.second_rewrite, o.first, o.first_rewrite),
        ):
            if first not in after[then]:
                continue
            imp = next((r.op for r in by_name[first].rewrites if r.id == fid), None)
            ins = next((r.op for r in by_name[then].rewrites if r.id == tid), None)
            code = getattr(ins, "code", None)
            if imp is None or imp.at_imports() != "import" or not isinstance(code, str):
                continue
            theirs = set(import_bindings(code))
            if theirs and set(imp.touches()) <= theirs:
                raise RefusedError(
                    f"{then}: rewrite '{tid}' inserts `{code.strip()}`, which {first} (before it, by `requires:`) "
                    f"already adds ({imp.describe()}); applying {then} would add it a second time",
                    f"drop that statement from {then}'s rewrite '{tid}' (the import {first} adds serves both), "
                    f"or order {then} before {first}",
                )


# Two insertions in one gap of the file (releases.gaps) are reported by `list` and `verify`; apply
# refuses them unordered only when the two orders write different files on the installed text
# (`_orders_agree`): an `insert_after` the last import and an `add_import` both go after that import,
# so the order decides which comes first; an `insert_after` one statement and an `insert_before` the
# next each stay next to their own anchor, so either order writes the same file and a `requires:`
# between them would change nothing.


def _stacks(o: Overlap) -> bool:
    """One entry's `find` is in the code the other writes: `list` and `verify` report it (naming the
    order), apply does not refuse it. Run in the other order, the stacked rewrite does not match and
    the engine refuses it by itself; in the order written it is the series the author meant."""
    return o.kind is Meet.STACKS


def check_apply(ctx: Context, patches: list[Patch], read: Sequence[InstalledTargets] = ()) -> None:
    """apply's refusal: the entries named, and those radpatch's record says are applied in the
    environment, must not overlap on the installed release unless `requires:` orders them. A named
    entry declared `obsolete:` on the installed release takes no part: apply does nothing with it.
    `read`: what apply's plan already read of the named entries (install.targets): their
    distributions and files are taken from it, not found and read again."""
    from radpatch.install import locate
    from radpatch.state.record import Store

    env = ctx.env
    plan = {r.patch.name: r for r in read}
    named = {p.name for p in patches}
    recorded: dict[str, PatchRecord] = {}
    for d in env.paths:
        for n, rec in Store(d).records().items():
            if n not in named:
                recorded.setdefault(n, rec)
    others: list[Patch] = []
    unloaded: list[PatchRecord] = []
    for n, rec in recorded.items():
        try:
            others.append(ctx.registry.load(n))
        except RadpatchError:
            unloaded.append(rec)  # compared by what its record says it changed (releases.applied)
    everyone = [*patches, *others]
    installed: set[Version] = set()
    mine: list[tuple[Patch, Version]] = []
    idle: set[str] = set()  # named entries declared obsolete on the installed release: they change nothing
    for p in everyone:
        if p.name in plan and plan[p.name].patch is p:
            if plan[p.name].ambiguous is not None:
                continue  # locate refused it: as below
            found = plan[p.name].dist
        else:
            try:
                found = locate.find_target(env, p)
            except RadpatchError:
                continue
        if found is not None and p.name in named and p.obsolete is not None and allows(p.obsolete, found.version):
            idle.add(p.name)
        elif found is not None:
            installed.add(found.version)
            if p.name in named:
                mine.append((p, found.version))
    everyone = [p for p in everyone if p.name not in idle]
    texts = installed_texts(env, plan)
    if installed:
        apart = lambda o: _apart_on_file(texts, everyone, o)  # noqa: E731
        refuse_unordered(everyone, installed, apart, set(recorded), texts)
        refuse_reimport(everyone, installed)
    if unloaded:
        from radpatch.releases import applied

        direct = {p.name: set(p.requires) for p in everyone} | {r.patch: set(r.requires) for r in unloaded}
        applied.refuse(mine, unloaded, _after_names(direct), env, texts)


def _apart_on_file(texts: InstalledTexts, patches: list[Patch], o: Overlap) -> bool:
    """Two insertions at copies of one `find` the registry text could not tell apart (different
    `within:`), neither adding a copy: on the installed file, do they pick different copies? An
    insertion that adds no copy leaves every copy's number as it was, applied or not, so the copy
    each picks is the same on the file before, between and after them. False whenever it cannot tell.
    Two insertions in one gap (GAP): apart when both orders write the same file, or it cannot tell."""
    if o.kind is Meet.GAP:
        return _orders_agree(texts, patches, o)
    if o.kind is not Meet.COPIES:
        return False
    by_name = {p.name: p for p in patches}
    picks = []
    for name, rid in ((o.first, o.first_rewrite), (o.second, o.second_rewrite)):
        p = by_name.get(name)
        rw = next((r for r in p.rewrites if r.id == rid), None) if p is not None else None
        if p is None or rw is None:
            return False
        (t,) = rw.op.touches() or (None,)
        if t is None or t.role != "anchor" or t.consumes or t.occurrence == "all" or (t.code and t.code in t.writes):
            return False
        copy = _copy_on_file(texts, p, rw)
        if copy is None:
            return False
        picks.append(copy)
    return picks[0][0] == picks[1][0] and picks[0][1] != picks[1][1]


def _orders_agree(texts: InstalledTexts, patches: list[Patch], o: Overlap) -> bool:
    """Two insertions in one gap: do both orders write the same file from the installed text, or
    (both placed after the imports by radpatch) the same module (releases.commute)? True when
    they do, or when it cannot tell (an order that fails is refused by the engine by itself)."""
    by_name = {p.name: p for p in patches}
    pairs = []
    for name, rid in ((o.first, o.first_rewrite), (o.second, o.second_rewrite)):
        p = by_name.get(name)
        rw = next((r for r in p.rewrites if r.id == rid), None) if p is not None else None
        if p is None or rw is None:
            return True
        pairs.append((p, rw))
    text = texts.before(*pairs[0], pairs[1][0].name)
    if text is None:
        return True
    a, b = pairs[0][1].op, pairs[1][1].op
    if gaps.same_either_way(a, b, text) is not False:
        return True
    # different bytes, yet the same module: two radpatch places after the imports that commute
    return _commute(a, b, text)


def _copy_on_file(texts: InstalledTexts, patch: Patch, rw: Rewrite) -> tuple[str, int] | None:
    """(the file, which copy of its `find` in its scope, from 1) the rewrite picks on the installed file."""
    import dataclasses

    from radpatch.rewrite.matching import MatchFailure
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.ops.common.selection import probe
    from radpatch.rewrite.source import Source

    installed = texts.file(patch, rw)
    if installed is None:
        return None
    path, text = installed
    try:
        src = Source.parse(text)
        op = rw.op
        everywhere = dataclasses.replace(op, within=None, occurrence=None)  # type: ignore[type-var]
        with code_errors():
            chosen = probe(lambda: op.forward(src))
            every = probe(lambda: everywhere.forward(src))
    except (RadpatchError, MatchFailure, OSError, UnicodeDecodeError, TypeError, ValueError):
        return None
    if not chosen or not every:
        return None
    n = getattr(op, "occurrence", None)
    if n is None and len(chosen) != 1:
        return None
    pick = chosen[0] if n is None else chosen[n - 1] if isinstance(n, int) and 0 < n <= len(chosen) else None
    if pick is None or pick not in every:
        return None
    return path, every.index(pick) + 1
