"""What is installed for one patch, read once before anything is decided: the distribution that
provides its modules (locate), the files the entry's current revision rewrites there and their
bytes, and RECORD's hashes. The first step of `apply`, `revert` and `status`: state.decide then
decides from what is read here and from radpatch's record, and calls nothing of install/ back,
except state.unloaded for a recorded entry no loaded registry has (it reads that entry's
distribution and record_digest itself).

A failure to find or read a file is kept as a value (the error it is), not raised: the decision
raises it, or reads it as incompatible, only where it needs the file (an entry that no longer
patches this version never asks)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import RadpatchError, RefusedError
from radpatch.files import read_regular
from radpatch.install import locate, module_choice, wheel_record
from radpatch.install.environment import Installed, PythonEnv, module_path
from radpatch.registry import versions
from radpatch.registry.model import Patch, Rewrite, creates, rewrites_by_file


@dataclass(frozen=True)
class RewrittenFile:
    """One file the current revision of an entry rewrites in this install."""

    module: str
    relpath: str
    rewrites: tuple[Rewrite, ...]
    declared: str = ""  # the module name the entry declares it by


@dataclass(frozen=True)
class ReadFile:
    """A file the entry rewrites, as read: its bytes (None: no such file), or what stopped the read."""

    rewritten: RewrittenFile  # which file it is, and the rewrites it gets
    path: Path  # dist.root / relpath, where module_path looked
    data: bytes | None = None
    wheel_sha: str | None = None  # RECORD's sha256 of it (None: RECORD gives none)
    problem: RadpatchError | None = None  # module_path refused it (not a regular file, an editable install)
    absent: RefusedError | None = None  # nothing at `path`: what module_path says of a module that must exist
    error: OSError | None = None  # reading it failed (FileNotFoundError: no such file; `data` is None)
    creates: bool = False  # the entry creates this module (Operation.CREATES): it may be absent


@dataclass(frozen=True)
class Declined:
    """Why the entry does not patch the installed version."""

    why: str
    obsolete: bool = False  # the version already contains the change (else the entry does not cover it)


@dataclass(frozen=True)
class InstalledTargets:
    """What is installed for a patch: its distribution and the files it rewrites, read."""

    patch: Patch
    dist: Installed | None
    ambiguous: locate.AmbiguousProvider | None = None  # two distributions (or dist-infos) provide the package
    missing: str = ""  # why no distribution is found (dist None)
    dist_record: wheel_record.InstallId = wheel_record.InstallId()  # the install's identity (empty: RECORD unreadable)
    declined: Declined | None = None  # the entry does not patch this version
    # the current revision's files, or the refusal saying why they cannot be named (with its own hint
    # when it has one: a compiled extension shadows the module)
    files: tuple[ReadFile, ...] | RefusedError = ()


def read(patch: Patch, env: PythonEnv) -> InstalledTargets:
    """The distribution the patch targets in `env` and the files it rewrites, read (see the module)."""
    try:
        dist = distribution(env, patch)
    except locate.AmbiguousProvider as exc:
        return InstalledTargets(patch, None, ambiguous=exc)
    if dist is None:
        return InstalledTargets(patch, None, missing=locate.missing_reason(env, patch))
    declined, by_file, made = _entry(patch, dist)
    found = rewritten_files(patch, dist, by_file)
    files = found if isinstance(found, RefusedError) else tuple(_read_file(dist, t, t.declared in made) for t in found)
    return InstalledTargets(patch, dist, dist_record=record_digest(dist), declined=declined, files=files)


def _entry(patch: Patch, dist: Installed) -> tuple[Declined | None, dict[str, tuple[Rewrite, ...]], set[str]]:
    """What the entry says for the installed version: why it does not patch it (out of range,
    obsolete, no rewrite) or None; its rewrites by the module names it declares; the modules it creates."""
    v = dist.version
    by_file = rewrites_by_file(patch, v)
    made = {file for file, rws in by_file.items() if creates(rws)}
    refused = versions.refusal(
        patch.supported, patch.range, v, patch.prereleases, f"{dist.name} {v} is installed; {patch.name}"
    )
    if refused is not None:
        return Declined(refused.message), by_file, made
    if patch.obsolete is not None and versions.allows(patch.obsolete, v):
        obsolete = f"{dist.name} {v} already contains this change (obsolete for {patch.obsolete})"
        return Declined(obsolete, obsolete=True), by_file, made
    if not by_file:
        return (
            Declined(
                f"{patch.name} has no rewrite for {dist.name} {v} (every rewrite is limited to other versions): "
                "nothing to apply; the entry needs a variant for this version"
            ),
            by_file,
            made,
        )
    return None, by_file, made


def record_digest(dist: Installed) -> wheel_record.InstallId:
    """The install's identity (from its RECORD): it changes when pip installs other files, not when
    it installs the same files again from another wheel file."""
    return wheel_record.identity(dist.dist_info / "RECORD")


def rewritten_files(
    patch: Patch, dist: Installed, by_file: dict[str, tuple[Rewrite, ...]]
) -> list[RewrittenFile] | RefusedError:
    """The files the entry's current revision rewrites in `dist` (`by_file`: its rewrites for this
    version, by the module names it declares), or the refusal saying why it cannot say (a value,
    never raised)."""
    out: list[RewrittenFile] = []
    seen: dict[str, str] = {}
    for file, rws in by_file.items():
        choice = module_choice.choose_module(patch, patch.module(file), rws, dist)
        if isinstance(choice, RefusedError):
            return choice
        if choice.relpath in seen:
            return RefusedError(
                f"{patch.name}: modules {seen[choice.relpath]!r} and {file!r} are both {choice.module} "
                f"for {dist.name} {dist.version}; use one name for it"
            )
        seen[choice.relpath] = file
        out.append(RewrittenFile(choice.module, choice.relpath, rws, file))
    return out


def _read_file(dist: Installed, t: RewrittenFile, made: bool) -> ReadFile:
    path = dist.root / t.relpath
    wheel = dist.recorded_sha256(t.relpath)
    try:
        module_path(dist, t.relpath, missing_ok=True)  # refuses what is there but not a module, or an editable install
    except RadpatchError as exc:
        return ReadFile(t, path, wheel_sha=wheel, problem=exc, creates=made)
    twin = _shadowed_twin(dist, t) if made else None
    if twin is not None:
        return ReadFile(t, path, wheel_sha=wheel, problem=twin, creates=made)
    absent = None
    if not (path.is_file() or path.is_symlink()):
        try:
            module_path(dist, t.relpath)
        except RefusedError as exc:
            absent = exc
    try:
        return ReadFile(t, path, read_regular(path), wheel, absent=absent, creates=made)
    except OSError as exc:
        return ReadFile(t, path, None, wheel, absent=absent, error=exc, creates=made)


def _shadowed_twin(dist: Installed, t: RewrittenFile) -> RefusedError | None:
    """A package the entry creates (`pkg/m/__init__.py`) where the module `pkg/m.py` is installed:
    Python imports the package, so the new file would hide the module, not stand beside it."""
    if not t.relpath.endswith("/__init__.py"):
        return None
    twin = t.relpath[: -len("/__init__.py")] + ".py"
    if not (dist.root / twin).is_file() or (dist.root / t.relpath).exists():
        return None
    return RefusedError(
        f"{t.module}: {twin} is installed, and the entry creates {t.relpath}: Python would import the new "
        f"package instead of {twin}, hiding it",
        f"rewrite {twin} instead of creating a package of its name, or limit the entry's `versions:` to "
        "the releases without it",
    )


_FOUND: dict[tuple[object, ...], tuple[tuple[object, ...], Installed | None]] = {}


def distribution(env: PythonEnv, patch: Patch) -> Installed | None:
    """locate.find_target, once per process for as long as no search directory and no RECORD
    changed (a patch-by-patch `status` of 200 patches reads RECORD once, not 200 times). Keyed
    by what the search reads of the patch, so patches stacked on the same modules search once."""

    def stamp(found: Installed | None) -> tuple[object, ...]:
        out: list[object] = []
        for p in (*env.paths, *((found.dist_info / "RECORD",) if found else ())):
            try:
                st = p.stat()
                out.append((st.st_ino, st.st_mtime_ns, st.st_size))
            except OSError:
                out.append(None)
        return tuple(out)

    key = (env, patch.named, patch.packages, patch.providers, patch.module_files)
    hit = _FOUND.get(key)
    if hit and stamp(hit[1]) == hit[0]:
        return hit[1]
    found = locate.find_target(env, patch)
    _FOUND[key] = (stamp(found), found)
    return found
