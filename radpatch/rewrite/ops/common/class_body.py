"""insert_definitions into a class: next to one of its methods (`Class.method`), or at the end of its
body (`into`), as whole lines indented to it, located with `ast`. What both kinds of
insert_definitions share to place a payload item is payload_items'."""

from __future__ import annotations

import ast
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from radpatch.rewrite.matching import Ambiguous, Clash, MatchFailure, NearMiss, NotFound, NotUndoable
from radpatch.rewrite.ops.common import near
from radpatch.rewrite.ops.common.class_facts import class_binds, module_definition, special_class
from radpatch.rewrite.ops.common.payload_items import binding, import_time_reads, own_lines
from radpatch.rewrite.source import Source
from radpatch.rewrite.top_bindings import DEFS, bound_names

if TYPE_CHECKING:
    from radpatch.rewrite.ops.common.payload_items import Payload
    from radpatch.rewrite.ops.insert_definitions import InsertDefinitions


@dataclass(frozen=True)
class _Class:
    """A class of the module as ast reads it, its lines relative to its top-level definition."""

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
    at, node = module_definition(src, parts[0], qualname)
    hits = [at]
    for k, part in enumerate(parts[1:], 1):
        inner = [n for n in getattr(node, "body", []) if isinstance(n, DEFS) and n.name == part]
        if len(inner) == 1 and not isinstance(inner[0], ast.ClassDef):
            node = inner[0]
            break
        if len(inner) > 1:
            outer = ".".join(parts[:k])
            if _accessors(inner):
                raise MatchFailure(
                    f"{outer!r} defines {part!r} as a property ({_kinds(src, at, inner)}), not a class",
                    f"a property's accessors are methods, all named `{outer}.{part}`: anchor on another method of "
                    f"{outer!r} with `before:`/`after:`, or use `into: {outer}`",
                )
            raise Ambiguous(
                f"{outer!r} defines {part!r} {len(inner)} times ({_kinds(src, at, inner)}), not one class",
                "name a class nested directly in it, defined once (`Outer.Inner`)",
            )
        if not inner:
            raise NotFound(
                f"{'.'.join(parts[:k])!r} defines no class {part!r}",
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


def _accessors(nodes: Sequence[ast.stmt]) -> bool:
    """The definitions are one property's: the first `@property` (or a cached one), the others its
    `@name.setter`, `.getter`, `.deleter`."""
    decorators = [[ast.unparse(d) for d in getattr(n, "decorator_list", [])] for n in nodes]
    name = getattr(nodes[0], "name", "")
    first = any(d.split(".")[-1] in ("property", "cached_property") for d in decorators[0])
    rest = all(any(d in (f"{name}.setter", f"{name}.getter", f"{name}.deleter") for d in ds) for ds in decorators[1:])
    return first and rest


def _kinds(src: Source, top: int, nodes: Sequence[ast.stmt]) -> str:
    """Each definition of one name, by its line and what it is: `@property`, `@x.setter` (the
    decorator's line), def, class."""
    out = []
    for n in nodes:
        said = [(ast.unparse(d), d.lineno) for d in getattr(n, "decorator_list", [])]
        accessor = [d for d in said if d[0].split(".")[-1] in ("property", "cached_property", "setter", "deleter")]
        what, line = ("class" if isinstance(n, ast.ClassDef) else "def", n.lineno)
        if accessor and what == "def":
            what, line = f"@{accessor[0][0]}", accessor[0][1]
        out.append(f"line {src.tops[top].start + line}: {what}")
    return ", ".join(out)


def _member(src: Source, c: _Class, qualname: str, name: str) -> int:
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
        nodes = [c.node.body[k] for k in named]
        kinds = _kinds(src, c.top, nodes)
        if _accessors(nodes):
            raise Ambiguous(
                f"class {qualname!r} defines the property {name!r} in {len(named)} definitions ({kinds}), "
                "all of them make the one property",
                "anchor on another method of the class, or use `into:` (the end of the class)",
            )
        raise Ambiguous(
            f"class {qualname!r} defines {name!r} {len(named)} times ({kinds}); the class keeps the last one",
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


def _class_scope(src: Source, op: InsertDefinitions) -> tuple[_Class, str, int | None]:
    """(the class, its qualname, the index of the anchor method in its body, or None for `into`)."""
    if op.side == "into":
        return _find_class(src, op.anchor), op.anchor, None
    qualname, name = op.anchor.rsplit(".", 1)
    c = _find_class(src, qualname)
    return c, qualname, _member(src, c, qualname, name)


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


def class_forward(src: Source, op: InsertDefinitions, p: Payload) -> Source:
    c, qualname, k = _class_scope(src, op)
    body = c.node.body
    binds = class_binds(c.node)
    for name in op.names:
        if name in binds or "*" in binds:
            line = binds.get(name, binds.get("*", 0))
            raise Clash(
                f"class {qualname!r} already binds {name!r} (line {_abs(src, c, line) + 1}"
                f"{'' if name in binds else ', a __slots__ radpatch cannot read'}); "
                f"the payload's {name!r} would shadow it",
                "rename it in the payload (e.g. a `_yourpatch_` prefix), or replace the class's own definition",
            )
        why = special_class(c.node, qualname, name, ast.parse(p.items[name][0]).body[0])
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
    line = _abs(src, c, _start(c.node)) + 1  # a name its own top-level statement binds from here on is below it
    for k, name in enumerate(op.names):
        reads = import_time_reads(ast.parse(p.items[name][0]).body[0]) - own - above - set(op.names[:k])
        for read in sorted(reads):
            bound = binding(src, read)
            if bound and (min(bound) > c.top or min(bound) == c.top and src.binding_line(c.top, read) >= line):
                raise MatchFailure(
                    f"the payload's {name!r} reads {read!r} when class {qualname!r} is created, and the module binds "
                    f"{read!r} only at line {src.tops[min(bound)].start + 1}, below the class",
                    "read it inside the method instead (at call time), or import it in the payload",
                )


def class_inverse(src: Source, op: InsertDefinitions, p: Payload) -> Source:
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
    own = own_lines(src, op, p, [_abs(src, c, _start(stmt)) for stmt in body[j : j + n]])
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
