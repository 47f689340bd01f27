"""A counted rewrite anchored by the compound statement it is in (issue 20, att56 F10): a
`set_keyword`, an insertion, a `replace`, a `delete`, an `add_element`/`remove_element` or a
`set_item` the importer picks by a bare `occurrence: N` is written `within:` the innermost
enclosing header or clause (importing.enclosing_clauses: `if`/`elif`/`else`, `for`, `while`,
`with`, `try`/`except`/`finally`, `match`/`case`) that holds that copy alone, the way a person tells
one copy of repeated code apart. A count shifts when a release adds a copy above the site; the
header does not. Where the innermost header holds several copies, the count is kept but counted
inside it (`within:` and `occurrence:`): a copy added above the statement no longer shifts it.
The operation stays as narrow as it was (a keyword stays a `set_keyword`): only how its match is
picked changes; where no header tells the copy apart the count stays.

Each anchor is checked by apply's own matcher, without editing or running the entry
(rewrite.ops.common.match_probe.probe): on the installed module the anchored rewrite finds exactly
the match the count found, and its inverse finds exactly one match on the patched module (a count
inside a header: the rewrite, run alone, gives both ways what the bare count gives). A header
whose statement holds another rewrite of the module (or one whose place is not known) is not used:
those edits could add or take a match there between the installed file and the result."""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path

import yaml

from radpatch import source_lines
from radpatch.errors import Position, RadpatchError
from radpatch.importing.enclosing_clauses import enclosing
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.registry.loader import load_bytes
from radpatch.registry.model import Operation
from radpatch.rewrite.matching import MatchFailure
from radpatch.rewrite.source import Source

OPS = (  # picked by a count, anchored here
    *("set_keyword", "insert_after", "insert_before", "replace", "delete"),
    *("add_element", "remove_element", "set_item"),
)
UNLOADED = ("insert_definitions", "create_module")  # a payload beside the entry: never counted


def anchored(before: str, after: str, chosen: tuple[ImportStep, ...]) -> tuple[ImportStep, ...]:
    """`chosen` with each bare `occurrence:` of a counted rewrite replaced by `within:` the
    enclosing header that picks the same match alone, where apply's matcher agrees."""
    counted = [i for i, s in enumerate(chosen) if _counted(s)]
    if not counted:
        return chosen
    try:
        ops = _operations(chosen)
        installed, patched = Source.parse(before), Source.parse(after)
        tree = ast.parse(before)
    except (RadpatchError, SyntaxError, ValueError, RecursionError):
        return chosen
    known: dict[int, Position | None] = {}

    def place(j: int) -> Position | None:  # probed once, where a header is weighed
        if j not in known:
            op = ops[j]
            known[j] = _place(op, chosen[j], installed) if op is not None else None
        return known[j]

    lines = source_lines.split(before)
    out = list(chosen)
    for i in counted:
        op, where = ops[i], place(i)
        if op is None or where is None:
            continue
        scope = str(chosen[i].get("scope"))
        picked: ImportStep | None = None  # alone in a header, else counted inside the innermost
        for anchor in enclosing(tree, scope, where[0], lines):
            if any(_near(place(j), chosen[j], scope, anchor.span) for j in range(len(chosen)) if j != i):
                break  # another rewrite edits inside it: the matches there may differ between the steps
            nth = _picks(op, anchor.text, where, installed, patched)
            if nth == 0:  # alone there (an outer header may hold fewer copies: `within:` reads its text)
                picked = _within(chosen[i], anchor.text, 0)
                break
            if nth is not None and picked is None:
                picked = _within(chosen[i], anchor.text, nth)
        out[i] = picked or out[i]
    return tuple(out)


def _counted(step: ImportStep) -> bool:
    bare = step.get("within") is None and step.get("header") is None and step.get("call_occurrence") is None
    return step.op in OPS and isinstance(step.get("occurrence"), int) and bare


def _operations(chosen: tuple[ImportStep, ...]) -> list[Operation | None]:
    """Each step's operation as the registry loader reads it (None: a step with a payload)."""
    kept = [i for i, s in enumerate(chosen) if s.op not in UNLOADED]
    items = [{chosen[i].op: dict(chosen[i].keys)} for i in kept]
    doc = {"summary": "s", "description": "d", "distribution": "d", "supported": ">=0", "modules": {"m": "m"}}
    data = yaml.safe_dump({**doc, "rewrites": items}, sort_keys=False).encode()
    patch = load_bytes(Path("import-anchors.yaml"), data)
    out: list[Operation | None] = [None] * len(chosen)
    for i, rw in zip(kept, patch.rewrites):
        out[i] = rw.op
    return out


def _probe(run: Callable[[], object]) -> list[Position] | None:
    """The positions of the matches `run` chooses among, without editing; None where unknown."""
    from radpatch.rewrite.ops.common import code_errors
    from radpatch.rewrite.ops.common.match_probe import probe

    try:
        with code_errors():
            return probe(run)
    except (MatchFailure, RadpatchError, SyntaxError, ValueError, RecursionError):
        return None


def _place(op: Operation, step: ImportStep, installed: Source) -> Position | None:
    """Where the step's match is in the installed module; None where its matcher does not say."""
    if step.get("call_occurrence") is not None or step.get("header") is not None:
        return None
    found = _probe(lambda: op.forward(installed))
    nth = step.get("occurrence")
    if not found or nth == "all":
        return None
    if isinstance(nth, int):
        return found[nth - 1] if nth <= len(found) else None
    return found[0] if len(found) == 1 else None


def _near(place: Position | None, step: ImportStep, scope: str, span: range) -> bool:
    """Whether another step may edit inside the statement spanning `span`: its match lies there, or
    its place is unknown and it names the same scope (or one in it, or none)."""
    if place is not None:
        return place[0] in span
    named = step.get("scope")
    return named is None or named == scope or str(named).startswith(scope + ".") or scope.startswith(f"{named}.")


def _picks(op: Operation, text: str, spot: Position, installed: Source, patched: Source) -> int | None:
    """0 where the rewrite `within:` the header finds the counted match (at `spot`) alone on the
    installed module, and its inverse one match on the patched module; N where the match is the
    N-th of several there and the rewrite `within:` it with `occurrence: N` gives, alone, what the
    bare count gives both ways (a `delete`, whose inverse finds its own mark, also so); None
    otherwise."""
    if not hasattr(op, "within") or not hasattr(op, "occurrence"):
        return None
    narrowed = dataclasses.replace(op, within=text, occurrence=None)  # type: ignore[type-var]
    there = _probe(lambda: narrowed.forward(installed))
    if there is None or spot not in there:
        return None
    nth = 0 if there == [spot] else there.index(spot) + 1
    if nth == 0 and op.KEY != "delete":
        back = _probe(lambda: narrowed.inverse(patched))
        return 0 if back is not None and len(back) == 1 else None
    picked = dataclasses.replace(op, within=text, occurrence=nth or None)  # type: ignore[type-var]
    same = [_run(functools.partial(o.forward, installed)) for o in (op, picked)]
    if op.KEY == "delete":  # `after` has no mark: undone where it deleted, the installed code again
        done = same[1]
        undone = [installed.lines, _run(functools.partial(picked.inverse, Source.parse("".join(done or ()))))]
    else:
        undone = [_run(functools.partial(o.inverse, patched)) for o in (op, picked)]
    return nth if None not in same + undone and same[0] == same[1] and undone[0] == undone[1] else None


def _run(run: Callable[[], Source]) -> tuple[str, ...] | None:
    """The lines the rewrite run alone gives; None where it refuses."""
    from radpatch.rewrite.ops.common import code_errors

    try:
        with code_errors():
            return run().lines
    except (MatchFailure, RadpatchError, SyntaxError, ValueError, RecursionError):
        return None


def _within(step: ImportStep, text: str, nth: int) -> ImportStep:
    """The step `within: text`, its `occurrence:` dropped (0) or counted inside the header (N)."""
    keys: list[tuple[str, Value]] = []
    for k, v in step.keys:
        if k == "occurrence":
            keys += [("within", text)] + ([("occurrence", nth)] if nth else [])
        else:
            keys.append((k, v))
    return dataclasses.replace(step, keys=tuple(keys))
