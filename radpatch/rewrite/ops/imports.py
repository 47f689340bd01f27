"""add_import (and a payload's imports): one line after the module's imports, unless the module
already imports the same names from the same place (then nothing changes).

An added line ends with `# radpatch: added import`, so the inverse removes exactly the line
radpatch added and never an import the module had of its own.
"""

from __future__ import annotations

import ast

from radpatch.registry.model import AddImport
from radpatch.rewrite.matching import Clash, NotUndoable
from radpatch.rewrite.source import Source, Top, bound_names

MARK = "# radpatch: added import"


def after_imports(src: Source) -> int:
    """Index into src.tops after which module-level additions go: after the last import that comes
    before the first def/class (else after the docstring and `from __future__` imports)."""
    at = 0
    for i, t in enumerate(src.tops):
        if t.name is not None:
            break
        node = src.node(i)
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (i == 0 and _is_docstring(node)):
            at = i + 1
    return at


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def insert_line(src: Source, at: int, line: str, top: Top) -> Source:
    """Insert one statement line after tops[at - 1] (at 0: at the very top)."""
    nl = src.newline
    start = src.tops[at - 1].end if at else 0
    if at and at == len(src.tops) and src.lines and not src.lines[-1].endswith(("\n", "\r")):
        return Source.parse(src.text + nl + line)
    return src.splice_lines(start, start, at, at, line + nl, (Top(top.name, 0, 1, top.binds),))


def _aliases(node: ast.stmt) -> set[tuple[str | None, int, str, str | None]]:
    if isinstance(node, ast.Import):
        return {(None, 0, a.name, a.asname) for a in node.names}
    if isinstance(node, ast.ImportFrom):
        return {(node.module, node.level, a.name, a.asname) for a in node.names}
    return set()


def _module_imports(src: Source) -> list[tuple[int, ast.stmt]]:
    return [(i, src.node(i)) for i, t in enumerate(src.tops) if t.name is None and t.binds]


def has(src: Source, statement: str) -> bool:
    """Whether the module already imports every name of `statement` the same way, at top level."""
    want = _aliases(ast.parse(statement.strip()).body[0])
    have: set[tuple[str | None, int, str, str | None]] = set()
    for _, node in _module_imports(src):
        have |= _aliases(node)
    return want <= have


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
    another module's name)."""
    for name in bound_names(node):
        for i, t in enumerate(src.tops):
            if name in t.binds:
                have = src.node(i)
                if not isinstance(have, (ast.Import, ast.ImportFrom)) or _source(have, name) != _source(node, name):
                    raise Clash(
                        f"`{ast.unparse(node)}` would rebind {name!r}, which the module binds at line {t.start + 1}",
                        "rename it with `as` (e.g. `... import x as _yourpatch_x`) "
                        "so it takes over nothing the module defines",
                    )


def add(src: Source, statement: str) -> Source:
    if has(src, statement):
        return src
    node = ast.parse(statement.strip()).body[0]
    _clash(src, node)
    return insert_line(src, after_imports(src), f"{ast.unparse(node)}  {MARK}", Top(None, 0, 1, bound_names(node)))


def remove(src: Source, statement: str) -> Source:
    key = ast.dump(ast.parse(statement.strip()).body[0])
    marked = [
        i
        for i, node in _module_imports(src)
        if ast.dump(node) == key and src.lines[src.tops[i].end - 1].rstrip("\r\n").endswith(MARK)
    ]
    if len(marked) > 1:
        raise NotUndoable(f"`{statement.strip()}` was added {len(marked)} times by radpatch")
    if not marked:
        if has(src, statement):
            return src  # the module had it already: the forward edit changed nothing
        raise NotUndoable(f"`{statement.strip()}` is not in the module")
    i = marked[0]
    t = src.tops[i]
    if i == len(src.tops) - 1 and not src.lines[-1].endswith(("\n", "\r")):
        kept = src.text_of(0, t.start)
        return Source.parse(kept[: -len(src.newline)] if kept.endswith(src.newline) else kept)
    return src.splice_lines(t.start, t.end, i, i + 1, "", ())


def forward(src: Source, op: AddImport) -> Source:
    return add(src, op.statement)


def inverse(src: Source, op: AddImport) -> Source:
    return remove(src, op.statement)
