"""apply's import check (prove.import_check), run inside a watch of the install
(prove.import_watch): the check's read-only hook (prove.read_only) refuses writes inside the Python
processes it can reach, but not those of Python started with -I, -S or -E, of compiled code or of
another program; whatever they wrote into the install is found after the fact, and refuses the
run, naming the files. The watch starts from the snapshot apply's proof ended with, when its
placement check asked the target interpreter anything (the same watch, one walk fewer)."""

from __future__ import annotations

from collections.abc import Sequence

from radpatch.install.environment import PythonEnv
from radpatch.prove import import_check, import_watch
from radpatch.prove.plan import PlannedFile
from radpatch.write.exclusive import Say


def unchanged_by(
    env: PythonEnv, planned: Sequence[tuple[str, PlannedFile]], say: Say, since: import_watch.Watch | None = None
) -> None:
    """Run the import check (import_check.run: say each verdict, refuse on the first refusal) inside a
    watch of the install (from `since`'s last snapshot, if it took one): refuse if anything under the
    protected roots changed while it ran."""
    who = ", ".join(dict.fromkeys(name for name, _ in planned))
    with import_watch.watching(who, since):
        import_check.run(env, planned, say)
