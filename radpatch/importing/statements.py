"""The syntax-tree facts the importer needs about a module: keys, scopes, source text, matches.

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
from collections.abc import Iterator
from dataclasses import dataclass

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
        b, a = tuple(before.splitlines()), tuple(after.splitlines())
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


def one_line_suite(stmt: ast.stmt) -> bool:
    return any(b and b[0].lineno == stmt.lineno for b in blocks_of(stmt)) or any(
        h.body and h.body[0].lineno == h.lineno for h in getattr(stmt, "handlers", [])
    )


def blocks_of(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists right inside a compound statement (not a definition's body)."""
    if isinstance(stmt, DEFS):
        return []
    out: list[list[ast.stmt]] = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(stmt, field, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            out.append(value)
    for h in getattr(stmt, "handlers", []):
        out.append(h.body)
    for case in getattr(stmt, "cases", []):
        out.append(case.body)
    return out


def slots(body: list[ast.stmt]) -> Iterator[tuple[list[ast.stmt], int]]:
    """(block, index) of every statement of a scope's body at any depth, in source order, not
    inside nested definitions: what the rewrites' statement `find` and `occurrence:` walk."""
    for i, stmt in enumerate(body):
        yield body, i
        for inner in blocks_of(stmt):
            yield from slots(inner)


def expressions(body: list[ast.stmt]) -> Iterator[ast.expr]:
    """Every expression in a scope's body in source order, not inside nested definitions."""
    for stmt in body:
        if isinstance(stmt, DEFS):
            continue
        yield from _exprs(stmt)


def _exprs(node: ast.AST) -> Iterator[ast.expr]:
    for field in node._fields:
        value = getattr(node, field, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, DEFS):
                continue
            if isinstance(item, ast.expr):
                yield item
            if isinstance(item, ast.AST):
                yield from _exprs(item)


def scope_body(tree: ast.Module, qualname: str) -> list[ast.stmt] | None:
    """The body of `<module>`, `f`, `Class.method`, `Class.prop.setter`, ..., chosen as the rewrites
    choose among definitions of one name (rewrite.scopes.find_scope), or None when no one
    definition is named."""
    body = tree.body
    if qualname == "<module>":
        return body
    parts = qualname.split(".")
    k = 0
    nested = True  # the module's and a function's defs in if/try/with blocks count; a class's do not
    while k < len(parts):
        part, k = parts[k], k + 1
        hits = _named(body, part, nested, top=k == 1)
        if len(hits) > 1:
            hits = [s for s in hits if not _overload(s)]
        if len(hits) > 1 and k < len(parts) and parts[k] in ACCESSORS:
            hits, k = [s for s in hits if _accessor(s, part) == parts[k]], k + 1
        if len(hits) != 1:
            return None
        body, nested = hits[0].body, not isinstance(hits[0], ast.ClassDef)
    return body


def _named(body: list[ast.stmt], name: str, nested: bool, top: bool) -> list[Def]:
    """The definitions called `name` the rewrites (rewrite.scopes.find_scope) choose among in a
    scope's body: in a module or function, those in its if/try/with/for blocks too (not inside
    nested definitions), except that a module's own top-level ones win; in a class, its own."""
    own = [s for s in body if isinstance(s, DEFS) and s.name == name]
    if not nested or (top and own):
        return own
    inner = (block[i] for block, i in slots(body))
    return [s for s in inner if isinstance(s, DEFS) and s.name == name]


ACCESSORS = ("getter", "setter", "deleter")


def scoped_name(body: list[ast.stmt], d: ast.stmt, kind: str = "class") -> str | None:
    """What names the definition `d` of `body` (a scope of `kind`) in a scope, as the rewrites
    resolve it: its name when it is the only definition of it or the only one not `@overload`
    (in a module or function, counting those in its if/try/with blocks: one defined once inside
    `if TYPE_CHECKING:` or `try:` is reached by name); `prop.setter` (`getter`, `deleter`) for one
    accessor of a property; None when no scope name gives just `d`."""
    assert isinstance(d, DEFS)
    same = _named(body, d.name, kind in ("module", "function"), top=kind == "module")
    if same == [d]:
        return d.name
    live = [s for s in same if not _overload(s)]
    if d not in live:
        return None
    if len(live) == 1:
        return d.name
    kinds = [_accessor(s, d.name) for s in live]
    accessor = _accessor(d, d.name)
    if accessor is None or None in kinds or kinds.count(accessor) != 1:
        return None
    return f"{d.name}.{accessor}"


def _decorator_names(d: ast.stmt) -> list[str]:
    out = []
    for e in getattr(d, "decorator_list", []):
        e = e.func if isinstance(e, ast.Call) else e
        parts = []
        while isinstance(e, ast.Attribute):
            parts.append(e.attr)
            e = e.value
        if isinstance(e, ast.Name):
            out.append(".".join([e.id, *reversed(parts)]))
    return out


def _overload(d: ast.stmt) -> bool:
    return any(n == "overload" or n.endswith(".overload") for n in _decorator_names(d))


def _accessor(d: ast.stmt, name: str) -> str | None:
    for n in _decorator_names(d):
        if n in ("property", "functools.cached_property", "cached_property") or n == f"{name}.getter":
            return "getter"
        if n in (f"{name}.setter", f"{name}.deleter"):
            return n.rsplit(".", 1)[1]
    return None


def statement_hits(body: list[ast.stmt], run: list[ast.stmt]) -> list[tuple[list[ast.stmt], int]]:
    want = [key(s) for s in run]
    kinds = [type(s) for s in run]
    n = len(want)
    # the types first: dumping every statement of a large scope is most of an import's time
    return [
        (block, i)
        for block, i in slots(body)
        if [type(s) for s in block[i : i + n]] == kinds and [key(s) for s in block[i : i + n]] == want
    ]


def expression_hits(body: list[ast.stmt], node: ast.expr) -> list[ast.expr]:
    want = loose_key(node)
    kind = type(node)
    return [e for e in expressions(body) if type(e) is kind and loose_key(e) == want]


def is_expression_statement(run: list[ast.stmt]) -> bool:
    """One expression statement: the rewrites match such a `replace` find as an expression."""
    return len(run) == 1 and isinstance(run[0], ast.Expr)
