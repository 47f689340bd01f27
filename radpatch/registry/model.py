"""Typed records for a loaded registry entry. Nothing past the loader sees a raw dict. The operation
spec (`Operation`, `Field` and the loader's helpers for it) is `registry.operation_spec`'s, imported
from here too."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.registry.operation_spec import (
    OCCURRENCE,
    SCOPE,
    WITHIN,
    Fail,
    Field,
    Occurrence,
    Operation,
    PayloadFile,
    code_key,
)
from radpatch.registry.versions import allows

# the operation spec lives in registry.operation_spec; the typed model is imported from here
__all__ = [
    "OCCURRENCE",
    "SCOPE",
    "WITHIN",
    "Fail",
    "Field",
    "Occurrence",
    "Operation",
    "PayloadFile",
    "code_key",
    "Knob",
    "ModuleChoice",
    "NamedModule",
    "Patch",
    "Rewrite",
    "creates",
    "rewrites_by_file",
]


@dataclass(frozen=True)
class Knob:
    name: str
    default: str
    meaning: str


@dataclass(frozen=True)
class VouchedExec:
    """A `vouched_exec:` item: an `exec`/`eval` of code radpatch cannot read (not a literal) that the
    entry's author vouches stores none of the names a rename followed for the entry may be rebound by.
    Anchored by `file` (its path in the wheel), `scope` (the enclosing def/class, dotted, or
    "<module>"), `code` (the call's statement, compared as a syntax tree: formatting and comments
    aside), `occurrence` (which of the identical statements in that scope, 1 for the first) and `binds`
    (the statements binding the names the call passes, as radpatch.releases.exec_sites renders them) and
    `reads` (a digest of the module's code the call depends on: radpatch.releases.exec_reads): anything
    of these changed, the call is no longer vouched for (issue 23, att52 #3a, #3b, vouch2 #1)."""

    file: str
    code: str
    location: str = ""  # file:line:col of the item in its registry file, for messages
    scope: str = ""  # "": not given (an item written before items named their place): it vouches for nothing
    occurrence: int = 1
    binds: tuple[str, ...] = ()
    reads: str = ""  # digest of the module's code the call depends on (exec_reads); "": not given, vouches for nothing


@dataclass(frozen=True)
class ModuleChoice:
    """`module` holds the code to change for installed versions in `versions`.

    A module is named by its import name, as `import` takes it: `vllm.reasoning` is the package's
    `vllm/reasoning/__init__.py` when the install has one (a package wins over a same-named
    `.py`, as Python's import system decides), else `vllm/reasoning.py`. Which one the install
    has is known only at install time: install.locate sets `package` (`relpath` follows it).
    `vllm.reasoning.__init__` names the package's file directly, as before."""

    versions: SpecifierSet
    module: str  # dotted name, e.g. vllm.v1.core.kv_cache_utils
    package: bool = False  # the installed module is a package: its code is in <module>/__init__.py

    @property
    def relpath(self) -> str:
        return self.package_relpath if self.package else self.module_relpath

    @property
    def module_relpath(self) -> str:
        return self.module.replace(".", "/") + ".py"

    @property
    def package_relpath(self) -> str:
        """Where the code is if the module is a package (`a/b/__init__.py` for `a.b`)."""
        if self.module.endswith(".__init__"):
            return self.module_relpath
        return self.module.replace(".", "/") + "/__init__.py"

    @property
    def candidates(self) -> tuple[str, ...]:
        """The files the import name may stand for, the package first (as Python looks them up)."""
        return tuple(dict.fromkeys((self.package_relpath, self.module_relpath)))


@dataclass(frozen=True)
class NamedModule:
    """One name of the entry's `modules:` (the `file:` a rewrite names) and its module choices: which
    module it is depends on the installed version."""

    name: str
    choices: tuple[ModuleChoice, ...]

    def module_for(self, version: Version) -> ModuleChoice | None:
        hits = [c for c in self.choices if allows(c.versions, version)]
        return hits[0] if len(hits) == 1 else None


# --- operations: each lives in one module of radpatch/rewrite/ops/, its spec a frozen dataclass
# subclassing Operation. The loader, the JSON Schema and the reference find them there
# (radpatch.rewrite.ops.OPERATIONS) and read each spec's FIELDS.


@dataclass(frozen=True)
class Rewrite:
    id: str
    file: str  # the `modules:` name the rewrite changes (its `file:` key, or the one name)
    versions: SpecifierSet | None
    op: Operation
    location: str  # "file:line" of the rewrite in its registry file, for messages

    def applies_to(self, version: Version) -> bool:
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
    modules: tuple[NamedModule, ...]  # `modules:`, each by its name
    rewrites: tuple[Rewrite, ...]
    source: Path
    digest: str  # sha256 over the registry file and its payloads
    supported_text: str = ""  # the range as written in the registry, for messages
    distributions: tuple[str, ...] = ()  # every distribution the entry names (`distribution:`); first = `distribution`
    providers: Literal["any", "named"] = "any"  # "any": also other distributions installing the same modules
    prereleases: Literal["accept", "refuse"] = (
        "accept"  # dev/rc versions inside `supported` (radpatch.registry.versions)
    )
    requires: tuple[str, ...] = ()  # the entries (by name) this one is applied after, as written
    upstream: tuple[str, ...] = ()  # URLs of the upstream PRs/issues that would make the entry obsolete
    vouched_exec: tuple[VouchedExec, ...] = ()  # exec/eval sites the author vouches store no renamed name
    # a stand-in for an entry radpatch's record holds that no loaded registry has (state.unloaded):
    # no rewrites, its recorded digest; its state is read from the record alone
    from_record: bool = False

    @property
    def named(self) -> tuple[str, ...]:
        return self.distributions or (self.distribution,)

    @property
    def packages(self) -> tuple[str, ...]:
        """Top-level import packages of the patch's modules (e.g. ("vllm",)), in registry order."""
        return tuple(dict.fromkeys(c.module.split(".")[0] for t in self.modules for c in t.choices))

    @property
    def module_files(self) -> tuple[str, ...]:
        """Every file the patch may change, for any version (relative to site-packages): for a
        module named by its import name, both the package's `__init__.py` and the `.py` file."""
        return tuple(dict.fromkeys(p for t in self.modules for c in t.choices for p in c.candidates))

    @property
    def range(self) -> str:
        return self.supported_text or str(self.supported)

    def module(self, name: str) -> NamedModule:
        return next(t for t in self.modules if t.name == name)

    def rewrites_for(self, version: Version) -> tuple[Rewrite, ...]:
        return tuple(r for r in self.rewrites if r.applies_to(version))


def creates(rws: tuple[Rewrite, ...]) -> bool:
    """The rewrites of one module create it (its state before is no file: Operation.CREATES)."""
    return any(r.op.CREATES for r in rws)


def rewrites_by_file(patch: Patch, version: Version) -> dict[str, tuple[Rewrite, ...]]:
    """`modules:` name -> the rewrites that apply to `version`, in registry order."""
    out: dict[str, list[Rewrite]] = {}
    for r in patch.rewrites_for(version):
        out.setdefault(r.file, []).append(r)
    return {k: tuple(v) for k, v in out.items()}
