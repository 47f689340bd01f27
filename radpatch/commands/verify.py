"""`radpatch verify NAME`: parse, run verify's engine (radpatch.releases.verify), render.

Exit 1 when a release in the declared range (and in SPEC) fails; releases outside the declared
range are reported, never counted against the patch. Exit 2 when SPEC holds no release of the
declared range: nothing the patch claims was verified. `--json` prints one object
(JSON_SCHEMA_VERSION in radpatch.releases.verify), also on exit 1 and 2.
"""

from __future__ import annotations

import json

import click

from radpatch.context import Context
from radpatch.errors import EXIT_OK, RefusedError, UsageError
from radpatch.releases.verify import CHECKS, Report, first_failed, parse_spec, verify
from radpatch.releases.wheels import Releases


def run(ctx: Context, name: str, spec: str | None, as_json: bool) -> int:
    patch = ctx.registry.load(name)
    wanted = patch.supported if spec is None else parse_spec(spec)
    report = verify(patch, wanted, Releases.from_env(), probe=spec is None)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        click.echo(render(report))
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
            f"{patch.name}: {len(bad)} of {len(report.claimed)} releases of {patch.distribution} "
            f"in {patch.range} fail: "
            + ", ".join(f"{r.version} ({first_failed(r)})" for r in bad),
            "fix the rewrites (or declare a variant/module for those releases), or narrow `supported`",
        )
    return EXIT_OK


_MARK = {True: "ok", False: "FAIL", None: "-"}


def render(report: Report) -> str:
    p = report.patch
    head = ("RELEASE", "RANGE", *(c.upper() for c in CHECKS), "RESULT", "TARGET MODULE")
    rows = [
        (
            str(r.version),
            "in" if r.in_range else "out",
            *(_MARK[r.checks[c]] for c in CHECKS),
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
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head, *rows]]
    for r in report.results:
        if r.error or r.note:
            lines.append(f"{r.version}: " + (r.error or r.note).replace("\n", "\n    "))
    lines.append(f"{sum(r.ok for r in report.claimed)} of {len(report.claimed)} releases in the declared range pass.")
    if report.widen:
        lines.append(
            f"range could be widened to include {', '.join(str(v) for v in report.widen)} (they pass every check)"
        )
    for r in report.results:
        if r.obsolete:
            where = "declare it in `obsolete:`" if r.in_range else "the patch is obsolete there"
            lines.append(f"{p.distribution} {r.version} already contains the change ({where})")
    return "\n".join(lines)
