"""Plan a patch in memory and prove it before anything is written.

For each file: run every rewrite (rewrite.runner: each must match exactly once), then every proof
step in order (prove.steps.STEPS: compile, names, placement, reverse). The proof never depends on
the layout `find` was typed in; revert writes the exact original bytes radpatch keeps
(state/record.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from radpatch.gcpause import pausing
from radpatch.install.environment import PythonEnv
from radpatch.prove.analysis import analyse
from radpatch.prove.entry_order import check_later_steps
from radpatch.prove.steps import prove
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite import class_decorators
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
    token = class_decorators.SOURCES.set(_package_sources(module, path))
    try:
        analyse(before, module, filename)  # one parse of the original, for its proofs and the rewrites' index both
        after = forward(patch, rws, before, filename) if ran is None else ran
        check_later_steps(patch, rws, before, filename)  # a literal edit a later rewrite of the entry undoes
        pyc = prove(patch, rws, before, after, filename, python, module)
    finally:
        class_decorators.SOURCES.reset(token)
    return PlannedFile(module, path, before, after, pyc=pyc)


def _package_sources(module: str, path: Path) -> tuple[Callable[[str], tuple[str, bool] | None], str] | None:
    """The installed modules beside `module` (at `path`), read by dotted name, for rewrite.class_decorators
    (a class decorator a module of the package defines), and `module`'s package; None where `path` is not
    where `module` sits."""
    parts = module.split(".")
    package = path.name == "__init__.py"
    depth = len(parts) - 1 + package
    if depth >= len(path.parents):
        return None
    root = path.parents[depth]
    sits = root.joinpath(*parts, "__init__.py") if package else root.joinpath(*parts[:-1], parts[-1] + ".py")
    if sits != path:
        return None
    memo: dict[str, tuple[str, bool] | None] = {}

    def read(name: str) -> tuple[str, bool] | None:
        if name not in memo:
            base = root.joinpath(*name.split("."))
            memo[name] = None
            for file, is_package in ((base.with_name(base.name + ".py"), False), (base / "__init__.py", True)):
                try:
                    memo[name] = (file.read_text("utf-8"), is_package)
                    break
                except (OSError, UnicodeDecodeError):
                    continue
        return memo[name]

    return read, module if package else module.rpartition(".")[0]
