"""The syntax-tree facts the importer needs about a module: keys, source text, comments (walking a
scope as the rewrites do is importing.scope_walk's).

Why its own: the importer must predict how radpatch's rewrites will match a `find` (a run of
statements at any depth of its scope but not inside nested definitions, or an expression that
`ast` sees as one) so that every `find` it writes matches exactly the code it means. It works on
`ast` trees only, and reaches the rewrites through the registry text it writes, never its modules.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass

from radpatch import source_lines

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_CTX = re.compile(r", ctx=(Load|Store|Del)\(\)|ctx=(Load|Store|Del)\(\), |ctx=(Load|Store|Del)\(\)")
AFTER = "_radpatch_after"  # attribute set on nodes taken from the after-file (their text is there)


def key(node: ast.AST) -> str:
    return ast.dump(node)


def loose_key(node: ast.AST) -> str:
    """An expression's key without load/store context: the rewrites compare code, not roles."""
    return _CTX.sub("", ast.dump(node))


@dataclass(frozen=True)
class Sources:
    before: tuple[str, ...]  # lines of the before-file, without newlines
    after: tuple[str, ...]
    added: frozenset[int] = frozenset()  # 1-based lines of the after-file the patch adds (not context)

    def lines_of(self, node: ast.AST) -> tuple[str, ...]:
        return self.after if getattr(node, AFTER, False) else self.before

    @staticmethod
    def of(before: str, after: str) -> Sources:
        """Both files' lines, and which lines of the after-file are added ones (`+` lines of a diff
        between them): a comment line there is the patch's own, a comment line elsewhere (the
        file's header, a comment above the anchor) is not, and an entry must not write it again."""
        b, a = tuple(source_lines.split(before)), tuple(source_lines.split(after))
        kept: set[int] = set()
        for block in difflib.SequenceMatcher(None, b, a, autojunk=False).get_matching_blocks():
            kept.update(range(block.b + 1, block.b + block.size + 1))
        return Sources(b, a, frozenset(set(range(1, len(a) + 1)) - kept))


def added_comments(src: Sources, node: ast.stmt) -> int:
    """How many lines right above the statement (taken from the after-file) are comment lines at its
    indentation, or blank lines between them, that the patch adds: the comment it wrote for it."""
    if not getattr(node, AFTER, False):
        return 0
    lines, first = src.after, start_line(node)
    indent = len(lines[first - 1]) - len(lines[first - 1].lstrip())
    n = 0
    while first - n > 1 and first - n - 1 in src.added:
        line = lines[first - n - 2]
        if line.strip() and not (line.strip().startswith("#") and len(line) - len(line.lstrip()) == indent):
            break
        n += 1
    while n and not lines[first - n - 1].strip():  # blank lines above the comment are layout, not comment
        n -= 1
    return n


def start_line(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno - 1 for d in decorators)]) if decorators else node.lineno


def text_of(src: Sources, run: list[ast.stmt], comments: bool = False) -> str:
    """The source lines of consecutive statements of one block, dedented (with the comment lines
    the patch adds right above the first when `comments`, so an insertion keeps them; never the
    file's own comments there, such as its header, which the file keeps anyway)."""
    lines = src.lines_of(run[0])
    first = start_line(run[0])
    if comments:
        first -= added_comments(src, run[0])
    last = max(getattr(s, "end_lineno", s.lineno) or s.lineno for s in run)
    text = _dedent(list(lines[first - 1 : last])).strip("\n") + "\n"
    return text if _same(text, run) else "\n".join(ast.unparse(s) for s in run) + "\n"


def _dedent(lines: list[str]) -> str:
    """Lines of code without their common indentation, except the lines inside a multi-line string,
    which keep every byte (they are the string's content: radpatch and libcst leave them alone, so
    the patched file gets them back exactly)."""
    inside = _string_rows(lines)
    code = [ln for i, ln in enumerate(lines) if i not in inside and ln.strip()]
    cut = min((len(ln) - len(ln.lstrip()) for ln in code), default=0)
    return "\n".join(ln if i in inside else ln[cut:] for i, ln in enumerate(lines))


def _string_rows(lines: list[str]) -> set[int]:
    """0-based rows that continue a string token begun on an earlier row."""
    rows: set[int] = set()
    starts: list[int] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            kind = tokenize.tok_name.get(tok.type, "")
            if kind == "STRING":
                rows.update(range(tok.start[0], tok.end[0]))
            elif kind == "FSTRING_START":
                starts.append(tok.start[0])
            elif kind == "FSTRING_END" and starts:
                rows.update(range(starts.pop(), tok.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set()
    return rows


def _same(text: str, run: list[ast.stmt]) -> bool:
    """Whether `text`, dedented as radpatch reads code, is still these statements: dedenting a
    multi-line string whose lines are indented with the code changes the string."""
    try:
        got = ast.parse(textwrap.dedent(text)).body
    except SyntaxError:
        return False
    return [key(s) for s in got] == [key(s) for s in run]


def segment(src: Sources, node: ast.AST) -> str | None:
    """The expression's source text, or its unparsed form where the text would not read back as
    the same expression once dedented (a multi-line string indented with the code)."""
    text = _source_segment(src.lines_of(node), node)
    if text is None:
        return None
    text = _relative(src.lines_of(node), node, text)
    try:
        same = key(ast.parse(f"(\n{textwrap.dedent(text).strip()}\n)", mode="eval").body) == key(node)
    except SyntaxError:
        same = False
    return text if same else ast.unparse(node)


def _relative(lines: tuple[str, ...], node: ast.AST, text: str) -> str:
    """A multi-line expression's continuation lines without the indentation of the line it starts
    on (the rewrites write `with` at the site's own indentation, as GNU patch keeps it); rows that
    continue a string keep every byte. As is where a row is indented less than that line."""
    rows = text.split("\n")
    if len(rows) == 1:
        return text
    start = lines[getattr(node, "lineno", 1) - 1]
    indent = start[: len(start) - len(start.lstrip())]
    inside = _string_rows(rows)
    out = [rows[0]]
    for i, row in enumerate(rows[1:], 1):
        if i in inside or not row.strip():
            out.append(row)
        elif row.startswith(indent):
            out.append(row[len(indent) :])
        else:
            return text
    return "\n".join(out)


def indented(text: str, indent: str) -> str:
    """`_relative`'s text back at the indentation `indent` of the line it starts on."""
    rows = text.split("\n")
    inside = _string_rows(rows)
    return "\n".join(r if i == 0 or i in inside or not r.strip() else indent + r for i, r in enumerate(rows))


def _source_segment(lines: tuple[str, ...], node: ast.AST) -> str | None:
    """ast.get_source_segment over lines already split (it splits the whole file on every call)."""
    end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    line, col = getattr(node, "lineno", None), getattr(node, "col_offset", None)
    if end_line is None or end_col is None or line is None or col is None:
        return None
    chunk = [ln.encode() for ln in lines[line - 1 : end_line]]
    if not chunk:
        return None
    if len(chunk) == 1:
        return chunk[0][col:end_col].decode("utf-8", "surrogateescape")
    first, last = chunk[0][col:], chunk[-1][:end_col]
    return b"\n".join([first, *chunk[1:-1], last]).decode("utf-8", "surrogateescape")


def whole_lines(src: Sources, stmt: ast.stmt) -> bool:
    """Whether the statement starts and ends its lines (no `;` neighbour, not a one-line suite)."""
    lines = src.lines_of(stmt)
    first = lines[start_line(stmt) - 1]
    col = stmt.col_offset if not getattr(stmt, "decorator_list", None) else len(first) - len(first.lstrip())
    if first[:col].strip():
        return False
    end = lines[(stmt.end_lineno or stmt.lineno) - 1][stmt.end_col_offset or 0 :].strip()
    return not end or end.startswith("#")
