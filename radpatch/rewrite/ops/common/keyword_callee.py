"""A keyword set_keyword would add to a call that passes it already by position: `g("a")` given
`name="b"` where the module's own `def g(name)` takes `name` first raises TypeError (multiple values
for argument 'name') at run time. Where the callee is the module's own function or class (called by
its module-level name, not bound otherwise in the calling definition) or a method of the class the
call is in (`self.run(...)`), its positional arguments are mapped to its parameters and such a call
is refused, naming the parameter and the line. Where the callee is anything else (an import, a
parameter, an inherited `__init__`, a metaclass's `__call__`) or the call spreads `*args`, what the
positions fill is unknown and the keyword is added as before."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from radpatch.rewrite.matching import MatchFailure, code_of, lines_of
from radpatch.rewrite.ops.common import parse_top
from radpatch.rewrite.source import Source
from radpatch.rewrite.tree import Path_


@dataclass(frozen=True)
class Callee:
    """What a call's positional arguments fill: the parameters a position can fill, in order (a
    bound method's `self` left out), and where the definition is."""

    what: str  # "function `g`", "class `K` (its `__init__`)", "method `C.run`"
    line: int
    positional: tuple[str, ...]


Own = Callable[[str], "Callee | None"]


def _positional(params: cst.Parameters, bound: bool) -> tuple[str, ...]:
    names = tuple(p.name.value for p in (*params.posonly_params, *params.params))
    return names[1:] if bound else names


def _decorators(node: cst.FunctionDef) -> set[str]:
    return {d.decorator.value for d in node.decorators if isinstance(d.decorator, cst.Name)}


def _only_def(body: cst.BaseSuite, name: str) -> cst.FunctionDef | None:
    """The one statement of a class body that binds `name`, if it is a def."""
    if not isinstance(body, cst.IndentedBlock):
        return None
    found = []
    for stmt in body.body:
        try:
            tree = ast.parse(cst.Module([]).code_for_node(stmt))
        except SyntaxError:
            return None
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                found.append(stmt)
            elif isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
                found.append(stmt)
    hit = found[0] if len(found) == 1 else None
    return hit if isinstance(hit, cst.FunctionDef) else None


def module_callees(src: Source) -> Own:
    """The callee a module-level name stands for: the module's one binding of it, a def or a class
    with its own `__init__` (and no metaclass or `__new__` of its own)."""

    def own(name: str) -> Callee | None:
        binding = [i for i, t in enumerate(src.tops) if name in t.binds]
        if len(binding) != 1 or src.tops[binding[0]].name != name:
            return None
        top = src.tops[binding[0]]
        try:
            tree = parse_top(src.text_of(top.start, top.end))
        except cst.ParserSyntaxError:
            return None
        node = next((s for s in tree.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))), None)
        if isinstance(node, cst.FunctionDef):
            return Callee(f"function `{name}`", lines_of(tree, [node], top.start)[0], _positional(node.params, False))
        if not isinstance(node, cst.ClassDef) or node.keywords or _only_def(node.body, "__new__") is not None:
            return None
        init = _only_def(node.body, "__init__")
        if init is None or _decorators(init) & {"staticmethod", "classmethod"}:
            return None
        line = lines_of(tree, [init], top.start)[0]
        return Callee(f"the `__init__` of class `{name}`", line, _positional(init.params, True))

    return own


def _binds(node: cst.CSTNode, module: cst.Module, name: str) -> bool:
    """Whether the definition `node` binds `name` itself (a parameter, an assignment, an import, a
    nested def): a call to `name` in it may not be to the module's own."""
    try:
        tree = ast.parse(code_of(module, node.with_changes(leading_lines=(), decorators=())).strip())
    except SyntaxError:
        return True
    top = tree.body[0]
    for n in ast.walk(top):
        if n is top:
            continue
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, ast.arg) and n.arg == name:
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name:
            return True
        if isinstance(n, ast.Import | ast.ImportFrom) and name in {(a.asname or a.name).split(".")[0] for a in n.names}:
            return True
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return True
    return False


def _callee(module: cst.Module, path: Path_, own: Own, offset: int) -> Callee | None:
    call = path[-1]
    assert isinstance(call, cst.Call)
    func = call.func
    defs = [n for n in path[:-1] if isinstance(n, (cst.FunctionDef, cst.ClassDef))]
    if isinstance(func, cst.Name):
        if any(_binds(d, module, func.value) for d in defs[:1]):
            return None
        return own(func.value)
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
        return None
    # `self.run(...)` in a method of the class nearest the call, whose first parameter is `self`
    at = max((i for i, n in enumerate(path) if isinstance(n, cst.ClassDef)), default=None)
    if at is None or at + 2 >= len(path) or not isinstance(path[at + 2], cst.FunctionDef):
        return None
    cls, method = path[at], path[at + 2]
    assert isinstance(cls, cst.ClassDef) and isinstance(method, cst.FunctionDef)
    first = _positional(method.params, False)[:1]
    if first != ("self",) or _decorators(method) & {"staticmethod", "classmethod"}:
        return None
    target = _only_def(cls.body, func.attr.value)
    if target is None:
        return None
    bound = "staticmethod" not in _decorators(target)
    line = lines_of(module, [target], offset)[0]
    return Callee(f"method `{cls.name.value}.{func.attr.value}`", line, _positional(target.params, bound))


def refuse_passed_by_position(module: cst.Module, path: Path_, keyword: str, own: Own | None, offset: int) -> None:
    """Refuse adding `keyword=` to the call at `path` when a positional argument fills the callee's
    parameter `keyword` already (the callee known: see the module's docstring)."""
    call = path[-1]
    assert isinstance(call, cst.Call)
    if own is None or any(a.star == "*" for a in call.args):
        return  # `*args` fills positions no one can count here
    callee = _callee(module, path, own, offset)
    if callee is None or keyword not in callee.positional:
        return
    i = callee.positional.index(keyword)
    given = [a for a in call.args if a.keyword is None and not a.star]
    if len(given) <= i:
        return
    line = lines_of(module, [call], offset)[0]
    text = code_of(module, call).strip()
    find = f" (`find: {text}`)" if "\n" not in text else ""
    raise MatchFailure(
        f"the call to `{code_of(module, call.func).strip()}` at line {line} passes `{keyword}` already, by position "
        f"(its argument {i + 1}, `{code_of(module, given[i].value).strip()}`): {callee.what} (line {callee.line}) "
        f"takes it as parameter `{keyword}`; adding `{keyword}=` would raise TypeError (multiple values) at run time",
        f"to change the value it passes, `replace` the call{find} with the call as it should read",
    )
