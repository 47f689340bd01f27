"""Plan a patch in memory and prove it before anything is written.

For each file: run every rewrite (rewrite.runner: each must match exactly once), then every proof
step in order (prove.steps.STEPS: compile, names, placement, reverse). The proof never depends on
the layout `find` was typed in; revert writes the exact original bytes radpatch keeps
(state/record.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from radpatch.gcpause import pausing
from radpatch.install.environment import PythonEnv
from radpatch.prove.analysis import analyse
from radpatch.prove.entry_order import check_later_steps
from radpatch.prove.steps import prove
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite.runner import forward


@dataclass(frozen=True)
class PlannedFile:
    module: str
    path: Path
    before: bytes
    after: bytes
    pristine: bytes | None = None  # the unpatched file, when `before` is not it (re-applying a new revision)
    pyc: bytes | None = None  # `after`'s checked-hash .pyc, when this interpreter compiled it for the proof

    @property
    def original(self) -> bytes:
        return self.before if self.pristine is None else self.pristine


@pausing
def plan(
    patch: Patch,
    rws: tuple[Rewrite, ...],
    module: str,
    path: Path,
    before: bytes,
    python: PythonEnv | None = None,
    ran: bytes | None = None,
) -> PlannedFile:
    """`ran`: the rewrites' result on `before` when they already ran on it (prove.below), proven here."""
    filename = str(path)
    analyse(before, module, filename)  # one parse of the original, for its proofs and the rewrites' index both
    after = forward(patch, rws, before, filename) if ran is None else ran
    check_later_steps(patch, rws, before, filename)  # a literal edit a later rewrite of the entry undoes
    pyc = prove(patch, rws, before, after, filename, python, module)
    return PlannedFile(module, path, before, after, pyc=pyc)
