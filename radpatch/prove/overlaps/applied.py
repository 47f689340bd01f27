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

from typing import TYPE_CHECKING

from packaging.version import Version

from radpatch.context import Context
from radpatch.errors import RadpatchError, RefusedError
from radpatch.prove.overlaps import order_matters, ordering
from radpatch.prove.overlaps.applied_clash import _UNREAD, AppliedClash, _module
from radpatch.prove.overlaps.applied_gaps import _imports_read, _one_gap
from radpatch.prove.overlaps.installed_files import InstalledTexts
from radpatch.prove.overlaps.touching import Meet, meet
from radpatch.registry.model import Patch
from radpatch.state import touched
from radpatch.state.record import PatchRecord, Store

if TYPE_CHECKING:
    from radpatch.install.environment import PythonEnv


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
            verdict = order_matters.recorded(on_disk, p, version, r)  # the decision loaded pairs take too
            if found and not order_matters.overlapping(verdict, True):
                continue  # run in both orders from the record's kept texts, the two write the same code
            if not found and order_matters.overlapping(verdict, False):
                found = [_differ(p, r)]  # both orders apply and write different code
            gap = _one_gap(on_disk, p, version, r) if on_disk is not None and not found else None
            out.extend(found if gap is None else [gap])
    return out


def _imports_only(p: Patch, version: Version, r: PatchRecord) -> bool:
    """Every rewrite of `p` in a module the record changed adds an import (`add_import`)."""
    changed = {f.module.removesuffix(".__init__") for f in r.files}
    mine = [rw for rw in p.rewrites_for(version) if _module(p, rw, version) in changed]
    return bool(mine) and all(rw.op.at_imports() == "import" for rw in mine)


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


def _differ(p: Patch, r: PatchRecord) -> AppliedClash:
    return AppliedClash(
        p.name,
        r.patch,
        f"{p.name} and {r.patch} overlap: run in both orders (from {r.patch}'s record of the file before and after "
        f"it), the two write different code; {r.patch} is applied here (from a registry this run does not load) "
        "and nothing orders them (`requires:`)",
        f"if {p.name} is meant to stack on {r.patch}, add `requires: [{r.patch}]` to {p.name} and pass "
        f"{r.patch}'s registry with --registry as well; else revert {r.patch} first",
        True,
    )


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
