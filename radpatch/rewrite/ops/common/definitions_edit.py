"""insert_definitions' edit: the payload's items placed next to a named top-level definition of the
module (or into a class, through class_body), its imports added after the module's, and taken
back out exactly; as whole lines located with `ast`."""

from __future__ import annotations

import ast
import difflib
from typing import TYPE_CHECKING

from radpatch.rewrite.matching import Ambiguous, Clash, MatchFailure, NearMiss, NotFound, NotUndoable
from radpatch.rewrite.ops.common import near
from radpatch.rewrite.ops.common.class_body import class_forward, class_inverse
from radpatch.rewrite.ops.common.import_lines import add_import, has_import, remove_import
from radpatch.rewrite.ops.common.payload_items import (
    Payload,
    binding,
    import_time_reads,
    leading_comments,
    own_lines,
    payload,
)
from radpatch.rewrite.source import Source, Top
from radpatch.rewrite.top_bindings import bound_names

if TYPE_CHECKING:
    from radpatch.rewrite.ops.insert_definitions import InsertDefinitions


def forward_definitions(src: Source, op: InsertDefinitions) -> Source:
    p = payload(op.payload_source)
    for future in p.futures:
        if not has_import(src, future):
            raise MatchFailure(
                f"the payload {op.payload.name} has `{future}` and the module does not",
                "remove it from the payload (write annotations that work either way) or target a module that has it",
            )
    if op.in_class:
        src = class_forward(src, op, p)
        for statement in p.imports:
            src = add_import(src, statement)
        return src
    anchor = src.named(op.anchor)
    if len(anchor) != 1:
        if anchor:
            raise Ambiguous(
                f"the module defines {op.anchor!r} {len(anchor)} times "
                f"(lines {', '.join(str(src.tops[a].start + 1) for a in anchor)})"
            )
        close = difflib.get_close_matches(op.anchor, src.names(), n=3)  # only on this refusal path
        raise (NearMiss if close else NotFound)(
            f"top-level definition {op.anchor!r} not found in the module; {near(op.anchor, src.names())}",
            "fix the name in `before:`/`after:` (a top-level def or class of the module)" if close else "",
            scope_gone=True,
        )
    for name in op.names:
        bound = binding(src, name)
        if bound:
            raise Clash(
                f"the module already binds {name!r} (line {src.binding_line(bound[0], name)}); "
                f"the payload's {name!r} would take it over"
            )
    _defined_before(src, op, anchor[0], p)
    src = _insert(src, op, anchor[0], p)
    for statement in p.imports:
        src = add_import(src, statement)
    return src


def _defined_before(src: Source, op: InsertDefinitions, anchor: int, p: Payload) -> None:
    """Refuse a payload item that reads, at import time, a module name bound only below the
    place it goes (importing the patched module would raise NameError)."""
    first = anchor if op.side == "before" else anchor + 1
    own = {name for statement in p.imports for name in bound_names(ast.parse(statement).body[0])}
    for k, name in enumerate(op.names):
        for read in sorted(import_time_reads(ast.parse(p.items[name][0]).body[0]) - own - set(op.names[:k])):
            bound = binding(src, read)
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
    first = anchor if op.side == "before" else anchor + 1
    if first == len(src.tops) and src.tops and not src.lines[-1].endswith(("\n", "\r")):
        return Source.parse(src.text + nl + "".join(nl + nl + d for d in defs)[: -len(nl)])
    at_top = first == 0
    block, tops = "", []
    for name, text in zip(op.names, defs):
        start = len(Source.parse_lines(block)) + (0 if at_top else 2)
        lead = leading_comments(text)
        code = "".join(Source.parse_lines(text)[lead:])
        tops.append(
            Top(
                name if code.lstrip().startswith(("def ", "async ", "class ", "@")) else None,
                start + lead,
                start + len(Source.parse_lines(text)),
                (name,),
            )
        )
        block += text + nl + nl if at_top else nl + nl + text
    at_line = src.head() if at_top else src.tops[first - 1].end
    return src.splice_lines(at_line, at_line, first, first, block, tuple(tops))


def inverse_definitions(src: Source, op: InsertDefinitions) -> Source:
    p = payload(op.payload_source)
    for statement in reversed(p.imports):
        src = remove_import(src, statement)
    if op.in_class:
        return class_inverse(src, op, p)
    first = binding(src, op.names[0])
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
    at = i + n if op.side == "before" else i - 1
    if not (0 <= at < len(src.tops) and src.tops[at].name == op.anchor):
        raise NotUndoable(f"injected definitions are not {op.side} {op.anchor!r}")
    own = own_lines(src, op, p, [t.start for t in src.tops[i : i + n]])
    start = min([src.head(), *own]) if i == 0 else src.tops[i - 1].end  # at the top: from its own comments
    end = min(src.tops[i + n - 1].end + 2, src.tops[i + n].start) if i == 0 else src.tops[i + n - 1].end
    inside = {line for t in src.tops[i : i + n] for line in range(t.start, t.end)} | own
    stray = [k + 1 for k in range(start, end) if k not in inside and src.lines[k].strip()]
    if stray:
        raise NotUndoable(
            f"lines {stray[:3]} between the injected definitions are not blank; cannot remove them exactly"
        )
    if i + n == len(src.tops) and not src.lines[-1].endswith(("\n", "\r")):
        kept = src.text_of(0, start)  # the file had no final newline before the definitions came
        return Source.parse(kept[: -len(src.newline)] if kept.endswith(src.newline) else kept)
    return src.splice_lines(start, end, i, i + n, "", ())
