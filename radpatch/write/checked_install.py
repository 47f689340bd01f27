"""apply's import check (prove.import_check), with the install compared before and after it: the
check's read-only hook (prove.read_only) refuses writes inside the Python processes it can reach,
but not those of Python started with -I, -S or -E, of compiled code or of another program. Whatever
they wrote into the install is found after the fact: every file and directory under the target's
import path directories and its scripts directory (kind, size, mtime_ns, ctime_ns, inode), before
and after; any change refuses the
run, naming the files."""

from __future__ import annotations

import os
from collections.abc import Sequence

from radpatch.errors import RadpatchError, RefusedError
from radpatch.install.environment import PythonEnv
from radpatch.prove import import_check, read_only
from radpatch.prove.plan import PlannedFile
from radpatch.write.exclusive import Say


def unchanged_by(env: PythonEnv, planned: Sequence[tuple[str, PlannedFile]], say: Say) -> None:
    """Run the import check (import_check.run: say each verdict, refuse on the first refusal), then
    refuse if anything under the protected roots changed while it ran."""
    roots = read_only.install_roots([str(p) for p in env.paths], os.path.dirname(env.executable))
    before = read_only.snapshot(roots)
    try:
        import_check.run(env, planned, say)
    except RadpatchError:  # a refusal of the check: a write past the hook is the one to say first
        _refuse_changes(planned, before, roots)
        raise  # (an interrupt is not held up by a second walk)
    _refuse_changes(planned, before, roots)


def _refuse_changes(planned: Sequence[tuple[str, PlannedFile]], before: read_only.Snapshot, roots: list[str]) -> None:
    gone = read_only.changed(before, read_only.snapshot(roots))
    if not gone:
        return
    listed = ", ".join(gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
    who = ", ".join(dict.fromkeys(name for name, _ in planned))
    raise RefusedError(
        f"{who}: import check: the install changed while the check imported the patched modules "
        f"({listed}): something the import started wrote there past the check's read-only hook "
        "(Python run with -I, -S or -E, compiled code, or another program); nothing was written by radpatch",
        "compare those files with the installed ones and put them back (radpatch restore FILE for a file "
        "the distribution installed, or reinstall it); then find what the module's import starts",
    )
