"""Import proves what it writes as apply would: the entries, written to a scratch registry, are
run through apply's own steps in memory (engine.apply with dry_run: state, plan, every proof step,
overlaps) on the installed files, before anything is written to --out.

Why: the AST comparison with `patch`'s result says the rewrites give the patched code; it does not
say apply's proof accepts that code (a definition its placement proof reads as shadowed, say). An
entry apply would refuse is never written: the refusal names the patch file and apply's words.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from radpatch import engine
from radpatch.context import Context
from radpatch.errors import EXIT_INTERNAL, RadpatchError, RefusedError
from radpatch.importing import emit
from radpatch.registry import series
from radpatch.registry.catalog import Registry


def prove(ctx: Context, entries: list[emit.Entry], labels: dict[str, str], out: Path) -> None:
    """Refuse (RefusedError) when apply would refuse any of `entries` (name -> patch file: `labels`);
    a refusal names the entry's files as they would be written to `out`."""
    with tempfile.TemporaryDirectory(prefix="radpatch-import-") as tmp:
        written = emit.write(Path(tmp), entries)
        scratch = Context(ctx.python, (tmp,))
        scratch.__dict__["env"] = ctx.env  # the environment already found (Context.env is a cached property)
        scratch.__dict__["registry"] = Registry({p.stem: p for p in written if p.suffix == ".yaml"})
        try:
            patches = series.with_requirements(
                scratch.registry.load_many([e.name for e in entries]), scratch.registry.load
            )
            engine.apply(scratch, patches, lambda _line: None, dry_run=True)
        except RadpatchError as exc:
            if exc.exit_code == EXIT_INTERNAL:
                raise
            name = next((e.name for e in entries if exc.message.startswith(f"{e.name}:")), None)
            where = labels[name] if name else ", ".join(labels.values())
            message = exc.message.replace(tmp, str(out))
            raise RefusedError(
                f"{where}: the entry import would write is refused by apply, so nothing is written: {message}",
                (exc.hint.replace(tmp, str(out)) + "; " if exc.hint else "")
                + "apply's proof refuses the patch's code: change the patch, or leave the file out with --exclude",
            ) from exc
