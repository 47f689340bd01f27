"""The entries radpatch applied that an imported patch was made on top of, and whether the registries
given hold each as applied: import's entry requires them (patch_series._carried), so the proof
(importing.dry_run) needs them in a registry, in the revision the files carry.

Why one refusal for all, each with its way out: att48 #3-#5. An applied entry renamed in the registry
since (the registry's c1n writes what c1 wrote) is met by `apply c1n` (it takes c1's record over,
write.takeover); one revised since (the registry's c1 is another revision) by `apply c1`, which
puts the registry's revision on, or by the registry of the applied revision; one no registry given
has by the registry that holds it. Named one at a time, a user fixed one, re-ran, and met the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name

from radpatch.context import Context
from radpatch.errors import RadpatchError, RefusedError
from radpatch.importing import emit
from radpatch.prove.form import judge
from radpatch.registry.model import Patch
from radpatch.state.decide import patch_state
from radpatch.state.record import PatchRecord, Store
from radpatch.write import takeover


@dataclass(frozen=True)
class Unmet:
    """An applied entry the new entries require that the registries given do not hold as applied."""

    name: str  # as radpatch's record names it
    now: str = ""  # renamed: the registry's entry that writes what it wrote
    revised: bool = False  # the registry's entry of that name is another revision


def registry_files(ctx: Context, entries: list[emit.Entry], labels: dict[str, str]) -> dict[str, Path]:
    """The registries' entries for the scratch registry of the proof when `entries` require applied
    entries import does not write ({} when none: the proof sees the new entries alone); refused,
    naming every one at once with its way out, when a registry given does not hold one as applied."""
    names = {e.name for e in entries}
    needed: dict[str, list[str]] = {}  # requirement -> the patch files whose entries require it
    for e in entries:
        for r in _requires(e):
            if r not in names:
                needed.setdefault(r, []).append(labels.get(e.name, e.name))
    if not needed:
        return {}
    records = Store(ctx.env.purelib).records()
    unmet = [u for r in needed if (u := _unmet(ctx, r, records.get(r))) is not None]
    if unmet:
        where = ", ".join(dict.fromkeys(label for u in unmet for label in needed[u.name]))
        them = "them" if len(unmet) > 1 else "it"
        raise RefusedError(
            f"{where}: the installed files it changes carry {_listed([_said(u) for u in unmet])}, which radpatch "
            f"applied: the patch was made on top of {them}, so its entry requires {them}",
            _way_out(unmet),
        )
    return dict(ctx.registry.files)


def _unmet(ctx: Context, name: str, record: PatchRecord | None) -> Unmet | None:
    registry = ctx.registry
    if name in registry.files:
        try:
            patch = registry.load(name)
        except RadpatchError:
            return None  # the proof names the broken file
        revised = record is not None and record.registry_digest != patch.digest
        return Unmet(name, revised=True) if revised else None
    return Unmet(name, now=_renamed_as(ctx, name, record))


def _renamed_as(ctx: Context, old: str, record: PatchRecord | None) -> str:
    """The registry's entry that is `old` renamed (write.takeover.found: `apply` takes its record
    over), or ""."""
    if record is None:
        return ""
    loaded = set(ctx.registry.names())
    for name in sorted(loaded):
        try:
            patch: Patch = ctx.registry.load(name)
        except RadpatchError:
            continue
        if canonicalize_name(patch.distribution) != canonicalize_name(record.distribution):
            continue
        try:
            got = takeover.found(patch_state(patch, ctx.env, judge), loaded)
        except RadpatchError:
            continue
        if got is not None and got.old.patch == old:
            return name
    return ""


def _said(u: Unmet) -> str:
    if u.now:
        return f"{u.name} (renamed since: the registry's {u.now} writes what it wrote)"
    if u.revised:
        return f"{u.name} (in another revision than the registry's {u.name}: revised since)"
    return f"{u.name} (in no registry given)"


def _way_out(unmet: list[Unmet]) -> str:
    """One line: the one `radpatch apply` that has the renamed and revised ones met, and the registry
    a missing one needs."""
    apply = [u.now or u.name for u in unmet if u.now or u.revised]
    missing = [u.name for u in unmet if not (u.now or u.revised)]
    said = []
    if apply:
        why = [f"{u.now} takes over {u.name}'s record, writing no file" for u in unmet if u.now]
        why += [f"{u.name} goes on again in the registry's revision" for u in unmet if u.revised]
        old = [u.name for u in unmet if u.now or u.revised]
        said.append(
            f"run `radpatch apply {' '.join(apply)}` ({'; '.join(why)}) or give the registry of the applied "
            f"{_listed(old)} (--registry DIR)"
        )
    if missing:
        said.append(f"give the registry that holds {_listed(missing)} (--registry DIR)")
    them = "them" if len(unmet) > 1 else "it"
    return " and ".join(said) + f", then import again; or import the patch on an install without {them}"


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _requires(entry: emit.Entry) -> list[str]:
    found = entry.doc.get("requires", [])
    return [str(r) for r in found] if isinstance(found, list) else []
