"""insert_definitions: a payload's top-level defs, classes and constants go next to a named
top-level definition of the target, or into a class (next to one of its methods, or at the end of
its body, indented to it), as whole lines located with `ast` (no libcst parse of the target); its
imports go after the target's imports (ops/common.py), unless the target has them.
The edit into a class, and what both kinds use to place a payload item, are in
ops/common/class_body.py.

Nothing of the payload is dropped silently: the loader refuses statements that cannot move (a
call, an `if`); the payload's docstring describes the payload; a `from __future__` import must
be in the target already. A name the target binds already (def, class, import, assignment) is
refused: the payload would take it over; in a class, a name its body binds (a method, a class
attribute) likewise.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, cast

from radpatch.registry.model import Fail, Field, Operation, PayloadFile
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source, Top, decode
from radpatch.rewrite.top_bindings import bound_names, payload_statement

if TYPE_CHECKING:
    import difflib

    from radpatch.rewrite.matching import Ambiguous, Clash, MatchFailure, NearMiss, NotFound, NotUndoable
    from radpatch.rewrite.ops.common import near
    from radpatch.rewrite.ops.common.class_body import (
        binding,
        class_forward,
        class_inverse,
        import_time_reads,
        leading_comments,
        own_lines,
    )
    from radpatch.rewrite.ops.common.import_lines import add_import, has_import, remove_import


@dataclass(frozen=True)
class InsertDefinitions(Operation):
    """Insert definitions (and the imports and constants they need) from a payload file before or
    after a named top-level definition, before or after a method of a class (`Class.method`), or at
    the end of a class (`into: Class`); in a class they are indented into its body."""

    payload: Path
    payload_source: bytes
    names: tuple[str, ...]
    anchor: str
    side: Literal["before", "after", "into"]

    KEY: ClassVar[str] = "insert_definitions"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("payload", "payload", "path of a Python file, relative to the registry file"),
        Field(
            "names", "names", "optional: which definitions and constants (default: all, in file order)", required=False
        ),
        Field(
            "before",
            "qualname",
            "a top-level def/class of the target, or a method of a class (`Class.method`): the payload goes into "
            "that class; give one of `before`, `after`, `into`",
            required=False,
        ),
        Field("after", "qualname", "like `before`, after it", required=False),
        Field(
            "into",
            "qualname",
            "a class (`Class`, `Outer.Inner`): the payload goes at the end of its body, as methods and class "
            "attributes",
            required=False,
        ),
    )
    ONE_OF: ClassVar[tuple[tuple[str, ...], ...]] = (("before", "after", "into"),)
    EXAMPLE: ClassVar[str] = (
        "payload: ../patches/kv_group_size/payload.py\nbefore: _get_kv_cache_groups_uniform_page_size"
    )

    @classmethod
    def read(cls, key: str, value: object, fail: Callable[[str], Exception]) -> object:
        """The payload holds only what can move into another module: defs, classes, imports and
        NAME = value constants, each name once. Returns (file, bytes, the names it defines)."""
        if key != "payload":
            return value
        p = cast(PayloadFile, value)
        defs: list[str] = []
        for i, stmt in enumerate(p.tree.body):
            kind = payload_statement(stmt, first=i == 0)
            if kind is None:
                raise fail(
                    f"payload {p.path}:{stmt.lineno}: a top-level {type(stmt).__name__} statement cannot be "
                    "inserted into another module; payloads hold defs, classes, imports and NAME = value constants"
                )
            for name in bound_names(stmt) if kind in ("def", "constant") else ():
                if name in defs:
                    raise fail(f"payload {p.path}:{stmt.lineno}: {name!r} is defined twice; keep one")
                defs.append(name)
        return p.path, p.data, defs

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        side: Literal["before", "after", "into"] = next(k for k in ("before", "after", "into") if k in values)
        if values[side] == "<module>":
            raise fail(side, "name a definition of the target (`f`, `Class`, `Class.method`), not `<module>`")
        file, data, defs = cast("tuple[Path, bytes, list[str]]", values["payload"])
        names = cast("tuple[str, ...] | None", values.get("names"))
        if names is None:
            if not defs:
                raise fail("names", f"payload {file.name} has no top-level definition or constant to insert", "payload")
            names = tuple(defs)
        missing = [n for n in names if n not in defs]
        if missing:
            raise fail("names", f"payload {file.name} defines no top-level {', '.join(map(repr, missing))}")
        return cls(file, data, names, str(values[side]), side)

    def describe(self) -> str:
        return f"insert {', '.join(self.names)} from {self.payload.name} {self.side} {self.anchor}"

    @property
    def in_class(self) -> bool:
        """The payload goes into a class body (`into:`, or next to a `Class.method`)."""
        return self.side == "into" or "." in self.anchor

    def scope_name(self) -> str:
        return self.anchor

    def touches(self) -> tuple[Touch, ...]:
        """The anchor: its side of the top-level definition (or into the class) it inserts at; at
        module level, also the names it binds there (`names`: an `add_import` of one meets it)."""
        names = () if self.in_class else tuple(self.names)
        return (Touch("anchor", "<module>", f"definitions {self.side} {self.anchor}", names=names),)

    def may_be_present(self, text: str) -> bool:
        return all(name in text for name in self.names)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return _forward(src, self)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return _inverse(src, self)


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
        text = src.text_of(_comments_above(src, i), top.end)
        if kind in ("def", "constant"):
            items[bound_names(node)[0]] = (text if text.endswith("\n") else text + "\n", ast.dump(node))
        elif kind in found:
            found[kind].append(ast.unparse(node))
    return Payload(items, tuple(found["import"]), tuple(found["future"]))


# PEP 263's coding declaration: the payload's own, never carried into the module (where on its
# first two lines it would re-declare the module's encoding)
_COOKIE = re.compile(r"[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


def _header_end(src: Source) -> int:
    """The payload's lines before its first statement that are its file's own header: a `#!` line
    and a coding declaration (on line 1 or 2)."""
    end = 0
    for n, line in enumerate(src.lines[:2]):
        if _COOKIE.match(line) or n == 0 and line.startswith("#!"):
            end = n + 1
    return end


def _comments_above(src: Source, i: int) -> int:
    """The first of the comment lines right above top-level statement i (its own: they go with
    it), not the payload file's header (#!, coding declaration)."""
    start, floor = src.tops[i].start, src.tops[i - 1].end if i else _header_end(src)
    while start > floor and src.lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return start


def _forward(src: Source, op: InsertDefinitions) -> Source:
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


def _inverse(src: Source, op: InsertDefinitions) -> Source:
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
