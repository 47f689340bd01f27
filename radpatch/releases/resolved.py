"""The files `apply` would change on a release, as verify reads them: the entry's own (`resolve`: the
`module` check), and those of the entries it `requires:`, stacked below it in apply's order; a
required entry whose own `supported:` leaves the release out is refused there (`unsupported`), as
apply refuses it."""

from __future__ import annotations

import dataclasses
import functools

from packaging.utils import canonicalize_name
from packaging.version import Version

from radpatch.errors import RefusedError
from radpatch.install import locate
from radpatch.prove.refusal import Cause, Refusal
from radpatch.registry import versions as policy
from radpatch.registry.model import ModuleChoice, NamedModule, Patch, rewrites_by_file
from radpatch.releases import modules
from radpatch.releases.proof_job import File, Layer
from radpatch.releases.wheel_records import Release


def requirement_layers(
    requires: tuple[Patch, ...], patch: Patch, v: Version, release: Release
) -> tuple[Layer, ...] | None:
    """The layers of `patch`'s requirements (of its distribution) on release `v`, as verify stacks
    them; None when one of them names no module there."""
    out = []
    for p in requires:
        if canonicalize_name(p.distribution) != canonicalize_name(patch.distribution):
            continue
        files, why = resolve(p, v, release)
        if why is not None:
            return None
        out.append(Layer(p, files, version=v))
    return tuple(out)


def uncovered_requirement(requires: tuple[Patch, ...], patch: Patch, v: Version, release: Release) -> str | None:
    """Why `requirement_layers` has no layers for release `v`, in verify's words: the first requirement
    (of `patch`'s distribution) that names no module there; None when each does."""
    for p in requires:
        if canonicalize_name(p.distribution) == canonicalize_name(patch.distribution):
            why = resolve(p, v, release)[1] or unsupported(p, v)
            if why is not None:
                return f"requires: {p.name} (required): {why.why}"
    return None


def unsupported(required: Patch, v: Version) -> Refusal | None:
    """A required entry whose own `supported:` leaves out release `v`: apply refuses it there, so the
    entries requiring it cannot be applied either (port them together)."""
    refused = policy.refusal(required.supported, required.range, v, required.prereleases, required.name)
    if refused is None:
        return None
    why = f"it supports {required.range}, not {v} (apply refuses it there)"
    if policy.allows(required.supported, v):  # a pre-release it refuses (`prereleases: refuse`)
        why = f"it {refused.message.removeprefix(f'{required.name} ')} (apply refuses it there)"
    return Refusal("requires", why, f"port it with the entries requiring it (`radpatch port {required.name} ...`)")


def stacked(requires: tuple[Patch, ...], patch: Patch, file: str, v: Version, release: Release) -> bytes | None:
    """The bytes of `file` (a `modules:` name) on release `v` as the requirements leave them (apply's order), or the
    release's own when a requirement does not apply or names no module there."""
    files, why = resolve(patch, v, release)
    mine = next((f for f in files if f.file == file), None)
    if why is not None or mine is None:
        return None
    layers = requirement_layers(requires, patch, v, release)
    if not layers:
        return mine.data
    from radpatch.rewrite import runner

    data = {mine.relpath: mine.data}
    for layer in layers:
        if layer.declared_obsolete(v):
            continue
        for f in layer.files:
            if f.relpath in data:
                try:
                    data[f.relpath] = runner.forward(layer.patch, f.rewrites, data[f.relpath], f.relpath)
                except RefusedError:
                    return mine.data
    return data[mine.relpath]


def resolve(patch: Patch, v: Version, release: Release) -> tuple[tuple[File, ...], Refusal | None]:
    """The files apply would change for release `v`, or why it cannot pick them (the `module` check)."""
    by_file = rewrites_by_file(patch, v)
    if not by_file:
        why = f"no rewrite of {patch.name} applies to {patch.distribution} {v}"
        return (), Refusal("module", why, "give a rewrite (or a variant) for this release, or narrow `supported`")
    files: list[File] = []
    for file, rws in by_file.items():
        declared = patch.module(file)
        choice, chosen = declared.module_for(v), ""
        if locate.by_code(declared, v):  # overlapping choices, a pre-release, or a gap between ranges: as apply
            on_wheel = functools.partial(modules.choose, rws=rws, release=release)
            got = locate.pick(patch, declared, rws, patch.distribution, v, on_wheel, release.read)
            if isinstance(got, RefusedError):
                why = got.message.removeprefix(f"{patch.name}: ")
                gone = why.startswith("none of")
                hint = "give the choices `versions:` ranges that do not overlap"
                if gone and not any(policy.allows(c.versions, v) for c in declared.choices):
                    why = f"no `modules:` choice of {declared.name!r} covers {v}, and {why}"
                    hint = f"add a choice for {v} (`radpatch port {patch.name} --to {v}` finds the module by its code)"
                return tuple(files), Refusal("module", why, hint, cause=Cause.UNCOVERED if gone else None, file=file)
            choice, chosen = got, _chosen_words(declared, v, got)
        if choice is None:
            listed = "; ".join(f"{c.module} for {c.versions or 'any version'}" for c in declared.choices)
            why = f"{patch.name} declares no single module {file!r} for {v} ({listed})"
            hint = "`radpatch port NAME --to VERSION` extends or adds a choice"
            return tuple(files), Refusal("module", why, hint, cause=Cause.UNCOVERED, file=file)
        found = modules.file_of(patch, file, rws, choice, release)
        if isinstance(found, Refusal):
            return tuple(files), found
        files.append(dataclasses.replace(found, chosen=chosen) if chosen else found)
    return tuple(files), None


def _chosen_words(declared: NamedModule, v: Version, got: ModuleChoice) -> str:
    """How apply picked `got` for release `v` where the table does not decide, in verify's words."""
    covering = [c.module for c in declared.choices if policy.allows(c.versions, v)]
    why = f"the `versions:` of {', '.join(covering)} all cover {v}" if len(covering) > 1 else f"{v} is a pre-release"
    if not covering:
        why = f"no choice's `versions:` covers {v}: `radpatch port` extends {got.module}'s"
    return f"{declared.name}: {got.module}, chosen by its code as apply chooses ({why}; it alone defines the scopes)"


def gaps(patch: Patch, v: Version, names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The `modules:` names that no choice's `versions:` covers on release `v`, each with the module
    apply picks there by its code (`names`: the modules `resolve` gave, in its order)."""
    return tuple(
        (f, m)
        for f, m in zip(rewrites_by_file(patch, v), names)
        if len(patch.module(f).choices) > 1 and not any(policy.allows(c.versions, v) for c in patch.module(f).choices)
    )
