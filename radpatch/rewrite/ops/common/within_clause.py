"""`within:`: the enclosing statement a match must lie in, keyed as `ast` reads it (a compound
statement by its header), and whether a node lies in one."""

from __future__ import annotations

import ast
import functools
import textwrap

import libcst as cst

from radpatch.rewrite.matching import MatchFailure, code_of, replace_on_path
from radpatch.rewrite.tree import Path_


@functools.lru_cache(maxsize=256)
def within_key(pattern: str) -> tuple[str, str]:
    """("header", dump) for a compound statement (its header: body, else, handlers cleared), or
    ("stmt", dump) for a simple statement."""
    text = textwrap.dedent(pattern).strip()
    try:
        node = ast.parse(text + "\n    pass" if text.endswith(":") else text).body[0]
    except SyntaxError as exc:
        raise MatchFailure(
            f"`within` is not a statement or a compound statement's header: {exc.msg}",
            "write an enclosing statement, e.g. `for layer in layers:` or `with lock:`",
        ) from None
    return ("header", _header(node)) if hasattr(node, "body") else ("stmt", ast.dump(node))


def _header(node: ast.stmt) -> str:
    blank: dict[str, list[ast.AST]] = {
        f: [] for f in ("body", "orelse", "finalbody", "handlers", "cases") if hasattr(node, f)
    }
    for f, v in blank.items():
        setattr(node, f, v)
    return ast.dump(node)


def is_within(module: cst.Module, path: Path_, pattern: str, undo: cst.CSTNode | None) -> bool:
    """Whether the node at `path` (judged as `undo` where given: the code as it was) lies in a
    statement `within:` names."""
    return _is_within(module, path, pattern, undo)


def _is_within(module: cst.Module, path: Path_, pattern: str, undo: cst.CSTNode | None) -> bool:
    kind, key = within_key(pattern)
    for k in range(len(path) - 2, -1, -1):
        anc = path[k]
        if not isinstance(anc, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            continue
        node = replace_on_path(path[k:], undo) if undo is not None else anc
        try:
            tree = ast.parse(textwrap.dedent(code_of(module, node))).body[0]
        except SyntaxError:
            continue
        if kind == "header" and hasattr(tree, "body") and _header(tree) == key:
            return True
        if kind == "stmt" and not hasattr(tree, "body") and ast.dump(tree) == key:
            return True
    return False
