"""apply's refusal of overlapping entries (prove.overlaps.pairs finds them): the entries named, and
those applied in the environment, must not overlap on the installed release unless `requires:`
orders them (`check_apply`); an entry ordered after another's `add_import` must not insert that
import again (`refuse_reimport`). What the registry text could not decide (copies picked by
different `within:`, two insertions in one gap) is told on the installed file."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from packaging.version import Version

from radpatch.context import Context
from radpatch.errors import RadpatchError, RefusedError
from radpatch.prove.overlaps import entry_orders, gaps, ordering, pairs
from radpatch.prove.overlaps.gap_pairs import commute_after_imports
from radpatch.prove.overlaps.installed_files import InstalledTexts, installed_texts
from radpatch.prove.overlaps.pairs import Overlap
from radpatch.prove.overlaps.touching import Meet
from radpatch.registry.model import Patch, Rewrite
from radpatch.registry.touch import import_bindings
from radpatch.registry.versions import allows

if TYPE_CHECKING:
    from radpatch.install.targets import InstalledTargets
    from radpatch.state.record import PatchRecord


def refuse_unordered(
    patches: list[Patch],
    versions: Iterable[Version],
    apart: Callable[[Overlap], bool] | None = None,
    applied: Iterable[str] = (),
    texts: gaps.Texts | None = None,
) -> None:
    """For apply: refuse when two of the entries overlap with no order between them, naming both.
    `apart`: tells, from the installed file, an overlap the registry text could not decide that is none.
    `applied`: the entries already applied here (the hint asks the other one to require them).
    `texts`: the modules' installed text, to see two insertions in one gap (prove.overlaps.gaps); such a
    pair is refused only when `apart` says the two orders write different files (see the note above _stacks)."""
    bad = [
        o
        for o in pairs.find(patches, versions, texts)
        if not o.ordered and not _stacks(o) and not (apart is not None and apart(o))
        if o.kind is not Meet.GAP or apart is not None
        if not (texts is not None and _whole_agree(patches, o, texts))
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


def _whole_agree(patches: list[Patch], o: Overlap, texts: gaps.Texts) -> bool:
    """The two entries, run whole in both orders on the file, write the same code: no order to ask
    for (prove.overlaps.entry_orders; two insertions in one gap are told by `apart`)."""
    if o.kind is Meet.GAP:
        return False
    by_name = {p.name: p for p in patches}
    first, second = by_name.get(o.first), by_name.get(o.second)
    return first is not None and second is not None and entry_orders.agree(first, second, o.module, o.versions, texts)


def refuse_reimport(patches: list[Patch], versions: Iterable[Version]) -> None:
    """For apply (att23d F6): an entry ordered after another's `add_import` that inserts the same
    import statement itself (an `insert_after` the last import of `import json`) would add it a
    second time; refused naming the entry that adds it, not upstream (the file was pristine)."""
    by_name = {p.name: p for p in patches}
    after = ordering.after(patches)
    for o in pairs.find(patches, versions):
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


# Two insertions in one gap of the file (prove.overlaps.gaps) are reported by `list` and `verify`; apply
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
    environment (a record whose files no longer carry it is not: state.unloaded.carried), must not
    overlap on the installed release unless `requires:` orders them. A named
    entry declared `obsolete:` on the installed release takes no part: apply does nothing with it.
    `read`: what apply's plan already read of the named entries (install.targets): their
    distributions and files are taken from it, not found and read again."""
    from radpatch.install import locate
    from radpatch.state.record import Store
    from radpatch.state.unloaded import carried

    env = ctx.env
    plan = {r.patch.name: r for r in read}
    named = {p.name for p in patches}
    recorded: dict[str, PatchRecord] = {}
    for d in env.paths:
        for n, rec in Store(d).records().items():
            # a stale record (its files carry none of its code: reinstalled) is not applied here, as status says
            if n not in named and n not in recorded and carried(env, n, d):
                recorded[n] = rec
    others: list[Patch] = []
    unloaded: list[PatchRecord] = []
    for n, rec in recorded.items():
        try:
            others.append(ctx.registry.load(n))
        except RadpatchError:
            unloaded.append(rec)  # compared by what its record says it changed (prove.overlaps.applied)
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
        refuse_unordered_installed(texts, everyone, installed, set(recorded))
        refuse_reimport(everyone, installed)
    if unloaded:
        from radpatch.prove.overlaps import applied

        direct = {p.name: set(p.requires) for p in everyone} | {r.patch: set(r.requires) for r in unloaded}
        applied.refuse(mine, unloaded, ordering.after_names(direct), env, texts)


def refuse_unordered_installed(
    texts: InstalledTexts, patches: list[Patch], versions: Iterable[Version], applied: Iterable[str]
) -> None:
    """refuse_unordered as apply runs it: what the registry text cannot decide told on the installed
    files `texts` (also what status says apply would do of a renamed entry: write.takeover.refusal)."""
    refuse_unordered(patches, versions, lambda o: _apart_on_file(texts, patches, o), applied, texts)


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
    (both placed after the imports by radpatch) the same module (prove.overlaps.commute)? True when
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
    return commute_after_imports(a, b, text)


def _copy_on_file(texts: InstalledTexts, patch: Patch, rw: Rewrite) -> tuple[str, int] | None:
    """(the file, which copy of its `find` in its scope, from 1) the rewrite picks on the installed file."""
    import dataclasses

    from radpatch.rewrite.matching import MatchFailure
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.ops.common.match_probe import probe
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
