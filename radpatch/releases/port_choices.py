"""The `versions:` of a `modules:` name's choices extended to hold the releases port claims for a
module (a gap apply decides by its code, or releases no choice covers whose scope the latest
choice's module still holds), keeping the choices' ranges apart: a choice's range is widened
only where it takes in no release another choice (or another module port assigns) holds; the
releases it cannot reach so get a choice of their own, one per run between the others' releases.
Two modules that would still claim one release are refused, naming both."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.errors import UsageError
from radpatch.registry.model import Patch
from radpatch.releases import yamledit
from radpatch.releases.port_edits import widen


@dataclass
class _Range:
    """One choice's range as port leaves it: its node (None: a choice port adds) and its text."""

    module: str
    text: str
    node: yaml.ScalarNode | None
    was: str


def extend(
    text_of: str,
    root: yaml.MappingNode,
    patch: Patch,
    file: str,
    picked: dict[str, list[Version]],
    known: Iterable[Version],
) -> tuple[list[yamledit.Edit], list[str]]:
    """The edits (and one line each) that make the choices of `file` cover, per module, the releases
    `picked` assigns it, without two modules' ranges taking in one release."""
    listed = sorted(k for k in known if not k.is_prerelease)
    modules = yamledit.get(root, "modules")
    node = yamledit.get(modules, file) if modules is not None else None
    items = node.value if isinstance(node, yaml.SequenceNode) else []
    ranges: list[_Range] = []
    for item, choice in zip(items, patch.module(file).choices):
        ranged = yamledit.get(item, "versions")
        scalar = ranged if isinstance(ranged, yaml.ScalarNode) else None
        ranges.append(
            _Range(
                choice.module, scalar.value if scalar else str(choice.versions), scalar, scalar.value if scalar else ""
            )
        )
    assigned = {v: m for m, vs in picked.items() for v in vs}

    def clash(module: str, text: str) -> list[tuple[Version, str]]:
        """The listed releases `text` takes in that another module holds (a choice's range, or port's assignment)."""
        spec = SpecifierSet(text)
        out = []
        for k in listed:
            if not spec.contains(k, prereleases=True):
                continue
            other = assigned.get(k) or next(
                (r.module for r in ranges if SpecifierSet(r.text).contains(k, prereleases=True)), module
            )
            if other != module:
                out.append((k, other))
        return out

    for module, versions in picked.items():
        mine = [r for r in ranges if r.module == module and r.node is not None]
        if not mine:
            raise UsageError(f"{patch.source}: no `modules: {file}:` choice names {module}", "edit it by hand")
        last = mine[-1]
        for run in _runs(sorted(versions), listed, assigned, ranges, module):
            wider = widen(last.text, run, listed)
            if not clash(module, wider):
                last.text = wider
                continue
            own = f"=={run[0]}" if len(run) == 1 else f">={run[0]},<={run[-1]}"
            taken = clash(module, own)
            if taken:
                at, other = taken[0]
                raise UsageError(
                    f"{patch.source}: modules.{file}: {module} for {own} would take in {at}, which {other} holds",
                    "edit the choices by hand",
                )
            ranges.append(_Range(module, own, None, ""))
    edits: list[yamledit.Edit] = []
    changes: list[str] = []
    for r in ranges:
        if r.node is not None and r.text != r.was:
            edits.append(yamledit.set_scalar(text_of, r.node, r.text))
            changes.append(f"modules.{file}: {r.module} for {r.was} -> {r.text}")
        elif r.node is None:
            assert isinstance(node, yaml.SequenceNode)
            edits.append(yamledit.append_choice(text_of, node, r.module, r.text))
            changes.append(
                f"modules.{file}: {r.module} for {r.text} "
                "(a choice of its own: another module holds the releases between)"
            )
    return edits, changes


def _runs(
    versions: list[Version], listed: list[Version], assigned: dict[Version, str], ranges: list[_Range], module: str
) -> list[list[Version]]:
    """`versions` cut where a listed release between two of them is held by another module."""

    def held_elsewhere(k: Version) -> bool:
        other = assigned.get(k) or next(
            (r.module for r in ranges if SpecifierSet(r.text).contains(k, prereleases=True)), module
        )
        return other != module

    runs: list[list[Version]] = []
    for v in versions:
        if runs and not any(held_elsewhere(k) for k in listed if runs[-1][-1] < k < v):
            runs[-1].append(v)
        else:
            runs.append([v])
    return runs
