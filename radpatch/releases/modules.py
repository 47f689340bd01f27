"""Which file of a release's wheel a `modules:` name is, as apply picks it from an install (install.locate).

A module is named by its import name: `vllm.reasoning` is the package's `vllm/reasoning/__init__.py`
when the wheel has one (a package wins over a same-named `.py`, as `import` decides), else
`vllm/reasoning.py`. A module the rewrites create (`create_module`) must be absent from the release:
its state before is no file (the empty module the proof runs on). A release that has it already is
obsolete for the entry when the file is the one the entry creates (compared as syntax trees: the
proof's `pristine` check then says so), else refused here ("the release already has this module").
verify, matrix, port and overlaps all resolve through here.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable

from radpatch.prove.refusal import Cause, Refusal
from radpatch.prove.star_exports import reachable
from radpatch.registry.model import ModuleChoice, Patch, Rewrite, creates
from radpatch.releases import imported_decorators
from radpatch.releases.proof_job import File
from radpatch.releases.wheel_records import Release


def needs(patches: Iterable[Patch]) -> frozenset[str]:
    """Every wheel member the patches' `modules:` may be, for any version: both files an import name may be."""
    return frozenset(p for patch in patches for t in patch.modules for c in t.choices for p in c.candidates)


def choose(choice: ModuleChoice, rws: tuple[Rewrite, ...], release: Release) -> ModuleChoice:
    """`choice` resolved to the file the release has, as install.locate resolves it in an install."""
    if choice.package or choice.module.endswith(".__init__"):
        return choice
    if any(r.op.creates_package() for r in rws) or release.read(choice.package_relpath) is not None:
        return dataclasses.replace(choice, package=True)
    return choice


def file_of(
    patch: Patch, file: str, rws: tuple[Rewrite, ...], choice: ModuleChoice, release: Release
) -> File | Refusal:
    """The file of `file` (a `modules:` name) on the release (its bytes; b"" for a module the rewrites
    create), or why not."""
    choice = choose(choice, rws, release)
    data = release.read(choice.relpath)
    if creates(rws):
        if data is None:
            return File(file, choice.module, choice.relpath, rws, b"")
        if _same_tree(data, _created(rws)):
            return File(file, choice.module, choice.relpath, rws, data)  # obsolete: the proof says so
        why = (
            f"the release already has this module: the wheel {release.wheel} has {choice.relpath} "
            f"(module {choice.module}), and it is not the one {patch.name} creates"
        )
        return Refusal(
            "module",
            why,
            "rewrite the release's module instead of creating it, or limit the entry's `supported` "
            "(or the rewrite's `versions:`) to the releases without it",
        )
    if data is None:
        why = (
            f"the wheel {release.wheel} has no {' or '.join(choose_names(choice))} "
            f"(module {choice.module}, declared for {choice.versions or 'any version'})"
        )
        hint = "`radpatch port NAME --to VERSION` finds where the code moved"
        return Refusal("module", why, hint, cause=Cause.NO_MODULE, file=file)
    stars, decorated = (
        reachable(release.read, choice.relpath),
        imported_decorators.reachable(release.read, choice.relpath),
    )
    return File(file, choice.module, choice.relpath, rws, data, stars, decorated)


def choose_names(choice: ModuleChoice) -> tuple[str, ...]:
    """The files looked for: the one named, or (an import name) the module's `.py`, then the package's."""
    if choice.package or choice.module.endswith(".__init__"):
        return (choice.relpath,)
    return (choice.module_relpath, choice.package_relpath)


def _created(rws: tuple[Rewrite, ...]) -> bytes:
    return next((bytes(getattr(r.op, "data", b"")) for r in rws if r.op.CREATES), b"")


def _same_tree(a: bytes, b: bytes) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError):
        return False
