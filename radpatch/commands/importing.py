"""`radpatch import PATCH...`: registry entries from unified diffs, one per patch file, in series.

Thin: read the patch files, find the site directory of the target environment, apply the series
in memory (importing.patch_series), build and write the entries (importing.emit), say what was written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import click
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from radpatch.commands.options import check_supported
from radpatch.context import Context
from radpatch.errors import EXIT_OK, RefusedError, UsageError
from radpatch.files import read_regular
from radpatch.importing import dry_run, emit, entry_files, exclude_word, patch_series, replay, series_files
from radpatch.importing.owners import Owners, one_distribution, refuse_new_in_namespace, refuse_unlisted
from radpatch.registry import versions
from radpatch.registry.catalog import shipped_registry
from radpatch.registry.loader.nodes import ENTRY

_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def run(
    ctx: Context,
    patches: tuple[str, ...],
    strip: int | None,
    directory: str,
    out: str,
    name: str | None,
    supported: str | None,
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    distribution: str | None = None,
) -> int:
    check_supported(supported)
    names = _names(patches, name)
    include, exclude = _sh_read("--include", include), _sh_read("--exclude", exclude)
    data = [(p, _read(p)) for p in patches]
    site = ctx.env.purelib
    directory = directory.strip("/")
    if directory and not (site / directory).is_dir():
        raise UsageError(
            f"-d {directory}: no such directory under the site directory {site}",
            "give -d relative to the target environment's site-packages, e.g. -d vllm",
        )
    owners = Owners.read(site, distribution or "")
    if distribution is not None and owners.installed(distribution) is None:  # capture's words (capture_paths)
        raise UsageError(
            f"--distribution {distribution}: not installed in {ctx.env.executable}'s environment",
            "check the name (pip list), or point --python at the environment that has it",
        )
    imported = patch_series.apply_series(
        data, site, series_files.SeriesOptions(strip, directory, include, exclude), owners
    )
    kept = [i for i, imp in enumerate(imported) if imp.changes]
    unsaid = [(imp.label, name, why) for imp in imported for name, why in imp.not_imported]
    if not kept and unsaid:
        label, first, why = unsaid[0]
        more = f" (and {len(unsaid) - 1} more file{'s' if len(unsaid) > 2 else ''} like it)" if len(unsaid) > 1 else ""
        raise RefusedError(
            f"{label}: {why}{more}",
            f"no file of the patches has a code change to import: leave it out with {exclude_word.option(first)}, "
            "or make the change another way",
        )
    if not kept:
        raise UsageError(
            "--include/--exclude left out every section of every patch file: nothing to import",
            "check the globs: they match the file names after -p (e.g. --include 'vllm/*')",
        )
    proven = {  # proven on the installed version whatever --supported says
        i: emit.build(_spec(imported[i], names[i], _requires(imported, names, i), owners, None)) for i in kept
    }
    entries = proven if supported is None else {i: emit.supporting(e, supported) for i, e in proven.items()}
    labels = {entries[i].name: imported[i].label for i in kept}
    # apply's own steps, in memory: no entry it refuses; its plan is what the count below measures
    planned = dry_run.prove(ctx, list(proven.values()), labels, Path(out))
    written = entry_files.write(Path(out), list(entries.values()))
    if supported is not None:
        _warn_out_of_range(
            supported, [e.name for e in entries.values()], {c.owner for i in kept for c in imported[i].changes}, owners
        )
    for i, imp in enumerate(imported):
        e = entries.get(i)
        if e is None and imp.not_imported:
            click.echo(f"{imp.label}: no entry (no file of it has a code change to import)")
        elif e is None:
            click.echo(f"{imp.label}: left out (no section is imported)")
        else:
            click.echo(f"{Path(out) / (e.name + '.yaml')}: {e.steps} rewrite{'s' if e.steps != 1 else ''}")
        for line in imp.said:  # as `patch` reports them: the entry is made from what patch would have written
            click.echo(f"  {line}")
        for what in imp.left_out:
            click.echo(f"  left out: {what}")
        for _, why in imp.not_imported:
            click.echo(f"  not imported: {why}")
        for note in e.fallbacks if e else ():
            click.echo(f"  note: {note}")
    measured = replay.replay(
        planned, [c.rel for i in kept for c in imported[i].changes], [p for imp in imported for p in imp.patched]
    )
    for line in measured.lines():
        click.echo(line)
    click.echo(
        f"wrote {len(written)} file{'s' if len(written) != 1 else ''}; try: "
        + ctx.invocation([*_registries_of_requirements(ctx, entries.values()), out])
        + " apply "
        + " ".join(e.name for e in entries.values())
    )
    return EXIT_OK


def _sh_read(option: str, globs: tuple[str, ...]) -> tuple[str, ...]:
    """The globs as bash reads them where a POSIX sh passed a refusal's `$'...'` word on unread (dash has no
    such quoting: `$'pkg/\\xff.py'` arrives as `$pkg/\\xff.py`), each said in one line on stderr."""
    out = []
    for glob in globs:
        bash = exclude_word.as_bash_reads(glob)
        if bash is not None:
            click.echo(
                f"radpatch: note: {option} {glob} read as bash reads {exclude_word.shell_word(bash)} (this shell "
                "passed bash's $'...' quoting on unread: a POSIX sh such as dash has none)",
                err=True,
            )
        out.append(glob if bash is None else bash)
    return tuple(out)


def _registries_of_requirements(ctx: Context, entries: Iterable[emit.Entry]) -> list[str]:
    """The registry directories (other than the shipped one) holding entries the new ones require
    that they are not themselves: `apply` needs them given too (att49 #3)."""
    new = [e.name for e in entries]
    needed = [r for e in entries for r in _listed(e.doc.get("requires")) if r not in new]
    dirs = [ctx.registry.files[r].parent for r in needed if r in ctx.registry.files]
    return [str(d) for d in dict.fromkeys(dirs) if d != shipped_registry()]


def _listed(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _warn_out_of_range(supported: str, names: list[str], dists: set[str | None], owners: Owners) -> None:
    """One line on stderr when `--supported` leaves out the installed version: the entries are
    written as asked, but none of them applies to this environment."""
    for dist in sorted(d for d in dists if d):
        version = _version(owners, dist)
        if not versions.allows(SpecifierSet(supported), Version(version)):
            click.echo(
                f"radpatch: warning: --supported {supported!r} leaves out the installed {dist} {version}: "
                f"{', '.join(names)} will not apply here (status reads incompatible)",
                err=True,
            )


def _version(owners: Owners, dist: str) -> str:
    return next(o.version for o in owners.files.values() if o.name == dist)


def _read(path: str) -> bytes:
    """A regular file only: a named pipe or a device is refused, never read until it ends."""
    try:
        return read_regular(Path(path))
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise UsageError(f"{path}: cannot read the patch file ({why})", "give the path of a unified diff")


def _names(patches: tuple[str, ...], name: str | None) -> list[str]:
    """An entry name per patch file: its file name without .patch/.diff; where two give the same
    one (a series laid out like the tree it patches: `configs/__init__.py.patch` and
    `models/__init__.py.patch`), the directories above them are added until they differ
    (`configs-__init__.py`, `models-__init__.py`); where no directory tells them apart, the later
    ones are numbered (`fix-v3`, `fix-v3-2`). Letters outside ASCII lose their accents (`ü` -> `u`).
    `--name N`: the one file's name, or the prefix of each (`N-fix-v3`)."""
    parts = [Path(p).resolve().parts for p in patches]
    if len(set(parts)) != len(parts):
        twice = next(p for p, q in zip(patches, parts, strict=True) if parts.count(q) > 1)
        raise UsageError(f"{twice}: the same patch file is given twice", "give each patch file once")
    stems = [_stem(p, 1) for p in parts]
    for depth in range(2, max((len(p) for p in parts), default=1) + 1):
        clash = {s for s in stems if stems.count(s) > 1}
        if not clash:
            break
        stems = [_stem(p, depth) if s in clash else s for p, s in zip(parts, stems, strict=True)]
    # two files whose names differ only in what a name cannot hold (`fix v3.patch`, `fix-v3.patch` in one
    # directory): their own names, the later ones numbered in the order given
    clash = {s for s in stems if stems.count(s) > 1}
    stems = [_stem(q, 1) if s in clash else s for q, s in zip(parts, stems, strict=True)]
    taken: set[str] = set()
    for i, s in enumerate(stems):
        n, out = 1, s
        while out in taken:
            n += 1
            out = f"{s}-{n}"
        stems[i] = out
        taken.add(out)
    if name is not None:
        if not ENTRY.fullmatch(name):  # `..`, `-x`, `.hidden`, `fix.yaml`: no entry a registry lists (nothing written)
            raise UsageError(
                f"--name {name!r}: not an entry name: letters, digits, '_', '-' and '.', starting with a letter, a "
                "digit or '_', not ending in .yaml or .yml",
                "e.g. --name fix_handshake",
            )
        stems = [name] if len(patches) == 1 else [f"{name}-{s}" for s in stems]
    return stems


def _stem(parts: tuple[str, ...], depth: int) -> str:
    """The last `depth` components of a patch file's path as an entry name."""
    tail = [*parts[-depth:-1], parts[-1].removesuffix(".patch").removesuffix(".diff")]
    ascii_ = unicodedata.normalize("NFKD", "-".join(tail)).encode("ascii", "ignore").decode()  # `ü` -> `u`
    stem = _NAME.sub("-", ascii_).strip("-.") or "patch"
    return stem if ENTRY.fullmatch(stem) else re.sub(r"\.(ya?ml)$", r"-\1", stem)  # `fix.yaml.patch`: fix-yaml


def _requires(imported: list[patch_series.Imported], names: list[str], i: int) -> list[str]:
    """An entry's requirements: the earlier patches of the series it goes on, and the entries radpatch
    applied that the installed files it changes carry (it was made on top of them). Refused where its
    name is one of those: it would require itself (att48 #2)."""
    if names[i] in imported[i].on_applied:
        raise UsageError(
            f"{imported[i].label}: its entry would be named {names[i]}, the name of an entry radpatch applied to "
            "the files it changes (the patch was made on top of it)",
            "give the new entry another name with --name NAME",
        )
    return list(dict.fromkeys([*imported[i].on_applied, *(names[j] for j in imported[i].requires)]))


def _spec(
    imp: patch_series.Imported, name: str, requires: list[str], owners: Owners, supported: str | None
) -> emit.EntrySpec:
    named = owners.installed(owners.named) if owners.named else None
    others = [c for c in imp.changes if named is not None and c.owner is not None and c.owner != named.name]
    if others:
        whose = sorted({str(c.owner) for c in others})
        raise UsageError(
            f"--distribution {owners.named}: {imp.label} changes files of {' and '.join(whose)} "
            f"({', '.join(c.rel for c in others)})",
            "leave --distribution out (it says whose a new module in a namespace directory several distributions "
            "share is), or import that distribution's files with --include",
        )
    refuse_unlisted(imp.label, imp.changes, owners)
    dist = one_distribution(imp.label, imp.changes)
    if not dist:
        refuse_new_in_namespace(imp.label, imp.changes, owners)
        raise RefusedError(
            f"{imp.label}: no installed distribution owns {', '.join(c.rel for c in imp.changes)}",
            "radpatch patches files of an installed distribution (listed in its RECORD); check -p, -d and --python",
        )
    version = _version(owners, dist)
    base = version.split("+")[0]
    return emit.EntrySpec(name, imp.label, imp.subject, dist, supported or f"=={base}", tuple(requires), imp.changes)
