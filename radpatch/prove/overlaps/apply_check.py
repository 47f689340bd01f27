"""apply's refusal of overlapping entries (prove.overlaps.pairs finds them): the entries named, and
those applied in the environment, must not overlap on the installed release unless `requires:`
orders them (`check_apply`); an entry ordered after another's `add_import` must not insert that
import again (`refuse_reimport`). Whether the order of two entries matters is tried on the installed
file (prove.overlaps.order_matters: the decision `list` and `verify` take too)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from packaging.version import Version

from radpatch.context import Context
from radpatch.errors import RadpatchError, RefusedError
from radpatch.prove.overlaps import gaps, order_matters, ordering, pairs
from radpatch.prove.overlaps.installed_files import InstalledTexts, installed_texts
from radpatch.prove.overlaps.pairs import Overlap
from radpatch.prove.overlaps.touching import Meet
from radpatch.registry.model import Patch
from radpatch.registry.touch import import_bindings
from radpatch.registry.versions import allows

if TYPE_CHECKING:
    from radpatch.install.targets import InstalledTargets
    from radpatch.state.record import PatchRecord


def refuse_unordered(
    patches: list[Patch], versions: Iterable[Version], applied: Iterable[str] = (), texts: gaps.Texts | None = None
) -> None:
    """For apply: refuse when two of the entries overlap with no order between them, naming both.
    An overlap is what `list` and `verify` report (prove.overlaps.order_matters, one decision): the two
    orders, tried on the installed file `texts` (as it was before either), write different code or one
    fails; without a file to try, what the registry text says. A stack is reported, not refused here.
    `applied`: the entries already applied here (the hint asks the other one to require them)."""
    bad = [o for o in order_matters.overlaps(patches, versions, texts) if not o.ordered and not _stacks(o)]
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
    """refuse_unordered as apply runs it, tried on the installed files `texts` (also what status says
    apply would do of a renamed entry: write.takeover.refusal)."""
    refuse_unordered(patches, versions, applied, texts)
