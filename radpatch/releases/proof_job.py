"""One release's proof job of verify, as records: the stack of entries (Layer) with their target
files (File) as the release's wheel has them, the candidate bases (ProofBase), and the answer
(Proof). A job's key is what its answer depends on besides radpatch's code (radpatch.releases.proof_cache
keeps answers by it); the records cross to worker processes as they are.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from packaging.version import Version

from radpatch.prove.refusal import Refusal
from radpatch.prove.star_exports import ModuleSource
from radpatch.registry import versions as policy
from radpatch.registry.model import Patch, Rewrite

Checks = dict[str, "bool | None"]


@dataclass(frozen=True)
class File:
    file: str
    module: str
    relpath: str
    rewrites: tuple[Rewrite, ...]
    data: bytes
    # the modules its star imports read (followed through theirs), as the release's wheel has them:
    # the placement step tells from them whether a later star import rebinds what the patch changes
    stars: tuple[ModuleSource, ...] = ()
    # the modules of the package its decorators are imported from (followed), as the wheel has them:
    # obsolete detection reads what such a decorator is (radpatch.releases.imported_decorators)
    decorators: tuple[ModuleSource, ...] = ()
    # how the module was picked where the `versions:` table does not decide (install.locate.pick, apply's own):
    # "" where it does
    chosen: str = ""
    # the other `.py` files of its package, as the wheel has them (releases.package_files), where the
    # entry may add an import or take a top-level name away and they were read; None: not read
    site: tuple[tuple[str, bytes], ...] | None = None


def _files_key(files: tuple[File, ...]) -> list[object]:
    return [
        [
            f.file,
            f.relpath,
            [r.id for r in f.rewrites],
            _sha(f.data),
            [[s.module, s.package, _sha(s.data)] for s in f.stars],
            [[s.module, s.package, _sha(s.data)] for s in f.decorators],
            *([] if f.site is None else [[[r, _sha(d)] for r, d in f.site]]),
        ]
        for f in files
    ]


@dataclass(frozen=True)
class Layer:
    """One entry of a stack, and its files on the release."""

    patch: Patch
    files: tuple[File, ...]
    version: Version | None = None  # the release (for a requirement's `obsolete:`)

    def declared_obsolete(self, version: Version | None) -> bool:
        """The entry declares `version` in its `obsolete:` range (apply leaves it alone there)."""
        obsolete = self.patch.obsolete
        return version is not None and obsolete is not None and policy.allows(obsolete, version)

    def key(self) -> list[object]:
        return [self.patch.name, self.patch.digest, self.declared_obsolete(self.version), _files_key(self.files)]


@dataclass(frozen=True)
class ProofBase:
    """A release the entry is written for (its declared range), whose files show what the entry's
    change is: each layer's files there, in the job's order."""

    version: Version
    files: tuple[tuple[File, ...], ...]  # per layer of the job

    def key(self, layers: tuple[Layer, ...]) -> list[object]:
        return [[la.declared_obsolete(self.version), _files_key(fs)] for la, fs in zip(layers, self.files)]


@dataclass(frozen=True)
class Job:
    layers: tuple[Layer, ...]  # the requirements, in order, then the entry
    bases: tuple[ProofBase, ...] = ()  # candidates, the first where every layer applies is used
    # bases were read for the release (verify's second proof), even if none differs from its files
    searched: bool = False
    # the target Python's major.minor the proof judges version tests for (verify --python, else radpatch's own)
    python: tuple[int, int] | None = None
    # releases the entry claims, nearest first: on the first where every layer applies, each rewrite must
    # change the same code as here (radpatch.releases.surroundings)
    reference: tuple[ProofBase, ...] = ()

    @property
    def entry(self) -> Layer:
        return self.layers[-1]

    def key(self) -> str:
        """What the proof's answer depends on besides radpatch's code: entries, rewrites, bytes."""
        bases = [b.key(self.layers) for b in self.bases]
        python = [] if self.python is None else [f"python={self.python[0]}.{self.python[1]}"]
        ref = [["reference", [[str(r.version), r.key(self.layers)] for r in self.reference]]] if self.reference else []
        layers = [la.key() for la in self.layers]
        return json.dumps([layers, bases, *(["searched"] if self.searched else []), *python, *ref])


@dataclass(frozen=True)
class Proof:
    checks: Checks
    refusal: Refusal | None
    # what apply checks that this proof could not, without an installed target (prove.unchecked)
    not_checked: tuple[str, ...] = ()

    @property
    def error(self) -> str | None:
        return None if self.refusal is None else f"{self.refusal.step}: {self.refusal.why}"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
