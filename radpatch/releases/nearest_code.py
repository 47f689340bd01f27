"""The nearest candidate of a rewrite that no longer matches a release: the statement (or
expression) of its scope, of the whole module when the scope is gone, most similar to its `find`,
whatever the similarity (the refusal itself shows one only from 75%): a maintainer porting a patch
wants to see what became of the code, even when little of it is left (`verify --all`'s no-match cells)."""

from __future__ import annotations

import ast
import difflib
import textwrap
from dataclasses import dataclass

from radpatch.registry.model import Patch, Rewrite
from radpatch.releases.moved import defines, scopes

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Nearest:
    rewrite: str
    module: str
    line: int
    similarity: float
    code: str

    def describe(self) -> str:
        return f"{self.module}:{self.line} ({self.similarity:.0%} similar): {_one_line(self.code)}"


def nearest(patch: Patch, rewrite_id: str, module: str, source: bytes) -> Nearest | None:
    """The code of `source` most similar to the rewrite's `find` (or its scope's name), in its scope if
    the module still defines it, else anywhere in the module."""
    rw = next((r for r in patch.rewrites if r.id == rewrite_id), None)
    if rw is None:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    pattern = _pattern(rw)
    if pattern is None:
        return None
    want, kind = pattern
    scope = next(iter(scopes((rw,))), None)
    if scope is not None and not defines(source, scope):  # the scope itself is gone: the nearest definition
        want, kind = scope.split(".")[-1], "name"
    root: ast.AST = _scope_node(tree, scope) if scope else tree
    if kind == "name":  # a definition that is gone: the most similar definition name
        texts = [(n.lineno, n.name) for n in ast.walk(tree) if isinstance(n, _DEFS)]
    else:  # like for like: a statement for a statement `find`, an expression for an expression
        node_type: type[ast.expr | ast.stmt] = ast.expr if kind == "expr" else ast.stmt
        texts = [(n.lineno, _unparse(n)) for n in ast.walk(root) if isinstance(n, node_type) and n is not root]
    best: tuple[float, int, str] | None = None
    for line, text in texts:
        if not text or len(text) > 4 * len(want) + 200:
            continue
        sm = difflib.SequenceMatcher(None, want, text)
        if best is not None and sm.real_quick_ratio() <= best[0]:
            continue
        ratio = sm.ratio()
        if best is None or ratio > best[0]:
            best = (ratio, line, text)
    if best is None:
        return None
    return Nearest(rw.id, module, best[1], best[0], best[2])


def _pattern(rw: Rewrite) -> tuple[str, str] | None:
    """What to look for and its kind ("stmt", "expr", "name"): the `find` (normalised), else the
    name of the definition the rewrite needs."""
    find = getattr(rw.op, "find", None)
    if isinstance(find, str):
        try:
            tree = ast.parse(textwrap.dedent(find).strip())
        except SyntaxError:
            return find.strip(), "stmt"
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
            return _unparse(tree.body[0].value), "expr"
        return _unparse(tree), "stmt"
    for attr in ("function", "anchor", "scope"):
        name = getattr(rw.op, attr, None)
        if isinstance(name, str) and name != "<module>":
            return name.split(".")[-1], "name"
    return None


def _scope_node(tree: ast.Module, qualname: str) -> ast.AST:
    node: ast.AST = tree
    for part in qualname.split("."):
        body = getattr(node, "body", [])
        hits = [s for s in body if isinstance(s, _DEFS) and s.name == part]
        if not hits:
            return tree
        node = hits[-1]
    return node


def _unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return ""


def _one_line(code: str) -> str:
    text = " ".join(code.split())
    return text if len(text) <= 100 else text[:97] + "..."
