"""The import check: import each patched module in the target interpreter before anything is written.

The proof steps (steps.py) judge the patched text; some failures only show when Python runs it: an
`import tomllib` on a 3.10 target, a payload that imports from the module it is inserted into
(ImportError while the module is half initialised), an import-time call the patch breaks. So,
when asked (`apply --import-check`, RADPATCH_IMPORT_CHECK=1), each patched module is imported by
the target interpreter itself, in a subprocess: radpatch never imports the target in its own
process. The subprocess (import_process.py) gets a small standard-library script (no radpatch on its path) that puts a
finder first on `sys.meta_path`; it serves the planned bytes of every file the run changes, at
their real paths, so nothing is written and nothing else is shadowed.

Why it sits in prove/ and not among steps.STEPS: it is a proof about the planned changes, run
after the others and before the write, but it needs the installed environment (the rest of the
package, its dependencies) and the whole run's files at once, so only `apply` runs it, never
`verify`, and only when asked: it costs one interpreter start and real imports per module.

How it decides: the patched import is compared with the pristine one (the current bytes, served
the same way). The pristine module importing and the patched one failing is a refusal, whatever
line raises. When both fail, only a failure both share is inconclusive, reported with the pristine
import's error; import_failures.py tells which failures are shared (the same one, or a module this
image lacks, confirmed by importing it on its own pristine) and names the line the patch added on
the traceback, if any. The target sends the traceback's frames as data (file, line, function,
module). The pristine import runs only when the patched one fails (or times out).

What the served module is seen as: its code object comes from the planned bytes, and so does its
source for whatever reads it through linecache (inspect.getsource in a kernel decorator, a
traceback); `site` runs only once the finder is in place (`-S`, then site.main()), so a .pth or
sitecustomize that imports the package at interpreter start imports the served bytes, not the
file on disk. A module that opens its own `__file__` still reads the disk (a documented limit):
a copy of it, as every import runs from a copy of the changed packages (import_overlay.py), so what
it writes there leaves the install alone.
A module the target interpreter would import from another copy (state.imported: a checkout or a
zip archive earlier on its import path) is not imported: serving the patched file in its place
would import what never runs; its verdict is inconclusive, naming the copy.

Import cycles (cycles.py; both checks below run in import_neighbours.py): when the patched module
imports fine, each module of its package on an import cycle a new import of the patch closes is
imported first too, in its own subprocess.
Then the modules of its package that import it (import_importers.py) are imported after it, in
one more subprocess; only when one fails, the same run pristine.

Bounds: `-I` (no PYTHON* variables, no user site, no script directory; the target's site-packages
and .pth files as its own programs see them, then the import path radpatch resolved for it appended:
PYTHONPATH's directories, so a dependency only there imports) and `-B` (no bytecode written into the install;
PYTHONDONTWRITEBYTECODE for the interpreters the import starts); a time limit per import
(RADPATCH_IMPORT_CHECK_TIMEOUT seconds, default 300), after which the subprocess's whole process
group is killed; then the pristine module is imported with the same limit, and a hang only the
patched module has (the pristine one imports) is a refusal, else inconclusive. The check waits for
the interpreter, not for what the import leaves behind (a forked worker holding its output): that
group is killed once the interpreter ends, and every process below the subreaper launcher the
interpreter runs under (import_reaper.py: a `setsid()` daemon too); what it could not kill is said
on the line. What the import prints is read as it comes, its last
4 KiB kept, none of it written to disk. No network: an audit hook makes every socket connection,
send and name lookup raise OSError inside the import.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from radpatch import faults
from radpatch.errors import RefusedError, UsageError
from radpatch.install.environment import PythonEnv
from radpatch.prove.import_neighbours import _first_in_cycle, _judge, _then_importers
from radpatch.prove.import_process import Served, attempt
from radpatch.prove.import_verdict import ImportCheckVerdict as ImportCheckVerdict
from radpatch.prove.import_verdict import Result as Result  # the verdict's records, read from here too
from radpatch.prove.import_verdict import import_name as import_name
from radpatch.prove.plan import PlannedFile
from radpatch.state.imported import shadows

TIMEOUT_VARIABLE = "RADPATCH_IMPORT_CHECK_TIMEOUT"
DEFAULT_TIMEOUT = 300.0  # seconds per import: a vLLM module imports torch, which takes tens of seconds on a slow CPU
Say = Callable[[str], None]


def timeout_from_env() -> float:
    raw = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < 1e6:
        raise UsageError(
            f"{TIMEOUT_VARIABLE}={raw!r} is not a number of seconds",
            f"set it to a positive number, e.g. {TIMEOUT_VARIABLE}=600, or unset it for {DEFAULT_TIMEOUT:g}",
        )
    return value


def run(env: PythonEnv, planned: Sequence[tuple[str, PlannedFile]], say: Say) -> None:
    """Check every module `planned` (patch name, change) changes; say each verdict, refuse on the first refusal."""
    for v in check(env, planned, timeout_from_env()):
        who = ", ".join(v.patches)
        if v.result is Result.OK:
            say(f"{who}: import check: {v.module} imports once patched ({env.executable}){v.note}")
        elif v.result is Result.INCONCLUSIVE:
            say(f"{who}: import check inconclusive for {v.module}: {v.reason}; not a refusal{v.note}")
        else:
            where = f"{env.executable}, Python {'.'.join(map(str, env.version))}"
            raise RefusedError(
                f"{who}: import check: {v.module} does not import once patched: {v.reason}"
                + (f"; it imports unpatched ({where})" if v.unpatched_imports else f" ({where})"),
                "the patched code fails when this interpreter imports it: fix the registry entry "
                "(or limit its versions); nothing was written",
            )


def check(env: PythonEnv, planned: Sequence[tuple[str, PlannedFile]], timeout: float) -> Iterator[ImportCheckVerdict]:
    """Import each changed module patched, then, only if that fails, pristine; yield a verdict per module."""
    faults.point("import-check")  # the crash-test hook: a plain apply never reaches this line
    patched, pristine = _served(planned, env.import_path or env.paths)
    for v in _checked(env, planned, timeout, patched, pristine):
        left = "".join(dict.fromkeys(patched.left + pristine.left))  # processes its imports left, not killed
        patched.left.clear()
        pristine.left.clear()
        yield replace(v, note=v.note + left) if left and v.result is not Result.REFUSED else v


def _checked(
    env: PythonEnv, planned: Sequence[tuple[str, PlannedFile]], timeout: float, patched: Served, pristine: Served
) -> Iterator[ImportCheckVerdict]:
    by_module: dict[str, list[str]] = {}
    for name, change in planned:
        who = by_module.setdefault(import_name(change.module), [])
        if name not in who:
            who.append(name)
    shadowed = {import_name(sh.module): sh for sh in shadows(env, sorted({(c.module, c.path) for _, c in planned}))}
    for module, who in by_module.items():
        if module in shadowed:  # serving the patched file in its place would import what never runs
            why = f"{shadowed[module].describe()}, so importing the patched file says nothing of what runs"
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, why)
            continue
        after = attempt(env.executable, patched, module, timeout)
        if after.preloaded:
            why = "the interpreter had already imported it from its file on disk, so the patched bytes were not run"
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, why)
            continue
        if after.on_write:  # the check's read-only install failed it: not the patch's to answer for
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, after.on_write)
            continue
        if after.ok:
            first = _first_in_cycle(env.executable, planned, patched, pristine, module, tuple(who), timeout)
            yield _then_importers(env.executable, planned, patched, pristine, first, timeout)
            continue
        before = attempt(env.executable, pristine, module, timeout)
        if after.timed_out and before.ok:  # a hang only the patched module has is the patch's own
            why = f"the patched import {after.error}, and the unpatched module imports within that time"
            yield ImportCheckVerdict(module, tuple(who), Result.REFUSED, why, unpatched_imports=True)
            continue
        if after.timed_out:
            why = f"the patched import {after.error}; the unpatched import {before.error or 'fails too'}"
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, why)
            continue
        if before.ok:
            yield ImportCheckVerdict(module, tuple(who), Result.REFUSED, after.described, unpatched_imports=True)
        elif before.timed_out:
            why = f"the patched import fails ({after.described}) and the unpatched import {before.error}"
            yield ImportCheckVerdict(module, tuple(who), Result.INCONCLUSIVE, why)
        else:
            j = _judge(env.executable, after, before, patched, pristine, timeout)
            yield ImportCheckVerdict(module, tuple(who), Result.REFUSED if j.refused else Result.INCONCLUSIVE, j.reason)


def _served(planned: Sequence[tuple[str, PlannedFile]], import_path: Sequence[Path]) -> tuple[Served, Served]:
    """The patched run serves each file's last planned bytes, the pristine run its current bytes;
    both with the changed files' site directories, then `import_path` (the target's import path as radpatch
    resolved it: PYTHONPATH, which -I drops) after the interpreter's own."""
    after: dict[str, bytes] = {}
    before: dict[str, bytes] = {}
    modules: dict[str, str] = {}
    roots: dict[str, None] = {}
    tops: dict[tuple[str, str], None] = {}
    for _, change in planned:
        path = str(change.path)
        before.setdefault(path, change.before)  # stacked changes: the first one's before is what is on disk
        after[path] = change.after
        modules[import_name(change.module)] = path
        parts = change.module.split(".")
        root = change.path.parents[len(parts) - 1] if len(change.path.parents) >= len(parts) else None
        if root is not None and root.joinpath(*parts[:-1], parts[-1] + ".py") == change.path:
            roots.setdefault(str(root), None)  # so the package imports even from a directory -I leaves out
            top = parts[0] if len(parts) > 1 else parts[0] + ".py"
            tops.setdefault((str(root), top), None)  # copied for each import: what it writes there goes away
    for entry in import_path:
        roots.setdefault(str(entry), None)
    return Served(after, modules, tuple(roots), tuple(tops)), Served(before, modules, tuple(roots), tuple(tops))
