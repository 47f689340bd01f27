"""A counted rewrite anchored by the compound statement it is in (issue 20): a `set_keyword`, an
insertion or a `replace` the importer picks by a bare `occurrence: N` is written `within:` the
innermost enclosing `if`/`for`/`while`/`with` header that holds that copy alone, the way a person
tells one copy of repeated code apart. A count shifts when a release adds a copy above the site;
the header does not. The operation stays as narrow as it was (a keyword stays a `set_keyword`):
only how its match is picked changes; where no header tells the copy apart the count stays.

Each anchor is checked by apply's own matcher, without editing or running the entry
(rewrite.ops.common.match_probe.probe): on the installed module the anchored rewrite finds exactly
the match the count found, and its inverse finds exactly one match on the patched module. A header
whose statement holds another rewrite of the module (or one whose place is not known) is not used:
those edits could add or take a match there between the installed file and the result."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import yaml

from radpatch.errors import Position, RadpatchError
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.scope_walk import blocks_of, scope_body
from radpatch.registry.loader import load_bytes
from radpatch.registry.model import Operation
from radpatch.rewrite.matching import MatchFailure
from radpatch.rewrite.source import Source

OPS = ("set_keyword", "insert_after", "insert_before", "replace")  # picked by a count, anchored here
HEADERS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)
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

    lines = before.splitlines()
    out = list(chosen)
    for i in counted:
        op, where = ops[i], place(i)
        if op is None or where is None:
            continue
        scope = str(chosen[i].get("scope"))
        for node in _enclosing(tree, scope, where[0]):
            span = range(node.lineno, (node.end_lineno or node.lineno) + 1)
            if any(_near(place(j), chosen[j], scope, span) for j in range(len(chosen)) if j != i):
                break  # another rewrite edits inside it: the matches there may differ between the steps
            text = _header(lines, node)
            if text is None:
                continue
            if _picks(op, text, where, installed, patched):
                out[i] = _within(chosen[i], text)
                break
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


def _enclosing(tree: ast.Module, scope: str, line: int) -> Iterator[ast.stmt]:
    """The headers in the scope whose body holds `line`, innermost first."""
    body = scope_body(tree, scope) if scope != "<module>" else tree.body
    found: list[ast.stmt] = []
    while body:
        inner = next((s for s in body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
        if inner is None:
            break
        blocks = [b for b in blocks_of(inner) if b[0].lineno <= line]
        if not blocks:
            break
        if isinstance(inner, HEADERS):
            found.append(inner)
        body = max(blocks, key=lambda b: b[0].lineno)
    return reversed(found)


def _header(lines: list[str], node: ast.stmt) -> str | None:
    """The header's line as written (an `elif` as the `if` it is), where it is one line of its own."""
    blocks = blocks_of(node)
    if not blocks or blocks[0][0].lineno == node.lineno or node.lineno > len(lines):
        return None
    text = lines[node.lineno - 1].strip()
    if text.startswith("elif "):
        text = text[2:]
    for cut in (text, text.split("#")[0].rstrip()):
        try:
            ast.parse(cut + "\n    pass")
        except SyntaxError:
            continue
        return cut if cut.endswith(":") else None
    return None


def _picks(op: Operation, text: str, spot: Position, installed: Source, patched: Source) -> bool:
    """Whether the rewrite `within:` the header finds the counted match (at `spot`) alone on the
    installed module, and its inverse one match on the patched module."""
    if not hasattr(op, "within") or not hasattr(op, "occurrence"):
        return False
    narrowed = dataclasses.replace(op, within=text, occurrence=None)  # type: ignore[type-var]
    there = _probe(lambda: narrowed.forward(installed))
    back = _probe(lambda: narrowed.inverse(patched))
    return there == [spot] and back is not None and len(back) == 1


def _within(step: ImportStep, text: str) -> ImportStep:
    keys: list[tuple[str, Value]] = [("within", text) if k == "occurrence" else (k, v) for k, v in step.keys]
    return dataclasses.replace(step, keys=tuple(keys))
