"""Module-level lines: add_import (and a payload's imports) and new constants, placed after the
module's imports (after_imports), moved above a first use at import time when the entry needs it
(imports_before_uses), and removed again by their mark.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import replace

import libcst as cst

from radpatch.rewrite.matching import (
    Clash,
    NotUndoable,
)
from radpatch.rewrite.source import Source, Top
from radpatch.rewrite.top_bindings import bindings, bound_names

Edit = Callable[[cst.Module, int], cst.CSTNode]


# --- module-level lines: add_import (and a payload's imports) and new constants -----------------
# An added import ends with `# radpatch: added import`, so the inverse removes exactly the line
# radpatch added and never an import the module had of its own. A second add_import of the same
# statement (another entry's, applied on top) holds the same line: the mark counts the rewrites
# holding it (`# radpatch: added import (by 2 rewrites)`), each inverse takes one off, and the last
# removes the line; so either entry comes off, in any order, leaving the other's import in place.

MARK = "# radpatch: added import"
_HELD = re.compile(r"# radpatch: added import(?: \(by (\d+) rewrites\))?$")


def holders(line: str) -> int:
    """How many rewrites hold a line radpatch added (0: not a line radpatch added)."""
    found = _HELD.search(line.rstrip("\r\n"))
    return 0 if found is None else int(found.group(1) or 1)


def _unheld(line: str) -> str:
    """An added line as one holder writes it, stripped (the same line whoever else holds it)."""
    return _held(line, 1).strip()


def _held(line: str, n: int) -> str:
    """`line` with its mark saying `n` holders (n >= 1), its line ending kept."""
    body = line.rstrip("\r\n")
    found = _HELD.search(body)
    assert found is not None
    return body[: found.start()] + MARK + (f" (by {n} rewrites)" if n > 1 else "") + line[len(body) :]


def after_imports(src: Source, limit: int | None = None) -> int:
    """Index into src.tops after which module-level additions go: after the last import that comes
    before the first def/class (else after the docstring and `from __future__` imports); with
    `limit`, only the statements before tops[limit] count."""
    at = 0
    for i, t in enumerate(src.tops[:limit]):
        if t.name is not None:
            break
        node = src.readable(i)
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (i == 0 and node is not None and _is_docstring(node)):
            at = i + 1
    return at


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def insert_line(src: Source, at: int, line: str, top: Top) -> Source:
    """Insert one statement line after tops[at - 1] (and the statements sharing its line); at 0:
    at the top of the file, below its shebang, encoding declaration and comment header."""
    nl = src.newline
    if at:
        at = src.line_end(at - 1)
    start = src.tops[at - 1].end if at else src.head()
    if start == len(src.lines) and src.lines and not src.lines[-1].endswith(("\n", "\r")):
        return Source.parse(src.text + nl + line)
    return src.splice_lines(start, start, at, at, line + nl, (Top(top.name, 0, 1, top.binds),))


def _aliases(node: ast.stmt) -> set[tuple[str | None, int, str, str | None]]:
    if isinstance(node, ast.Import):
        return {(None, 0, a.name, a.asname) for a in node.names}
    if isinstance(node, ast.ImportFrom):
        return {(node.module, node.level, a.name, a.asname) for a in node.names}
    return set()


def _module_imports(src: Source) -> list[tuple[int, ast.stmt]]:
    found = [(i, src.readable(i)) for i, t in enumerate(src.tops) if t.name is None and t.binds]
    return [(i, node) for i, node in found if node is not None]


def has_import(src: Source, statement: str, own: bool = False) -> bool:
    """Whether the module already imports every name of `statement` the same way, at top level
    (`own`: by imports of its own, not lines radpatch added)."""
    want = _aliases(ast.parse(statement.strip()).body[0])
    have: set[tuple[str | None, int, str, str | None]] = set()
    for i, node in _module_imports(src):
        if not own or not holders(src.lines[src.tops[i].end - 1]):
            have |= _aliases(node)
    return want <= have


def _marked(src: Source, statement: str) -> list[int]:
    """The tops radpatch added that are exactly `statement`."""
    key = ast.dump(ast.parse(statement.strip()).body[0])
    return [i for i, node in _module_imports(src) if ast.dump(node) == key and holders(src.lines[src.tops[i].end - 1])]


def _rehold(src: Source, i: int, n: int) -> Source:
    """Top i (a line radpatch added, alone on its line) with its mark saying `n` holders."""
    t = src.tops[i]
    return src.splice_lines(t.start, t.end, i, i + 1, _held(src.lines[t.start], n), (replace(t, start=0, end=1),))


def _source(node: ast.stmt, name: str) -> str | None:
    """Where an import statement takes `name` from ('os' for `import os.path`), else None."""
    aliases: list[ast.alias] = node.names if isinstance(node, (ast.Import, ast.ImportFrom)) else []
    for a in aliases:
        bound = (a.asname or a.name).split(".")[0]
        if bound == name:
            if isinstance(node, ast.ImportFrom):
                return f"{'.' * node.level}{node.module or ''}:{a.name}"
            return str(a.name if a.asname else a.name.split(".")[0])
    return None


def _clash(src: Source, node: ast.stmt) -> None:
    """Refuse an import that would rebind a name the module binds otherwise (a def, a constant,
    another module's name), wherever the module binds it: at top level or in its blocks (`try:
    import orjson as json`, `if TYPE_CHECKING:`); an import of the same name from the same
    place is no clash."""
    for name in bound_names(node):
        for i, t in enumerate(src.tops):
            if name not in t.binds:
                continue
            have = src.readable(i)
            found: list[tuple[ast.AST | None, int]] = (
                [(b, t.start + getattr(b, "lineno", 1)) for n, b in bindings(have) if n == name] if have else []
            )
            for b, line in found or [(None, t.start + 1)]:
                if not isinstance(b, (ast.Import, ast.ImportFrom)) or _source(b, name) != _source(node, name):
                    raise Clash(
                        f"`{ast.unparse(node)}` would rebind {name!r}, which the module binds at line {line}",
                        "rename it with `as` (e.g. `... import x as _yourpatch_x`) "
                        "so it takes over nothing the module defines",
                    )


def add_import(src: Source, statement: str) -> Source:
    """The import on a line of its own, as ast writes it, with the comment `statement` carries
    (`import json  # for dumps`: a patch's own word on its line) and then the mark."""
    if has_import(src, statement, own=True):
        return src
    marked = _marked(src, statement)
    if len(marked) == 1 and src.tops[marked[0]].end - src.tops[marked[0]].start == 1:
        i = marked[0]  # radpatch added it for another rewrite: this one holds it too
        if src.line_start(i) == i and src.line_end(i) == i + 1:
            return _rehold(src, i, holders(src.lines[src.tops[i].start]) + 1)
    if has_import(src, statement):
        return src
    node = ast.parse(statement.strip()).body[0]
    _clash(src, node)
    line = f"{ast.unparse(node)}{''.join(f'  {c}' for c in _comments(statement))}  {MARK}"
    return insert_line(src, after_imports(src), line, Top(None, 0, 1, bound_names(node)))


def _comments(code: str) -> list[str]:
    """The comments of a line of code, in order (none when it does not tokenize)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code.strip() + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    return [t.string for t in tokens if t.type == tokenize.COMMENT and t.string.strip() != MARK]


def imports_before_uses(original: Source, src: Source) -> Source:
    """`src` (the entry's result on `original`) with each import line radpatch added there moved up
    above the first module-level code that uses a name of it, when that code runs at import time
    above the line after_imports chose (`import os / X = 1 / import sys`, and a later rewrite of the
    same entry makes `X = json.dumps(1)`): after the last import before that code, else at the
    head. Only then: an entry whose result the names proof would not refuse for this very reason
    keeps the placement of after_imports, byte for byte. remove_import finds the line by its mark
    wherever it is, so the inverse is unchanged."""
    have = {_unheld(line) for line in original.lines if holders(line)}
    done: set[str] = set()
    while True:
        moved = _move_one(src, have | done)
        if moved is None:
            return src
        src, line = moved
        done.add(line)


def _move_one(src: Source, skip: set[str]) -> tuple[Source, str] | None:
    """Move the first added import line (not in `skip`) used above itself at import time; None when none is."""
    from radpatch.prove import names

    later: list[names.Problem] | None = None
    for i, t in enumerate(src.tops):
        line = src.lines[t.start] if t.end - t.start == 1 else ""
        if not holders(line) or _unheld(line) in skip or not t.binds:
            continue
        if src.line_start(i) != i or src.line_end(i) != i + 1:
            continue  # not a line of its own: not one radpatch wrote
        above = src.text_of(0, t.start)
        if not any(re.search(rf"\b{re.escape(n)}\b", above) for n in t.binds):
            continue
        if later is None:
            try:
                later = [p for p in names.problems(src.text) if p.kind == names.LATER]
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None  # the proof says why
        uses = [p.line for p in later if p.name in t.binds and p.line <= t.start]
        if not uses:
            continue
        first = min(uses)
        k = next(j for j, u in enumerate(src.tops) if u.end >= first)
        kept = src.splice_lines(t.start, t.end, i, i + 1, "", ())
        return insert_line(kept, after_imports(kept, k), line.rstrip("\r\n"), Top(None, 0, 1, t.binds)), _unheld(line)
    return None


def remove_import(src: Source, statement: str) -> Source:
    """add_import's inverse: one holder less of the line radpatch added (the last removes it); nothing
    when the module imports it of its own (add_import changed nothing then)."""
    if has_import(src, statement, own=True):
        return src
    marked = _marked(src, statement)
    if len(marked) > 1:
        raise NotUndoable(f"`{statement.strip()}` was added {len(marked)} times by radpatch")
    if not marked:
        if has_import(src, statement):
            return src  # the module had it already: the forward edit changed nothing
        raise NotUndoable(f"`{statement.strip()}` is not in the module")
    i = marked[0]
    t = src.tops[i]
    if src.line_end(i) - src.line_start(i) > 1:
        raise NotUndoable(f"`{statement.strip()}` shares its line with other statements; radpatch wrote it alone")
    held = holders(src.lines[t.end - 1])
    if held > 1:
        return _rehold(src, i, held - 1)
    if i == len(src.tops) - 1 and not src.lines[-1].endswith(("\n", "\r")):
        kept = src.text_of(0, t.start)
        return Source.parse(kept[: -len(src.newline)] if kept.endswith(src.newline) else kept)
    return src.splice_lines(t.start, t.end, i, i + 1, "", ())
