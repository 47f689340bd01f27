"""`radpatch verify NAME`: parse, run verify (radpatch.releases.verify), render.

Exit 1 when a release in the declared range (and in SPEC) fails; releases outside the declared
range are reported, never counted against the patch. Exit 2 when SPEC holds no release of the
declared range: nothing the patch claims was verified. `--json` prints one object
(JSON_SCHEMA_VERSION in radpatch.releases.results), also on exit 1 and 2.

With several names or `--all`, one matrix of entries x releases (radpatch.releases.matrix), the
entries' overlaps (radpatch.releases.overlap_report), and the same exit codes over every entry.
"""

from __future__ import annotations

import click
from packaging.version import Version

from radpatch.commands import json_output
from radpatch.context import Context
from radpatch.errors import EXIT_OK, RadpatchError, RefusedError, UsageError
from radpatch.prove.overlaps import applied
from radpatch.prove.overlaps.pairs import Overlap
from radpatch.prove.refusal import Cause
from radpatch.prove.unchecked import NEEDS
from radpatch.registry import series
from radpatch.registry.model import Patch
from radpatch.releases import matrix, matrix_table, overlap_report, vouched_exec
from radpatch.releases.base_search import BASES, MOST
from radpatch.releases.results import CHECKS, ReleaseResult, Report, first_failed
from radpatch.releases.verify import parse_spec, verify
from radpatch.releases.wheels import Releases


def parse_python(text: str | None) -> tuple[int, int] | None:
    """`--python X.Y`: a Python major.minor (3.8 and later)."""
    if text is None:
        return None
    major, dot, minor = text.strip().partition(".")
    if not (dot and major.isdigit() and minor.isdigit() and (int(major), int(minor)) >= (3, 8)):
        raise UsageError(f"--python {text!r} is not a Python version (major.minor)", "write e.g. --python 3.10")
    return (int(major), int(minor))


def run_many(
    ctx: Context, names: tuple[str, ...], every: bool, spec: str | None, as_json: bool, python_text: str | None = None
) -> int:
    python = parse_python(python_text)
    if every and names:
        raise UsageError("give patch names or --all, not both", "radpatch verify --all, or radpatch verify NAME...")
    if not every and not names:
        raise UsageError("verify needs a patch name, several names, or --all", "radpatch verify NAME [NAME...] | --all")
    if len(names) == 1 and not every:
        return run(ctx, names[0], spec, as_json, python)
    patches = ctx.registry.load_many(list(names) if names else ctx.registry.names())
    if not patches:
        raise UsageError("verify --all: the registries hold no entries", "add a registry with --registry DIR")
    releases = Releases.from_env()
    wanted = None if spec is None else parse_spec(spec)
    rows = matrix.rows(
        patches, wanted, releases, requires=lambda p: series.requirements_of(p, ctx.registry.load), python=python
    )
    found = overlap_report.find(patches, texts=overlap_report.cached())
    with_applied = applied.in_env(ctx, patches)
    if as_json:
        data = matrix_table.to_json(rows)
        if spec is None:
            data["entries"] = [_alone(ctx, row, releases, python) for row in rows]
        data["overlaps"] = [o.to_json() for o in found]
        data["applied_overlaps"] = [c.to_json() for c in with_applied]
        json_output.emit(data)
    else:
        click.echo(matrix_table.render(rows))
        for line in _not_checked(rows):
            click.echo(line)
        for line in [*overlap_report.lines(found), *(f"overlap: {c.line()}" for c in with_applied)]:
            click.echo(line)
    errors = [row for row in rows if row.error is not None]
    first = errors[0].error if errors else None
    if first is not None and len(errors) == len(rows):
        raise first
    bad = [(row.patch.name, r) for row in rows if row.report for r in row.report.failing]
    if bad:
        raise RefusedError(
            f"{len(bad)} release(s) inside the entries' supported ranges fail: "
            + ", ".join(f"{name} {r.version} ({first_failed(r)})" for name, r in bad),
            _all_hint(
                [r for _, r in bad], releases.settings.describe(), "radpatch verify " + " ".join(names or ["--all"])
            ),
        )
    if errors:
        raise RefusedError(
            "not verified: " + "; ".join(f"{row.patch.name}: {row.error}" for row in errors),
            "each entry's reason is above; verify it alone with `radpatch verify NAME`",
        )
    if not any(row.report.claimed for row in rows if row.report):
        raise UsageError(
            "none of the releases verified is in any entry's supported range: nothing the entries claim was verified",
            "drop --versions, or give a range the entries support",
        )
    return EXIT_OK


def _not_checked(rows: list[matrix.Row]) -> list[str]:
    """Below the matrix, what each cell's proof could not check without an installed target: a `pass`
    cell is never a silent pass of what apply would check (as `verify NAME` says it per release)."""
    lines = [
        f"{row.patch.name} {r.version}: not checked: {NEEDS} ({what})"
        for row in rows
        if row.report
        for r in row.report.results
        for what in r.not_checked
    ]
    judged = next((row.report.python_words for row in rows if row.report), "")
    return [*lines, f"judged for {judged}; `apply` checks what is not checked here on the install"] if lines else []


def _alone(ctx: Context, row: matrix.Row, releases: Releases, python: tuple[int, int] | None) -> dict[str, object]:
    """The object `verify NAME --json` prints for the row's entry. Without --versions the matrix
    verifies every entry over its distribution's span (the same columns for all), while `verify NAME`
    verifies the entry's own range and probes the releases next to it; `entries` promises the latter.
    The wheels and proofs are cached by the matrix run: this reads the index only for the probes."""
    if row.report is None:
        return {"patch": row.patch.name, "error": row.error and row.error.message}
    try:
        below = series.requirements_of(row.patch, ctx.registry.load)
        return verify(row.patch, row.patch.supported, releases, probe=True, requires=below, python=python).to_json()
    except RadpatchError:
        return row.report.to_json()


def run(ctx: Context, name: str, spec: str | None, as_json: bool, python: tuple[int, int] | None = None) -> int:
    patch = ctx.registry.load(name)
    wanted = patch.supported if spec is None else parse_spec(spec)
    requires = series.requirements_of(patch, ctx.registry.load)
    releases = Releases.from_env()
    report = verify(patch, wanted, releases, probe=spec is None, requires=requires, python=python)
    if as_json:
        json_output.emit(report.to_json())
    else:
        click.echo(render(report))
        with_applied = [f"overlap: {c.line()}" for c in applied.in_env(ctx, [patch])]
        for line in [*overlap_report.lines(_overlaps(ctx, patch)), *with_applied]:
            click.echo(line)
    if not report.claimed:
        asked = ", ".join(str(r.version) for r in report.results)
        raise UsageError(
            f"{patch.name}: none of the releases verified ({asked}) is in the declared range {patch.range}: "
            "nothing the patch claims was verified",
            "drop --versions to verify the declared range, or widen `supported` to claim these releases",
        )
    bad = report.failing
    if bad:
        raise RefusedError(
            f"{patch.name}: {len(bad)} of {_claimed_words(report)} fail: "
            + ", ".join(f"{r.version} ({first_failed(r)})" for r in bad),
            _hint(bad, requires, releases.settings.describe(), f"radpatch verify {name}"),
        )
    return EXIT_OK


def _claimed_words(report: Report) -> str:
    """The releases a failing count is out of: the declared range's, or, where `--versions` narrowed
    them, the asked ones (in the declared range)."""
    p, n = report.patch, len(report.claimed)
    if report.spec == p.supported:
        return f"{n} releases of {p.distribution} in {p.range}"
    return f"the {n} asked ({report.spec_text}) of {p.distribution}'s releases in {p.range}"


def _unreadable_wheels(bad: list[ReleaseResult], source: str, again: str) -> str:
    """What to do about the releases whose wheel could not be read ("" when none): the wheel is the
    problem there, not the rewrites; no part of an unreadable wheel is cached, so a fixed file is read
    anew."""
    unread = sorted({str(r.version) for r in bad if first_failed(r) == "wheel"})
    if not unread:
        return ""
    return (
        f"the wheel of {', '.join(unread)} is not readable (its row names the file): replace that file with a "
        f"readable copy where it comes from ({source}), then run `{again}` again"
    )


def _all_hint(bad: list[ReleaseResult], source: str, again: str) -> str:
    """`port` only when a release lacks a declared module (the code may have moved)."""
    wheels = _unreadable_wheels(bad, source, again)
    if wheels and all(first_failed(r) == "wheel" for r in bad):
        return wheels
    if any(first_failed(r) == "module" and r.kind.cause is Cause.NO_MODULE for r in bad):
        return (
            "`radpatch port NAME --to VERSION` adds a moved module; fix a rewrite that no longer matches, "
            "or narrow `supported`"
        )
    return "each failing row's note says why: fix the rewrite it names, or narrow `supported`" + (
        f"; {wheels}" if wheels else ""
    )


def _hint(bad: list[ReleaseResult], requires: tuple[Patch, ...], source: str, again: str) -> str:
    wheels = _unreadable_wheels(bad, source, again)
    if wheels and all(first_failed(r) == "wheel" for r in bad):
        return wheels
    if wheels:  # some releases fail on the rewrites, some on their wheel
        return f"{_hint([r for r in bad if first_failed(r) != 'wheel'], requires, source, again)}; {wheels}"
    if requires and all(first_failed(r) == "requires" for r in bad):
        return f"an entry it requires does not apply there: verify {requires[-1].name} alone (its rows say why)"
    return "fix the rewrites (or declare a variant/module for those releases), or narrow `supported`"


def _overlaps(ctx: Context, patch: Patch) -> list[Overlap]:
    """The entry's overlaps with the other entries of the registries (an invalid other entry is
    skipped here: `radpatch list` reports it)."""
    others: list[Patch] = []
    for name in ctx.registry.names():
        if name != patch.name:
            try:
                others.append(ctx.registry.load(name))
            except RadpatchError:
                continue
    return [
        o
        for o in overlap_report.find([patch, *others], texts=overlap_report.cached())
        if patch.name in (o.first, o.second)
    ]


_MARK = {True: "ok", False: "FAIL", None: "-"}


def render(report: Report) -> str:
    p = report.patch
    shown = [c for c in CHECKS if c != "requires" or report.requires]  # the column of an entry that requires others
    head = ("RELEASE", "RANGE", *(c.upper() for c in shown), "RESULT", "TARGET MODULE")
    rows = [
        (
            str(r.version),
            "in" if r.in_range else "out",
            *(_MARK[r.checks[c]] for c in shown),
            "ok" if r.ok else "FAIL",
            ", ".join(r.modules),
        )
        for r in report.results
    ]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = [
        f"{p.name}: {p.distribution} releases in {report.spec_text or 'any version'} (declared: {p.range}); "
        f"files cached in {report.cache}"
    ]
    if report.requires:
        lines.append(f"proven on what the entries it requires leave, applied first: {', '.join(report.requires)}")
    assumes = "stores no name a rename it follows keeps (vouched_exec; reads: covers that module, not what it imports)"
    lines += [f"assumes: {vouched_exec.said(v)} {assumes}" for v in p.vouched_exec]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head, *rows]]
    for r in report.results:
        if r.error or r.note:
            lines.append(f"{r.version}: " + (r.error or r.note).replace("\n", "\n    "))
        lines += [f"{r.version}: not checked: {NEEDS} ({what})" for what in r.not_checked]
        lines += [f"{r.version}: module {words}" for words in r.chosen]
        lines += [f"{r.version}: {vouched_exec.stale_words(p.vouched_exec, r.version, i, why)}" for i, why in r.stale]
    lines += vouched_exec.absent_words(p.vouched_exec, [(r.version, r.absent) for r in report.results])
    if report.python_given or any(r.not_checked for r in report.results):
        lines.append(f"judged for {report.python_words}; `apply` checks what is not checked here on the install")
    lines.append(f"{sum(r.ok for r in report.claimed)} of {len(report.claimed)} releases in the declared range pass.")
    if report.widen:
        lines.append(
            f"range could be widened to include {', '.join(str(v) for v in report.widen)} (they pass every check)"
        )
    if report.bases_read:
        lines.append(bases_line(report.bases_read))
    links = matrix.upstream(p)
    for r in report.results:
        if r.obsolete:
            where = "declare it in `obsolete:`" if r.in_range else "the patch is obsolete there"
            why = f"; upstream: {', '.join(links)}" if links else ""
            lines.append(f"{p.distribution} {r.version} already contains the change ({where}{why})")
    return "\n".join(lines)


def bases_line(read: tuple[Version, ...]) -> str:
    """How many releases outside those verified were read to look for the entry's change on a base
    (radpatch.releases.base_search.search_order), and which."""
    n = len(read)
    return (
        f"read {n} release{'s' if n != 1 else ''} outside those verified to look for the entry's change on a base "
        f"(the {BASES} of the declared range nearest those verified, then its first, then up to {MOST} in all spread "
        f"over it): {', '.join(str(v) for v in read)}"
    )
