"""Private names as Python compiles them: inside a class, `__spam` (two leading underscores, not a
dunder) is `_Class__spam` (the class's name without its leading underscores), in every name, attribute,
parameter, import and declaration of the class body and of the functions and lambdas in it, up to a
nested class, which mangles with its own name. Keyword names of calls are not mangled. The names walk
reads the mangled tree, so a method reading a module's `__registry` reads `_C__registry`, which the
module does not define, as Python does (NameError when it runs)."""

from __future__ import annotations

import ast
import re

# a private identifier anywhere in the text: `__x`, `.__x`; not `__x__`
_PRIVATE = re.compile(r"(?<![A-Za-z0-9_])__(?!\w*__(?![A-Za-z0-9_]))\w")


def mangled(tree: ast.Module, source: str | bytes) -> ast.Module:
    """`tree` (parsed from `source`) when no class can mangle a name in it, else a fresh parse of
    `source` with every private name mangled (`tree` itself is shared by other steps and left as is)."""
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    if "class" not in text or not _PRIVATE.search(text):
        return tree
    if not any(isinstance(node, ast.ClassDef) for node in ast.walk(tree)):
        return tree
    fresh = ast.parse(source)
    _Mangler().visit(fresh)
    return fresh


def mangle(name: str, owner: str | None) -> str:
    """`name` as Python stores it inside class `owner` (None: outside every class)."""
    if owner is None or not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = owner.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


class _Mangler(ast.NodeVisitor):
    def __init__(self) -> None:
        self.owner: str | None = None

    def _m(self, name: str) -> str:
        return mangle(name, self.owner)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        written = node.name  # the body mangles with the name as written (`class __D` with `__D`)
        node.name = self._m(written)  # bound where the class statement runs
        for outer in (*node.decorator_list, *node.bases, *node.keywords, *getattr(node, "type_params", ())):
            self.visit(outer)  # evaluated where the class statement runs
        saved, self.owner = self.owner, written
        for statement in node.body:
            self.visit(statement)
        self.owner = saved

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        node.name = self._m(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815 (ast's visitor names)

    def visit_Name(self, node: ast.Name) -> None:
        node.id = self._m(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        node.attr = self._m(node.attr)
        self.visit(node.value)

    def visit_arg(self, node: ast.arg) -> None:
        node.arg = self._m(node.arg)
        if node.annotation is not None:
            self.visit(node.annotation)

    def visit_alias(self, node: ast.alias) -> None:
        node.name = self._m(node.name)
        if node.asname is not None:
            node.asname = self._m(node.asname)

    def visit_Global(self, node: ast.Global) -> None:
        node.names = [self._m(n) for n in node.names]

    visit_Nonlocal = visit_Global  # type: ignore[assignment]  # noqa: N815

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name is not None:
            node.name = self._m(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name is not None:
            node.name = self._m(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name is not None:
            node.name = self._m(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest is not None:
            node.rest = self._m(node.rest)
        self.generic_visit(node)
