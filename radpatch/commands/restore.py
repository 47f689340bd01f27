"""`radpatch restore PATH...`: put files of an installed distribution back to their RECORD bytes,
from the wheel of the installed version, without reinstalling it. A PATH is a file (a path or a
module name) or a directory (each file RECORD lists under it that is not as installed).

A hand edit, a sed step, a stray `patch` or a deleted file leaves a file that is neither pristine
nor radpatch's; the only way back used to be `pip install --force-reinstall`, which for vLLM is a
320 MB wheel and a rebuilt environment. The bytes of one file are a few KiB of that wheel:
radpatch.releases.pristine reads them by range requests (or from `--wheel FILE|DIR`, which apply
takes too) and refuses them unless they hash to the installed RECORD, so restore writes exactly
what pip installed or nothing.

A file radpatch patched is not restore's to write: its record would then describe a file that is
not there. As long as the file is as radpatch left it, `radpatch revert NAME` is the way back and
restore refuses, naming it. Once a file of the patch changed since (drifted, which revert refuses),
its files are restored one by one; the record then reads "not applied" and `revert NAME` forgets it.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import click

from radpatch import source_lines
from radpatch.commands.options import wheel_of
from radpatch.context import Context
from radpatch.errors import EXIT_OK
from radpatch.files.bytecode import refresh_bytecode
from radpatch.releases import pristine
from radpatch.state.record import Store
from radpatch.state.restore import RestoreFile, locked, recorded, refuse_patched, sha, write
from radpatch.state.restore_paths import named_files


def run(ctx: Context, args: tuple[str, ...], wheels: tuple[str, ...], dry_run: bool) -> int:
    env = ctx.env
    found = list({(t.dist.root, t.relpath): t for a in args for t in named_files(env, a, click.echo)}.values())
    todo = []
    for t in found:
        if t.current is not None and sha(t.current) == t.want:
            click.echo(f"{t.relpath}: already as installed ({t.dist.name} {t.dist.version}'s RECORD); nothing to do")
        else:
            todo.append(t)
    if not todo:
        return EXIT_OK
    fetched: dict[tuple[Path, str], bytes] = {}
    sources: dict[Path, pristine.PristineSource] = {}
    for t in todo if not wheels else ():  # radpatch kept the installed bytes when it patched the file
        original = Store(t.dist.root).original(t.want)
        if original is not None:
            fetched[(t.dist.root, t.relpath)] = original
    from_kept = set(fetched)
    for dist_info, group in _by_dist([t for t in todo if (t.dist.root, t.relpath) not in fetched]).items():
        dist, rels = group[0].dist, [t.relpath for t in group]
        got, source = (
            pristine.from_wheel(dist, rels, wheel_of(dist, wheels)) if wheels else pristine.from_index(dist, rels)
        )
        sources[dist_info] = source
        fetched.update({(dist.root, p.relpath): p.data for p in got})
    verb = "would restore" if dry_run else "restored"
    for t in todo:
        data = fetched[(t.dist.root, t.relpath)]
        if not dry_run:
            with locked(t.dist.root):
                refuse_patched(t)  # again, under radpatch's lock: an apply may have run meanwhile
                write(t, data)
            if t.relpath.endswith(".py"):
                refresh_bytecode(t.path, env.executable, env.is_current)
        click.echo(
            f"{verb} {t.relpath} ({t.dist.name} {t.dist.version}): {_what(t, data)}"
            + ("; bytecode refreshed" if not dry_run and t.relpath.endswith(".py") else "")
        )
        carried = recorded(t)
        if carried:
            names = " ".join(carried)
            click.echo(
                f"note: radpatch's record still names {', '.join(carried)} for {t.relpath}; once every file "
                f"of it is restored, `radpatch revert {names}` forgets it"
            )
    for dist_info, group in _by_dist(todo).items():
        ours = [t for t in group if (t.dist.root, t.relpath) in from_kept]
        for part, where in ((ours, "radpatch's kept originals"), ([t for t in group if t not in ours], "")):
            n = len(part)
            if n:
                click.echo(
                    f"{group[0].dist.name} {group[0].dist.version}: {n} file{'s' * (n != 1)} from "
                    f"{where or sources[dist_info].describe()}, {'each' if n > 1 else 'its bytes'} hashing to "
                    "RECORD's sha256"
                )
    return EXIT_OK


def _by_dist(files: list[RestoreFile]) -> dict[Path, list[RestoreFile]]:
    out: dict[Path, list[RestoreFile]] = {}
    for t in files:
        out.setdefault(t.dist.dist_info, []).append(t)
    return out


def _what(t: RestoreFile, data: bytes) -> str:
    if t.current is None:
        return "was missing"
    try:
        old, new = t.current.decode(), data.decode()
    except UnicodeDecodeError:
        return f"was changed ({len(t.current)} -> {len(data)} bytes)"
    plus = minus = 0
    for line in difflib.unified_diff(source_lines.split(old), source_lines.split(new), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            plus += 1
        elif line.startswith("-") and not line.startswith("---"):
            minus += 1
    if not plus and not minus:
        return f"was changed in line endings or whitespace only ({len(t.current)} -> {len(data)} bytes)"
    return f"was edited (restoring it removes {minus} line{'s' * (minus != 1)} and adds {plus})"
