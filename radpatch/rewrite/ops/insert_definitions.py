"""insert_definitions: a payload's top-level defs, classes and constants go next to a named
top-level definition of the target, or into a class (next to one of its methods, or at the end of
its body, indented to it), as whole lines located with `ast` (no libcst parse of the target); its
imports go after the target's imports (ops/common.py), unless the target has them.

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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal, cast

from radpatch.registry.model import Fail, Field, Operation, PayloadFile
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import DEFS, Source, Top, bound_names, decode, payload_statement

if TYPE_CHECKING:
    import difflib

    from radpatch.rewrite.matching import Ambiguous, Clash, MatchFailure, NearMiss, NotFound, NotUndoable
    from radpatch.rewrite.ops.common import near
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
        """The anchor: its side of the top-level definition (or into the class) it inserts at."""
        return (Touch("anchor", "<module>", f"definitions {self.side} {self.anchor}"),)

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


def _comments_above(src: Source, i: int) -> int:
    """The first of the comment lines right above top-level statement i (its own: they go with it)."""
    start, floor = src.tops[i].start, src.tops[i - 1].end if i else 0
    while start > floor and src.lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return start


def _lead(text: str) -> int:
    """How many comment lines open a payload item's text."""
    lines = Source.parse_lines(text)
    return next((k for k, ln in enumerate(lines) if not ln.lstrip().startswith("#")), len(lines))


def _own_lines(src: Source, op: InsertDefinitions, p: Payload, starts: list[int]) -> set[int]:
    """The lines of the payload items' own comments above their statements (0-based starts)."""
    out: set[int] = set()
    for name, start in zip(op.names, starts):
        text = p.items[name][0]
        k = _lead(text)
        want = [ln.strip() for ln in Source.parse_lines(text)[:k]]
        if k and start >= k and [ln.strip() for ln in src.lines[start - k : start]] == want:
            out.update(range(start - k, start))
    return out


def _binding(src: Source, name: str) -> list[int]:
    return [i for i, t in enumerate(src.tops) if name in t.binds]


def _forward(src: Source, op: InsertDefinitions) -> Source:
    p = payload(op.payload_source)
    for future in p.futures:
        if not has_import(src, future):
            raise MatchFailure(
                f"the payload {op.payload.name} has `{future}` and the module does not",
                "remove it from the payload (write annotations that work either way) or target a module that has it",
            )
    if op.in_class:
        src = _class_forward(src, op, p)
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
        bound = _binding(src, name)
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
    first = anchor if op.side == "before" else anchor + 1
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
    first = anchor if op.side == "before" else anchor + 1
    if first == len(src.tops) and src.tops and not src.lines[-1].endswith(("\n", "\r")):
        return Source.parse(src.text + nl + "".join(nl + nl + d for d in defs)[: -len(nl)])
    at_top = first == 0
    block, tops = "", []
    for name, text in zip(op.names, defs):
        start = len(Source.parse_lines(block)) + (0 if at_top else 2)
        lead = _lead(text)
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
        return _class_inverse(src, op, p)
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
    at = i + n if op.side == "before" else i - 1
    if not (0 <= at < len(src.tops) and src.tops[at].name == op.anchor):
        raise NotUndoable(f"injected definitions are not {op.side} {op.anchor!r}")
    own = _own_lines(src, op, p, [t.start for t in src.tops[i : i + n]])
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


# --- into a class: next to one of its methods (`Class.method`), or at the end of its body (`into`) ------


@dataclass(frozen=True)
class _Class:
    """A class of the target as ast reads it, its lines relative to its top-level definition."""

    top: int  # index into src.tops of the top-level definition holding it
    node: ast.ClassDef  # line 1 is the first line of that top-level definition
    indent: str  # its body's indentation


def _abs(src: Source, c: _Class, lineno: int) -> int:
    """The 0-based index into src.lines of the class tree's 1-based line `lineno`."""
    return src.tops[c.top].start + lineno - 1


def _start(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _end(node: ast.stmt) -> int:
    assert node.end_lineno is not None
    return node.end_lineno


def _find_class(src: Source, qualname: str) -> _Class:
    parts = qualname.split(".")
    hits = src.named(parts[0])
    if len(hits) != 1:
        if hits:
            raise Ambiguous(
                f"the module defines {parts[0]!r} {len(hits)} times "
                f"(lines {', '.join(str(src.tops[a].start + 1) for a in hits)})"
            )
        close = difflib.get_close_matches(parts[0], src.names(), n=3)
        raise (NearMiss if close else NotFound)(
            f"class {qualname!r} not found in the module; {near(parts[0], src.names())}",
            "fix the class name (a class of the module: `Class`, `Outer.Inner`)" if close else "",
        )
    node = src.node(hits[0])
    for k, part in enumerate(parts[1:], 1):
        inner = [n for n in getattr(node, "body", []) if isinstance(n, DEFS) and n.name == part]
        if len(inner) == 1 and not isinstance(inner[0], ast.ClassDef):
            node = inner[0]
            break
        if len(inner) != 1:
            raise NotFound(
                f"{'.'.join(parts[:k])!r} defines {'no' if not inner else len(inner)} class {part!r}",
                "name a class nested directly in it (`Outer.Inner`)",
            )
        node = inner[0]
    if not isinstance(node, ast.ClassDef):
        raise MatchFailure(
            f"{qualname!r} is a function, not a class",
            "name a class with `into:` (or `Class.method` with `before:`/`after:`); a top-level function goes "
            "`before:`/`after:` without a dot",
        )
    first = node.body[0]
    if first.lineno == node.lineno:
        raise MatchFailure(
            f"class {qualname!r} has its body on its header line (`class X: ...`); radpatch cannot indent into it",
            "write the class's body on lines of its own in the target, or replace the class",
        )
    line = src.lines[src.tops[hits[0]].start + first.lineno - 1]
    return _Class(hits[0], node, line[: len(line) - len(line.lstrip(" \t"))])


def _class_binds(node: ast.ClassDef) -> dict[str, int]:
    """The names the class body binds (methods, nested classes, attributes, the names its
    `__slots__` lists: a class attribute of such a name makes creating the class fail), with
    their first line. A `__slots__` radpatch cannot read binds every name ("*")."""
    out: dict[str, int] = {}
    for stmt in node.body:
        for name in bound_names(stmt):
            out.setdefault(name, stmt.lineno)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and "__slots__" in bound_names(stmt):
            value = stmt.value
            items = value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else [value]
            for item in items:
                readable = isinstance(item, ast.Constant) and isinstance(item.value, str)
                out.setdefault(item.value if readable else "*", stmt.lineno)  # type: ignore[union-attr]
    return out


_ENUMS = ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag")


def _special_class(node: ast.ClassDef, qualname: str, name: str, item: ast.stmt) -> str | None:
    """Why a payload constant cannot go into this class as a plain attribute: an annotated one
    becomes a field of a dataclass/NamedTuple/TypedDict/pydantic model (any decorated class or
    class with bases may be one), a plain one a member of an Enum."""
    bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
    decorators = [ast.unparse(d) for d in node.decorator_list]
    made_by = ", ".join([*(f"@{d}" for d in decorators), *(f"base {b}" for b in bases if b != "object")])
    if isinstance(item, ast.AnnAssign) and made_by:
        return (
            f"the payload's {name!r} is annotated, and class {qualname!r} ({made_by}) may make an annotated "
            f"attribute a field (dataclass, NamedTuple, TypedDict, pydantic)"
        )
    if isinstance(item, ast.Assign) and any(b.split(".")[-1].split("[")[0] in _ENUMS for b in bases):
        return f"class {qualname!r} is an enum ({made_by}): the payload's {name!r} would become a member"
    return None


def _member(c: _Class, qualname: str, name: str) -> int:
    """Index into the class body of its def or class `name`."""
    defs = [
        (k, n.name)
        for k, n in enumerate(c.node.body)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    named = [k for k, n in defs if n == name]
    if len(named) == 1:
        return named[0]
    if named:
        raise Ambiguous(
            f"class {qualname!r} defines {name!r} {len(named)} times; the later one is the one that runs",
            "anchor on another method of the class, or use `into:` (the end of the class)",
        )
    names = [n for _, n in defs]
    close = difflib.get_close_matches(name, names, n=3)
    raise (NearMiss if close else NotFound)(
        f"class {qualname!r} defines no method {name!r}; {near(name, names)}",
        "fix the method name in `before:`/`after:` (`Class.method`), or use `into: Class` (the end of the class)"
        if close
        else "",
    )


def _class_target(src: Source, op: InsertDefinitions) -> tuple[_Class, str, int | None]:
    """(the class, its qualname, the index of the anchor method in its body, or None for `into`)."""
    if op.side == "into":
        return _find_class(src, op.anchor), op.anchor, None
    qualname, name = op.anchor.rsplit(".", 1)
    c = _find_class(src, qualname)
    return c, qualname, _member(c, qualname, name)


def _indented(text: str, indent: str, nl: str) -> str:
    """`text` indented into a class body, except the lines that begin inside a multi-line string
    (indenting them would change the string's value, and the inverse would not find the payload)."""
    lines = Source.parse_lines(text)
    inside = {
        k
        for n in ast.walk(ast.parse(text))
        if isinstance(n, (ast.Constant, ast.JoinedStr)) and n.end_lineno is not None
        for k in range(n.lineno, n.end_lineno)  # 0-based: the lines after the string's first
    }
    return "".join(indent + ln if ln.strip() and k not in inside else ln for k, ln in enumerate(lines)).replace(
        "\n", nl
    )


def _class_forward(src: Source, op: InsertDefinitions, p: Payload) -> Source:
    c, qualname, k = _class_target(src, op)
    body = c.node.body
    binds = _class_binds(c.node)
    for name in op.names:
        if name in binds or "*" in binds:
            line = binds.get(name, binds.get("*", 0))
            raise Clash(
                f"class {qualname!r} already binds {name!r} (line {_abs(src, c, line) + 1}"
                f"{'' if name in binds else ', a __slots__ radpatch cannot read'}); "
                f"the payload's {name!r} would shadow it",
                "rename it in the payload (e.g. a `_yourpatch_` prefix), or replace the class's own definition",
            )
        why = _special_class(c.node, qualname, name, ast.parse(p.items[name][0]).body[0])
        if why is not None:
            raise MatchFailure(
                why,
                "write it as a method, or set the attribute after the class with a module-level statement "
                "(an insert_after of the class)",
            )
    _class_reads_defined(src, op, p, c, qualname, body[: len(body) if k is None else k + (op.side == "after")])
    nl = src.newline
    items = [_indented(p.items[name][0], c.indent, nl) for name in op.names]
    if k is not None and op.side == "before" and k == 0:
        at, block = _abs(src, c, _start(body[0])), "".join(item + nl for item in items)
    else:
        last = body[-1] if k is None else body[k - 1 if op.side == "before" else k]
        at, block = _abs(src, c, _end(last)) + 1, "".join(nl + item for item in items)
    if at == len(src.lines) and not src.lines[-1].endswith(("\n", "\r")):
        return Source.parse(src.text + nl + block[: -len(nl)])  # the file keeps having no final newline
    top = src.tops[c.top]
    text = src.text_of(top.start, at) + block + src.text_of(at, top.end)
    return src.splice_lines(
        top.start,
        top.end,
        c.top,
        c.top + 1,
        text,
        (replace(top, start=0, end=top.end - top.start + len(Source.parse_lines(block))),),
    )


def _class_reads_defined(
    src: Source, op: InsertDefinitions, p: Payload, c: _Class, qualname: str, before: list[ast.stmt]
) -> None:
    """Refuse a payload item that reads, when the class is created (a decorator, a base, an
    attribute's value), a name neither the class body binds above it nor the module binds above
    the class (creating the class would raise NameError)."""
    own = {name for statement in p.imports for name in bound_names(ast.parse(statement).body[0])}
    above = {name for stmt in before for name in bound_names(stmt)}
    for k, name in enumerate(op.names):
        reads = _import_time_reads(ast.parse(p.items[name][0]).body[0]) - own - above - set(op.names[:k])
        for read in sorted(reads):
            bound = _binding(src, read)
            if bound and min(bound) >= c.top:
                raise MatchFailure(
                    f"the payload's {name!r} reads {read!r} when class {qualname!r} is created, and the module binds "
                    f"{read!r} only at line {src.tops[min(bound)].start + 1}, below the class",
                    "read it inside the method instead (at call time), or import it in the payload",
                )


def _class_inverse(src: Source, op: InsertDefinitions, p: Payload) -> Source:
    c = _find_class(src, op.anchor if op.side == "into" else op.anchor.rsplit(".", 1)[0])
    body = c.node.body
    side = f"class {op.anchor if op.side == 'into' else op.anchor.rsplit('.', 1)[0]!r}"
    first = [k for k, stmt in enumerate(body) if op.names[0] in bound_names(stmt)]
    if len(first) != 1:
        raise NotUndoable(f"injected definition {op.names[0]!r} is {'not' if not first else 'several times'} in {side}")
    j, n = first[0], len(op.names)
    got = [ast.dump(stmt) for stmt in body[j : j + n]]
    wanted = [p.items[name][1] for name in op.names]
    if got != wanted:
        differ = [name for name, g, w in zip(op.names, [*got, *[""] * n], wanted) if g != w]
        raise NotUndoable(
            f"injected definitions in {side} differ from the payload {op.payload.name}: {', '.join(differ)}"
        )
    member = op.anchor.rsplit(".", 1)[-1]

    def is_anchor(k: int) -> bool:
        return 0 <= k < len(body) and getattr(body[k], "name", None) == member

    placed = {"into": j + n == len(body), "after": is_anchor(j - 1), "before": is_anchor(j + n)}[op.side]
    if not placed or j == 0 and op.side != "before":
        raise NotUndoable(f"injected definitions are not {op.side} {op.anchor!r}")
    own = _own_lines(src, op, p, [_abs(src, c, _start(stmt)) for stmt in body[j : j + n]])
    if j == 0:  # from the first one's own comment lines
        start, end = min([_abs(src, c, _start(body[0])), *own]), _abs(src, c, _start(body[n]))
    else:
        start, end = _abs(src, c, _end(body[j - 1])) + 1, _abs(src, c, _end(body[j + n - 1])) + 1
    inside = {
        line for stmt in body[j : j + n] for line in range(_abs(src, c, _start(stmt)), _abs(src, c, _end(stmt)) + 1)
    } | own
    stray = [k + 1 for k in range(start, end) if k not in inside and src.lines[k].strip()]
    if stray:
        raise NotUndoable(
            f"lines {stray[:3]} between the injected definitions are not blank; cannot remove them exactly"
        )
    if end == len(src.lines) and not src.lines[-1].endswith(("\n", "\r")):
        kept = src.text_of(0, start)  # the file had no final newline before the definitions came
        return Source.parse(kept[: -len(src.newline)] if kept.endswith(src.newline) else kept)
    top = src.tops[c.top]
    text = src.text_of(top.start, start) + src.text_of(end, top.end)
    return src.splice_lines(
        top.start, top.end, c.top, c.top + 1, text, (replace(top, start=0, end=top.end - top.start - (end - start)),)
    )
