"""The matrix (releases.matrix) as verify prints it: a table of entries x releases with a note per
cell that needs one, or the JSON object `verify --json` prints (per entry, what `verify NAME
--json` prints, then the cells)."""

from __future__ import annotations

from radpatch.releases import vouched_exec
from radpatch.releases.matrix import FAIL, MOVED, NO_MATCH, OBSOLETE, OUT, PASS, Row, upstream


def render(rows_: list[Row]) -> str:
    versions = sorted({c.version for row in rows_ for c in row.cells})
    head = ["ENTRY", *(str(v) for v in versions)]
    table = [head]
    for row in rows_:
        by_version = {c.version: c for c in row.cells}
        table.append([row.patch.name, *(by_version[v].short if v in by_version else "-" for v in versions)])
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    notes = [
        f"{row.patch.name} {c.version}: {c.kind}: {c.detail}"
        for row in rows_
        for c in row.cells
        if c.kind in (MOVED, NO_MATCH, FAIL, OBSOLETE)
        or (c.kind == PASS and c.uncovered)
        or (c.kind == OUT and (c.also or c.not_in_effect or c.requirement))
    ]
    notes += [f"{row.patch.name} {s}" for row in rows_ for c in row.cells for s in c.stale]
    notes += [
        f"{row.patch.name} {s}"
        for row in rows_
        for s in vouched_exec.absent_words(row.patch.vouched_exec, [(c.version, c.absent) for c in row.cells])
    ]
    several = any(c.kind == OUT and c.also for row in rows_ for c in row.cells)
    notes += [f"{row.patch.name}: not verified: {row.error.message}" for row in rows_ if row.error is not None]
    if notes:
        lines += ["", *notes]
    lines.append("")
    lines.append(
        "out: outside the entry's `supported` range; out (pass): it would pass there (`radpatch port` widens it); "
        "out (moved: MODULE): it would pass in MODULE (`radpatch port` adds it)"
        + ("; out (moved: several): several modules define the scope (named above; edit by hand)" if several else "")
    )
    return "\n".join(lines)


def to_json(rows_: list[Row]) -> dict[str, object]:
    return {
        "schema_version": 1,
        "entries": [
            row.report.to_json() if row.report else {"patch": row.patch.name, "error": row.error and row.error.message}
            for row in rows_
        ],
        "matrix": [
            {"patch": row.patch.name, "upstream": list(upstream(row.patch)), "cells": [c.to_json() for c in row.cells]}
            for row in rows_
        ],
    }
