"""Source text seen as its top-level statements, so a rewrite parses only what it touches.

libcst needs a quarter of a second per thousand lines, and even `ast` a tenth of a second for
vLLM's largest planning module. A `Source` is parsed with `ast` once; rewrites find their
scope's top-level definition in its index, hand libcst just those lines, and splice the result
back, shifting the index instead of parsing again. Every other byte of the file is left alone.
"""

from __future__ import annotations

import ast
import codecs
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass, replace

from radpatch import source_lines
from radpatch.errors import RefusedError, Undecodable
from radpatch.rewrite.top_bindings import DEFS, bindings, bound_names

_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")  # PEP 263
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) such that text.encode(encoding) == data, per PEP 263."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise Undecodable(str(exc)) from None
    if codecs.lookup(encoding).name == "utf-8" and data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    if text.encode(encoding) != data:
        raise Undecodable(f"does not round-trip through {encoding}")
    return text, encoding


def refuse_lone_cr(text: str, filename: str) -> None:
    """A line ended by a lone carriage return (`\\r`, old Mac OS): Python reads it as a line end, the
    rewrites' line handling does not; refused, naming the line, rather than patched wrong."""
    bare = re.search(r"\r(?!\n)", text)
    if bare:
        line = len(re.split(r"\r\n|\r|\n", text[: bare.start()]))
        raise RefusedError(
            f"{filename} ends line {line} with a lone carriage return (\\r, old Mac OS line endings): "
            "radpatch does not support that line ending",
            "convert the file's line endings to \\n or \\r\\n (Python reads them alike), then apply",
        )


def declared(text: str) -> str:
    """The encoding a module's text declares in its first two lines (PEP 263), UTF-8 without a
    declaration: how a module no file held before (create_module) is written, so its bytes are
    its content file's. Raises Undecodable for an encoding Python does not know."""
    head = "".join(source_lines.split(text, keepends=True)[:2]).encode("utf-8", "surrogateescape")
    try:
        return tokenize.detect_encoding(io.BytesIO(head).readline)[0]
    except SyntaxError as exc:
        raise Undecodable(str(exc)) from None


@dataclass(frozen=True)
class Top:
    """A top-level statement: its name if it is a def/class, and its [start, end) line range."""

    name: str | None
    start: int
    end: int
    binds: tuple[str, ...] = ()  # the module-level names it binds (def, class, import, NAME = ...)


def _span(node: ast.stmt) -> tuple[int, int]:
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    assert node.end_lineno is not None
    return start - 1, node.end_lineno


def index(tree: ast.Module) -> tuple[Top, ...]:
    """One Top per top-level statement. Statements sharing a line (`A = 1; B = 2`) share its
    range: a line is the smallest unit the index splices."""
    spans = [_span(n) for n in tree.body]
    k = 0
    while k < len(spans):
        j = k + 1
        start, end = spans[k]
        while j < len(spans) and spans[j][0] < end:
            end = max(end, spans[j][1])
            j += 1
        spans[k:j] = [(start, end)] * (j - k)
        k = j
    return tuple(
        Top(n.name if isinstance(n, DEFS) else None, *span, bound_names(n)) for n, span in zip(tree.body, spans)
    )


@dataclass(frozen=True)
class Source:
    lines: tuple[str, ...]
    tops: tuple[Top, ...]

    @classmethod
    def parse(cls, text: str) -> Source:
        """Raises SyntaxError when `text` is not Python. A Source is immutable, so the few most
        recent texts are parsed once: planning a patch reads the same file several times (apply,
        the reverse proof, the already-applied check), and each whole-module parse costs as much
        as the rest of a rewrite."""
        return _parsed(text)

    @staticmethod
    def parse_lines(text: str) -> list[str]:
        return _LINE.findall(text)

    @property
    def newline(self) -> str:
        """The file's line ending (that of its first line), for inserted lines."""
        for line in self.lines[:1]:
            if line.endswith("\r\n"):
                return "\r\n"
            if line.endswith("\r"):
                return "\r"
        return "\n"

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def named(self, name: str) -> list[int]:
        """Indexes (into tops) of the top-level definitions called `name`."""
        return [i for i, t in enumerate(self.tops) if t.name == name]

    def names(self) -> list[str]:
        return [t.name for t in self.tops if t.name]

    def text_of(self, start: int, end: int) -> str:
        return "".join(self.lines[start:end])

    def node(self, i: int) -> ast.stmt:
        """The ast of top-level statement i, parsed from its own lines (line 1: its first line)."""
        top = self.tops[i]
        k = i - self.line_start(i)  # its place among the statements of its line
        return ast.parse(self.text_of(top.start, top.end)).body[k]

    def readable(self, i: int) -> ast.stmt | None:
        """node(i), or None when the running Python cannot parse it (a newer grammar's statement)."""
        try:
            return self.node(i)
        except SyntaxError:
            return None

    def binding_line(self, i: int, name: str) -> int:
        """The 1-based line where top-level statement i binds `name` (in a block: that line)."""
        node = self.readable(i)
        lines = [getattr(b, "lineno", 1) for n, b in bindings(node) if n == name] if node is not None else []
        return self.tops[i].start + (lines[0] if lines else 1)

    def line_start(self, i: int) -> int:
        """The index of the first top-level statement on top-level statement i's line(s)."""
        while i > 0 and self.tops[i - 1].start == self.tops[i].start:
            i -= 1
        return i

    def line_end(self, i: int) -> int:
        """One past the index of the last top-level statement on top-level statement i's line(s)."""
        while i + 1 < len(self.tops) and self.tops[i + 1].start == self.tops[i].start:
            i += 1
        return i + 1

    def head(self) -> int:
        """The line (0-based) where code inserted at the top of the file goes: below the comments
        and blank lines before the first statement up to the last blank line among them (a comment
        right above the first statement stays with it), or below all of them when no blank line
        parts them (a header); never above a shebang or a PEP 263 encoding declaration, which
        Python reads on lines 1 and 2 only."""
        first = self.tops[0].start if self.tops else len(self.lines)
        blank = [k + 1 for k in range(first) if not self.lines[k].strip()]
        at = blank[-1] if blank else first
        for k, line in enumerate(self.lines[: min(2, first)]):
            if line.startswith("#!") and k == 0 or _CODING.match(line):
                at = max(at, k + 1)
        return at

    def splice(self, first: int, last: int, new_text: str, new_tops: tuple[Top, ...]) -> Source:
        """Replace tops[first:last] (their lines) by `new_text`, whose own statements are
        `new_tops` with line numbers relative to `new_text`. An empty range inserts before
        tops[first] when first < len(tops), else at the end of the file."""
        start = self.tops[first].start if first < len(self.tops) else len(self.lines)
        end = self.tops[last - 1].end if last > first else start
        return self.splice_lines(start, end, first, last, new_text, new_tops)

    def splice_lines(
        self, start: int, end: int, first: int, last: int, new_text: str, new_tops: tuple[Top, ...]
    ) -> Source:
        new_lines = tuple(_LINE.findall(new_text))
        delta = len(new_lines) - (end - start)
        moved = tuple(replace(t, start=t.start + start, end=t.end + start) for t in new_tops)
        after = tuple(replace(t, start=t.start + delta, end=t.end + delta) for t in self.tops[last:])
        return Source(self.lines[:start] + new_lines + self.lines[end:], self.tops[:first] + moved + after)


_RECENT: dict[str, Source] = {}  # the few most recently parsed texts, oldest first
_KEEP = 3  # planning needs the original, the patched text and a payload


def _parsed(text: str) -> Source:
    hit = _RECENT.get(text)
    if hit is not None:
        return _keep(text, hit)
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        if "too many nested" in (exc.msg or ""):  # libcst's parser would overflow its stack on it (exit 139)
            raise
        return _keep(text, _newer(text, exc))
    return remember(text, tree)  # RecursionError, MemoryError: the caller's refusal (runner: nested too deeply)


def _newer(text: str, exc: SyntaxError) -> Source:
    """The Source of a module in a grammar newer than the running Python's (a 3.12 `type X = ...`
    read by radpatch on 3.10), indexed from libcst's parser, which reads the newer grammars.
    Rewrites then run on the definitions the running Python can read; `exc` is raised when
    libcst cannot parse the text either."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        raise exc from None
    pos = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines = tuple(_LINE.findall(text))
    tops: list[Top] = []
    for stmt in module.body:
        first = min([pos[stmt].start.line, *(pos[d].start.line for d in getattr(stmt, "decorators", ()))])
        start, end = first - 1, pos[stmt].end.line
        smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt]
        for small in smalls:
            name = stmt.name.value if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else None
            try:
                binds = bound_names(ast.parse(textwrap.dedent(module.code_for_node(small))).body[0])
            except (SyntaxError, IndexError):
                alias = getattr(cst, "TypeAlias", None)
                binds = (name,) if name else (small.name.value,) if alias and isinstance(small, alias) else ()
            tops.append(Top(name, start, end, binds))
    return Source(lines, tuple(tops))


def remember(text: str, tree: ast.Module) -> Source:
    """The Source of `text` from a tree the caller parsed anyway (plan's proofs parse each
    version once and share the tree): Source.parse(text) then answers without parsing again."""
    return _keep(text, Source(tuple(_LINE.findall(text)), index(tree)))


def _keep(text: str, src: Source) -> Source:
    _RECENT.pop(text, None)
    _RECENT[text] = src
    while len(_RECENT) > _KEEP:
        del _RECENT[next(iter(_RECENT))]
    return src
