"""A payload as insert_definitions places it: its items (defs, classes, constants, each with the
comment lines above it, not the file's own `#!`/coding header), imports and `from __future__`
imports; and what both kinds of insert_definitions (module level, into a class) use to place an
item: its own comment lines, the module's bindings of a name, the names an item reads when the
module is imported."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from radpatch.rewrite.source import Source, decode
from radpatch.rewrite.top_bindings import bound_names, payload_statement

if TYPE_CHECKING:
    from radpatch.rewrite.ops.insert_definitions import InsertDefinitions


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


def leading_comments(text: str) -> int:
    """How many comment lines open a payload item's text."""
    lines = Source.parse_lines(text)
    return next((k for k, ln in enumerate(lines) if not ln.lstrip().startswith("#")), len(lines))


def own_lines(src: Source, op: InsertDefinitions, p: Payload, starts: list[int]) -> set[int]:
    """The lines of the payload items' own comments above their statements (0-based starts)."""
    out: set[int] = set()
    for name, start in zip(op.names, starts):
        text = p.items[name][0]
        k = leading_comments(text)
        want = [ln.strip() for ln in Source.parse_lines(text)[:k]]
        if k and start >= k and [ln.strip() for ln in src.lines[start - k : start]] == want:
            out.update(range(start - k, start))
    return out


def binding(src: Source, name: str) -> list[int]:
    return [i for i, t in enumerate(src.tops) if name in t.binds]


def import_time_reads(node: ast.stmt) -> set[str]:
    """Module names a payload item reads when the module is imported: a constant's value, a
    def's or class's decorators (and a class's bases)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        exprs: list[ast.expr] = [*node.decorator_list, *(node.bases if isinstance(node, ast.ClassDef) else [])]
    else:
        exprs = [v for v in (getattr(node, "value", None),) if v is not None]
    return {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)}
