"""Import proves what it writes as apply would: the entries, written to a scratch registry, are
run through apply's own steps in memory (write.apply with dry_run: state, plan, every proof step,
overlaps) on the installed files, before anything is written to --out.

Why: the AST comparison with `patch`'s result says the rewrites give the patched code; it does not
say apply's proof accepts that code (a definition its placement proof reads as shadowed, say). An
entry apply would refuse is never written: the refusal names the patch file and apply's words.

The plan it proves is also what `import` measures (importing.replay): each file as apply's rewrites
leave it, every entry planned on what the entries before it leave, so the rewrites run once.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from radpatch.context import Context
from radpatch.errors import EXIT_INTERNAL, RadpatchError, RefusedError
from radpatch.importing import emit, entry_files, on_applied
from radpatch.registry import series
from radpatch.registry.catalog import Registry
from radpatch.write import apply as applying

Planned = dict[str, bytes]  # a file (relative to the site directory) -> its bytes once the entries ran


def prove(ctx: Context, entries: list[emit.Entry], labels: dict[str, str], out: Path) -> Planned:
    """Refuse (RefusedError) when apply would refuse any of `entries` (name -> patch file: `labels`);
    a refusal names the entry's files as they would be written to `out`. Returns each file the
    entries change as apply's plan leaves it after the last of them (the bytes the proof proved)."""
    with tempfile.TemporaryDirectory(prefix="radpatch-import-") as tmp:
        written = entry_files.write(Path(tmp), entries)
        scratch = Context(ctx.python, (tmp,))
        scratch.__dict__["env"] = ctx.env  # the environment already found (Context.env is a cached property)
        scratch.__dict__["registry"] = Registry(
            {**on_applied.registry_files(ctx, entries, labels), **{p.stem: p for p in written if p.suffix == ".yaml"}}
        )
        try:
            patches = series.with_requirements(
                scratch.registry.load_many([e.name for e in entries]), scratch.registry.load
            )
            changes = applying.apply(scratch, patches, lambda _line: None, dry_run=True)
        except RadpatchError as exc:
            if exc.exit_code == EXIT_INTERNAL:
                raise
            name = next((e.name for e in entries if exc.message.startswith(f"{e.name}:")), None)
            where = labels[name] if name else ", ".join(labels.values())
            message = exc.message.replace(tmp, str(out))
            raise RefusedError(
                f"{where}: the entry import would write is refused by apply, so nothing is written: {message}",
                _series_hint(exc.message, entries)
                + _star_hint(exc.message)
                # a hint in an entry author's words (a payload, which a diff import never has) is not for this reader
                + (exc.hint.replace(tmp, str(out)) + "; " if exc.hint and "payload" not in exc.hint else "")
                + "apply's proof refuses the patch's code: change the patch, or leave the file out with --exclude",
            ) from exc
    names = {e.name for e in entries}
    planned: Planned = {}
    for c in changes:  # in the order apply makes them: the last one per file is its result
        if c.off or c.patch.patch.name not in names:
            continue
        for f in c.files:
            planned[_relative(f.path, ctx.env.purelib, c.root)] = f.after
    return planned


_STAR = re.compile(r"`(from (\.*[\w.]*) import \*)` at line \d+ (?:may rebind|rebinds) it")


def _star_hint(message: str) -> str:
    """When apply refuses because of a star import (one the patch adds, or one after its change):
    what to write instead. "" otherwise."""
    found = _STAR.search(message)
    if not found:
        return ""
    return (
        f"`{found.group(1)}` binds names radpatch cannot check against the module's own: where the patch adds it, "
        f"write the names the code needs instead, `from {found.group(2)} import NAME, ...` (import writes that as "
        "add_import); "
    )


_MISSING = re.compile(r"`([A-Za-z_][\w.]*)` \(line \d+[^)]*\) is not a module\b[^;]*\(ModuleNotFoundError\)")


def _series_hint(message: str, entries: list[emit.Entry]) -> str:
    """When the patched code imports a module of the patched packages that the install lacks (one
    another patch of the series creates, as Emu3.5's batch_scheduler.py imports batch_manager): say
    to give that patch to the same import, which applies the series in order and has the entry
    require it. "" otherwise."""
    ours: set[str] = set()
    for e in entries:
        modules = e.doc.get("modules")
        if isinstance(modules, dict):
            ours |= {m.split(".")[0] for m in modules.values() if isinstance(m, str)}
    missing = list(dict.fromkeys(m for m in _MISSING.findall(message) if m.split(".")[0] in ours))
    if not missing:
        return ""
    return (
        f"{', '.join(f'`{m}`' for m in missing)} is not in the installed package: if a patch of your series "
        "creates it, give that patch file to the same `radpatch import` (the entries are imported together, "
        "in order, and this one requires it); "
    )


def _relative(path: Path, site: Path, root: Path) -> str:
    """The file as import names it, relative to the site directory (its installation directory's
    name for it where that is another directory of the import path)."""
    try:
        return path.relative_to(site).as_posix()
    except ValueError:
        return path.relative_to(root).as_posix()
