"""insert_definitions: a payload's top-level defs, classes and constants go next to a named
top-level definition of the target, as whole lines located with `ast` (no libcst parse of the
target); its imports go after the target's imports (imports.py), unless the target has them.

Nothing of the payload is dropped silently: the loader refuses statements that cannot move (a
call, an `if`); the payload's docstring describes the payload; a `from __future__` import must
be in the target already. A name the target binds already (def, class, import, assignment) is
refused: the payload would take it over.
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
from dataclasses import dataclass

from radpatch.registry.model import InsertDefinitions
from radpatch.rewrite.matching import (
    Ambiguous,
    Clash,
    MatchFailure,
    NearMiss,
    NotFound,
    NotUndoable,
)
from radpatch.rewrite.ops import imports
from radpatch.rewrite.ops.common import near
from radpatch.rewrite.source import Source, Top, bound_names, decode, payload_statement


@dataclass(frozen=True)
class Payload:
    items: dict[str, tuple[str, str]]  # name -> (source text ending in "\n", ast dump), defs and constants
    imports: tuple[str, ...]
    futures: tuple[str, ...]


@functools.lru_cache(maxsize=32)
def payload(source: bytes) -> Payload:
    src = Source.parse(
        re.sub(r"\r\n?", "\n", decode(source)[0])
    )  # PEP 263; the target's line endings are applied later
    items: dict[str, tuple[str, str]] = {}
    found: dict[str, list[str]] = {"import": [], "future": []}
    for i, top in enumerate(src.tops):
        node = src.node(i)
        kind = payload_statement(node, first=i == 0)
        text = src.text_of(top.start, top.end)
        if kind in ("def", "constant"):
            items[bound_names(node)[0]] = (text if text.endswith("\n") else text + "\n", ast.dump(node))
        elif kind in found:
            found[kind].append(ast.unparse(node))
    return Payload(items, tuple(found["import"]), tuple(found["future"]))


def _binding(src: Source, name: str) -> list[int]:
    return [i for i, t in enumerate(src.tops) if name in t.binds]


def forward(src: Source, op: InsertDefinitions) -> Source:
    p = payload(op.payload_source)
    for future in p.futures:
        if not imports.has(src, future):
            raise MatchFailure(
                f"the payload {op.payload.name} has `{future}` and the module does not",
                "remove it from the payload (write annotations that work either way) or target a module that has it",
            )
    anchor = src.named(op.anchor)
    if len(anchor) != 1:
        if anchor:
            raise Ambiguous(
                f"the module defines {op.anchor!r} {len(anchor)} times "
                f"(lines {', '.join(str(src.tops[a].start + 1) for a in anchor)})"
            )
        close = difflib.get_close_matches(op.anchor, src.names(), n=3)
        raise (NearMiss if close else NotFound)(
            f"top-level definition {op.anchor!r} not found in the module; {near(op.anchor, src.names())}",
            "fix the name in `before:`/`after:` (a top-level def or class of the module)" if close else "",
        )
    for name in op.names:
        bound = _binding(src, name)
        if bound:
            raise Clash(
                f"the module already binds {name!r} (line {src.tops[bound[0]].start + 1}); "
                f"the payload's {name!r} would take it over"
            )
    _defined_before(src, op, anchor[0], p)
    src = _insert(src, op, anchor[0], p)
    for statement in p.imports:
        src = imports.add(src, statement)
    return src


def _import_time_reads(node: ast.stmt) -> set[str]:
    """Module names a payload item reads when the module is imported: a constant's value, a
    def's or class's decorators (and a class's bases)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        exprs: list[ast.expr] = [*node.decorator_list, *(node.bases if isinstance(node, ast.ClassDef) else [])]
    else:
        exprs = [v for v in (getattr(node, "value", None),) if v is not None]
    return {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)}


def _defined_before(src: Source, op: InsertDefinitions, anchor: int, p: Payload) -> None:
    """Refuse a payload item that reads, at import time, a module name bound only below the
    place it goes (importing the patched module would raise NameError)."""
    first = anchor if op.where == "before" else anchor + 1
    own = {name for statement in p.imports for name in bound_names(ast.parse(statement).body[0])}
    for k, name in enumerate(op.names):
        for read in sorted(_import_time_reads(ast.parse(p.items[name][0]).body[0]) - own - set(op.names[:k])):
            bound = _binding(src, read)
            if bound and min(bound) >= first:
                raise MatchFailure(
                    f"the payload's {name!r} reads {read!r} when the module is imported, and the module binds "
                    f"{read!r} only at line {src.tops[min(bound)].start + 1}, below where {name!r} would go",
                    f"anchor the payload below line {src.tops[min(bound)].start + 1} (`after:` a later definition)",
                )


def _insert(src: Source, op: InsertDefinitions, anchor: int, p: Payload) -> Source:
    """Definitions go right after the statement preceding the anchor ("before"; so comments
    above the anchor stay with it) or right after the anchor ("after"), each preceded by two
    blank lines. Before a first statement they go at the top, each followed by two. The
    file's line endings are used, and a file without a final newline stays without one."""
    nl = src.newline
    defs = [p.items[name][0].replace("\n", nl) for name in op.names]
    first = anchor if op.where == "before" else anchor + 1
    if first == len(src.tops) and src.tops and not src.lines[-1].endswith(("\n", "\r")):
        return Source.parse(src.text + nl + "".join(nl + nl + d for d in defs)[: -len(nl)])
    at_top = first == 0
    block, tops = "", []
    for name, text in zip(op.names, defs):
        start = len(Source.parse_lines(block)) + (0 if at_top else 2)
        tops.append(
            Top(
                name if text.lstrip().startswith(("def ", "async ", "class ", "@")) else None,
                start,
                start + len(Source.parse_lines(text)),
                (name,),
            )
        )
        block += text + nl + nl if at_top else nl + nl + text
    at_line = 0 if at_top else src.tops[first - 1].end
    return src.splice_lines(at_line, at_line, first, first, block, tuple(tops))


def inverse(src: Source, op: InsertDefinitions) -> Source:
    p = payload(op.payload_source)
    for statement in reversed(p.imports):
        src = imports.remove(src, statement)
    first = _binding(src, op.names[0])
    if len(first) != 1:
        raise NotUndoable(
            f"injected definition {op.names[0]!r} is {'not there' if not first else 'there several times'}"
        )
    i, n = first[0], len(op.names)
    wanted = [p.items[name][1] for name in op.names]
    got = [
        ast.dump(src.node(k)) if k < len(src.tops) and name in src.tops[k].binds else ""
        for k, name in zip(range(i, i + n), op.names)
    ]
    if got != wanted:
        differ = [name for name, g, w in zip(op.names, got, wanted) if g != w]
        raise NotUndoable(f"injected definitions differ from the payload {op.payload.name}: {', '.join(differ)}")
    at = i + n if op.where == "before" else i - 1
    if not (0 <= at < len(src.tops) and src.tops[at].name == op.anchor):
        raise NotUndoable(f"injected definitions are not {op.where} {op.anchor!r}")
    start = 0 if i == 0 else src.tops[i - 1].end
    end = src.tops[i + n].start if i == 0 else src.tops[i + n - 1].end
    inside = {line for t in src.tops[i : i + n] for line in range(t.start, t.end)}
    stray = [k + 1 for k in range(start, end) if k not in inside and src.lines[k].strip()]
    if stray:
        raise NotUndoable(
            f"lines {stray[:3]} between the injected definitions are not blank; cannot remove them exactly"
        )
    if i + n == len(src.tops) and not src.lines[-1].endswith(("\n", "\r")):
        kept = src.text_of(0, start)  # the file had no final newline before the definitions came
        return Source.parse(kept[: -len(src.newline)] if kept.endswith(src.newline) else kept)
    return src.splice_lines(start, end, i, i + n, "", ())
