"""Typed records for a loaded registry entry. Nothing past the loader sees a raw dict."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Union

from packaging.specifiers import SpecifierSet
from packaging.version import Version


@dataclass(frozen=True)
class Knob:
    name: str
    default: str
    meaning: str


@dataclass(frozen=True)
class ModuleChoice:
    """`module` holds the code to change for installed versions in `versions`."""

    versions: SpecifierSet
    module: str  # dotted name, e.g. vllm.v1.core.kv_cache_utils

    @property
    def relpath(self) -> str:
        return self.module.replace(".", "/") + ".py"


@dataclass(frozen=True)
class Target:
    """A named file a patch changes; which module that is depends on the installed version."""

    name: str
    choices: tuple[ModuleChoice, ...]

    def module_for(self, version: Version) -> ModuleChoice | None:
        from radpatch.versions import allows

        hits = [c for c in self.choices if allows(c.versions, version)]
        return hits[0] if len(hits) == 1 else None


@dataclass(frozen=True)
class InsertDefinitions:
    """Insert top-level definitions from a payload file next to a named top-level definition."""

    payload: Path
    payload_source: bytes
    names: tuple[str, ...]
    anchor: str
    where: Literal["before", "after"]


@dataclass(frozen=True)
class AddParameter:
    """Add `name=default` as the last positional-or-keyword parameter of `function`."""

    function: str
    name: str
    default: str


@dataclass(frozen=True)
class InsertStatements:
    """Insert `code` right before/after the one statement in `scope` equal to `find`."""

    scope: str
    find: str
    code: str
    where: Literal["before", "after"]


@dataclass(frozen=True)
class Replace:
    """Replace the one statement or expression in `scope` equal to `find` by `with_`."""

    scope: str
    find: str
    with_: str


Operation = Union[InsertDefinitions, AddParameter, InsertStatements, Replace]


@dataclass(frozen=True)
class Rewrite:
    id: str
    target: str
    versions: SpecifierSet | None
    op: Operation
    where: str  # "file:line" of the rewrite in its registry file, for messages

    def applies_to(self, version: Version) -> bool:
        from radpatch.versions import allows

        return self.versions is None or allows(self.versions, version)


@dataclass(frozen=True)
class Patch:
    name: str
    summary: str
    description: str
    distribution: str
    supported: SpecifierSet
    obsolete: SpecifierSet | None
    knobs: tuple[Knob, ...]
    targets: tuple[Target, ...]
    rewrites: tuple[Rewrite, ...]
    source: Path
    digest: str  # sha256 over the registry file and its payloads
    supported_text: str = ""  # the range as written in the registry, for messages
    distributions: tuple[str, ...] = ()  # every distribution the entry names (`distribution:`); first = `distribution`
    providers: Literal["any", "named"] = "any"  # "any": also other distributions installing the same modules
    prereleases: Literal["accept", "refuse"] = "accept"  # dev/rc versions inside `supported` (radpatch.versions)

    @property
    def named(self) -> tuple[str, ...]:
        return self.distributions or (self.distribution,)

    @property
    def packages(self) -> tuple[str, ...]:
        """Top-level import packages of the patch's modules (e.g. ("vllm",)), in registry order."""
        return tuple(dict.fromkeys(c.module.split(".")[0] for t in self.targets for c in t.choices))

    @property
    def module_files(self) -> tuple[str, ...]:
        """Every file the patch may change, for any version (relative to site-packages)."""
        return tuple(dict.fromkeys(c.relpath for t in self.targets for c in t.choices))

    @property
    def range(self) -> str:
        return self.supported_text or str(self.supported)

    def target(self, name: str) -> Target:
        return next(t for t in self.targets if t.name == name)

    def rewrites_for(self, version: Version) -> tuple[Rewrite, ...]:
        return tuple(r for r in self.rewrites if r.applies_to(version))


def rewrites_by_file(patch: Patch, version: Version) -> dict[str, tuple[Rewrite, ...]]:
    """Target name -> the rewrites that apply to `version`, in registry order."""
    out: dict[str, list[Rewrite]] = {}
    for r in patch.rewrites_for(version):
        out.setdefault(r.target, []).append(r)
    return {k: tuple(v) for k, v in out.items()}
