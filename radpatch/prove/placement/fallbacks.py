"""Fallbacks of a guarded import: a `try:` whose body only imports (`try: from fast
import f`) and a handler that catches the import's failure (`except ImportError: def f(...)`, `x =
None`). The handler runs only where the import fails, so code a patch changes there, with the try's
body left alone, runs only on an install that lacks what the body imports. Whether the body's imports
succeed on the target is asked of the target interpreter (prove/guarded_imports), never here.

Anywhere in the module: at module level, in an `if`/`else`, loop or `with` block, and in a def or
class body (`def get(): try: import fast`). Standard library only and relative imports, as the rest
of the placement package.

What the target runs to tell is what the module runs there: a body that reads a name of the module
(`_backend = None` at the top, `try: loads = _backend.loads`) is run after that name's one binding
before the try (`given`), when that binding is an import or a constant the target can run alone; a
name bound otherwise (twice, in a branch, by a call, after a `global`) leaves the question untold
(`untold`), never judged without it. A try that runs while the module is being imported (not in a
def) is asked with the module itself partly imported (`at_import`, `bound_before`): a module its
imports import that imports it back sees what Python shows it then, not a finished module; and
after the module's top-level statements before it (`prefix`), which Python has run by then: a
`sys.path.insert` of a vendored directory, an environment variable set, changes what it imports.
"""

from __future__ import annotations

import ast
import builtins
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

_IMPORTS = (ast.Import, ast.ImportFrom)


@dataclass(frozen=True)
class Fallback:
    """One handler of a guarded import, as the proof compares it between the original and the patch."""

    line: int  # the try's
    handler_line: int
    caught: tuple[str, ...]  # the exception names the handler catches, by their last dotted part; () = bare
    imports: tuple[str, ...]  # the try body's statements (imports, plain bindings of them), as written
    levels: tuple[tuple[int, str | None], ...]  # each from-import's (level, module); (0, None) for the others
    body: str  # ast.dump of the try's body
    handler: str  # ast.dump of the handler's body
    binds: tuple[str, ...]  # the names the handler binds itself (its defs, classes, assignments)
    given: int = 0  # how many of `imports` lead it as the module's own bindings of names the body reads
    untold: str = ""  # why the target cannot be asked (a name the body reads is bound in a way not run alone)
    at_import: bool = False  # the try runs while the module is imported (not in a def)
    bound_before: tuple[str, ...] = ()  # then: the names the module binds before the try
    prefix: str = ""  # then: the module's top-level statements wholly before the try, as Python runs them first

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Fallback:
        d: dict[str, Any] = json.loads(text)
        d["levels"] = [(int(a), b) for a, b in d["levels"]]
        fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
        return cls(**fields)


class _Module:
    """The module-level bindings of one module (outside defs and classes' bodies), by name: read on
    the first guarded import's question only (a module without one costs nothing more)."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.top: set[int] = set()
        self.at: dict[str, list[ast.stmt]] = {}
        self.globals: set[str] = set()  # names some def declares global (it may rebind them any time)
        self.read = False

    def load(self) -> _Module:
        if not self.read:
            self.read = True
            self.top = {id(s) for s in self.tree.body}
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Global):
                    self.globals.update(node.names)
            self._collect(self.tree.body)
        return self

    def _collect(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            for name in _bound_by(s):
                self.at.setdefault(name, []).append(s)
            if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for child in ast.iter_child_nodes(s):
                    if (
                        isinstance(child, (ast.ExceptHandler, ast.excepthandler))
                        or type(child).__name__ == "match_case"
                    ):
                        self._collect(child.body)  # type: ignore[attr-defined]
                for part in ("body", "orelse", "finalbody"):
                    self._collect(getattr(s, part, None) or [])

    def before(self, line: int) -> tuple[str, ...]:
        return tuple(sorted(n for n, at in self.at.items() if any(s.lineno < line for s in at)))


def _bound_by(s: ast.stmt) -> Iterator[str]:
    """The names statement `s` itself binds (not those of the statements it contains)."""
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield s.name
    elif isinstance(s, _IMPORTS):
        yield from (a.asname or a.name.split(".")[0] for a in s.names if a.name != "*")
    else:
        heads: list[ast.AST] = []
        if isinstance(s, ast.Assign):
            heads = list(s.targets)
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            heads = [s.target]
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            heads = [i.optional_vars for i in s.items if i.optional_vars is not None]
        for h in heads:
            yield from (n.id for n in ast.walk(h) if isinstance(n, ast.Name))
        blocks = ("body", "orelse", "finalbody", "handlers", "cases")  # their statements are collected on their own
        for field, value in ast.iter_fields(s):
            for n in ast.walk(value) if field not in blocks and isinstance(value, ast.AST) else ():
                if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                    yield n.target.id


def fallbacks(tree: ast.Module) -> tuple[Fallback, ...]:
    return tuple(_walk(tree.body, _Module(tree), "module"))


def _walk(stmts: list[ast.stmt], module: _Module, scope: str) -> Iterator[Fallback]:
    for s in stmts:
        if isinstance(s, (ast.If, ast.For, ast.AsyncFor, ast.While)):
            yield from _walk(s.body, module, scope)
            yield from _walk(s.orelse, module, scope)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            yield from _walk(s.body, module, scope)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _walk(s.body, module, "def")  # a def's guarded import (`def get(): try: import fast`) too
        elif isinstance(s, ast.ClassDef):
            yield from _walk(s.body, module, "def" if scope == "def" else "class")
        elif type(s).__name__ == "Match":  # a case's (3.10+; served to older targets by name, not ast.Match)
            for case in s.cases:  # type: ignore[attr-defined]
                yield from _walk(case.body, module, scope)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            yield from _guarded(s, module, scope)  # type: ignore[arg-type]
            for part in (s.body, s.orelse, s.finalbody):  # type: ignore[attr-defined]
                yield from _walk(part, module, scope)
            for h in s.handlers:  # type: ignore[attr-defined]
                yield from _walk(h.body, module, scope)


def _guarded(t: ast.Try, module: _Module, scope: str) -> Iterator[Fallback]:
    body = [s for s in t.body if not _inert(s)]
    if not body or not isinstance(body[0], _IMPORTS) or not all(_guarded_statement(s) for s in body):
        return  # other code in the body may raise what the handler catches for other reasons
    module = module.load()
    given, untold = _given(body, t.lineno, module, scope)
    run = [*given, *body]
    imports = tuple(ast.unparse(s) for s in run)
    levels = tuple((s.level, s.module) if isinstance(s, ast.ImportFrom) else (0, None) for s in run)
    at_import = scope != "def"
    for h in t.handlers:
        yield Fallback(
            t.lineno,
            h.lineno,
            _caught(h),
            imports,
            levels,
            ast.dump(ast.Module(body=t.body, type_ignores=[])),
            ast.dump(ast.Module(body=h.body, type_ignores=[])),
            tuple(_binds(h.body)),
            len(given),
            untold,
            at_import,
            module.before(t.lineno) if at_import else (),
            _prefix(module.tree, t.lineno) if at_import else "",
        )


def _prefix(tree: ast.Module, line: int) -> str:
    """The module's top-level statements that end before `line`: what Python has run when the try
    runs (a `sys.path.insert`, an environment variable set, an import with its side effects)."""
    return ast.unparse(ast.Module(body=[s for s in tree.body if (s.end_lineno or s.lineno) < line], type_ignores=[]))


def _given(body: list[ast.stmt], line: int, module: _Module, scope: str) -> tuple[list[ast.stmt], str]:
    """The module's own bindings the body reads, to run before it (in the module's order), or why
    they cannot be run alone. A name the module never binds before the try is left to the target
    (a builtin, or a NameError there as here)."""
    bound: set[str] = set()
    given: list[ast.stmt] = []
    for s in body:
        for n in ast.walk(s):
            if not isinstance(n, ast.Name) or not isinstance(n.ctx, ast.Load) or n.id in bound:
                continue
            at = module.at.get(n.id, [])
            earlier = [b for b in at if b.lineno < line]
            if scope == "module" and not earlier and n.id not in module.globals:
                continue  # not bound yet when the try runs: a builtin, or the NameError the module raises too
            if scope == "module" and len(at) == len(earlier) == 1 and n.id not in module.globals:
                b = earlier[0]
                if id(b) in module.top and _runs_alone(b):
                    if b not in given:
                        given.append(b)
                    continue
            if scope != "module" and not at and n.id not in module.globals and hasattr(builtins, n.id):
                continue
            reads = f"the try's body reads `{n.id}`"
            if scope == "module":
                return [], f"{reads}, which the module binds in a way radpatch does not run alone"
            kind = "function" if scope == "def" else "class body"
            if at or n.id in module.globals:
                return [], f"{reads}, a name of the module, from within a {kind}: radpatch does not run it alone"
            return [], f"{reads}, which the {kind} binds (or nothing does): radpatch does not run it alone"
        bound.update(_bound_by(s))
    return sorted(given, key=lambda b: b.lineno), ""


def _runs_alone(s: ast.stmt) -> bool:
    """An import, or a name bound to a constant (`_backend = None`, `NAMES = ("a", "b")`)."""
    if isinstance(s, _IMPORTS):
        return True
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        literal = (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Load, ast.UnaryOp, ast.USub)
        return all(isinstance(n, literal) for n in ast.walk(s.value))
    return False


def _guarded_statement(s: ast.stmt) -> bool:
    """An import, or a plain binding of what one imports (`f = _fast.f`): the target runs these to tell."""
    if isinstance(s, _IMPORTS):
        return True
    if isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets):
        return all(isinstance(n, (ast.Name, ast.Attribute, ast.Load, ast.Constant)) for n in ast.walk(s.value))
    return False


def _inert(s: ast.stmt) -> bool:
    return isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))


def _caught(h: ast.ExceptHandler) -> tuple[str, ...]:
    if h.type is None:
        return ()
    names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    return tuple(n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else "?" for n in names)


def _binds(stmts: list[ast.stmt]) -> Iterator[str]:
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield s.name
        elif isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            yield from (t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(s, _IMPORTS):
            yield from (a.asname or a.name.split(".")[0] for a in s.names if a.name != "*")


def changed_fallbacks(before: tuple[Fallback, ...], after: tuple[Fallback, ...]) -> list[Fallback]:
    """The handlers of `after` the patch changed while leaving their try's imports as they were: a
    handler whose try body `before` has, but not with this handler's code. A new guarded import (its
    try body not in `before`) is the patch's own choice of both, and not counted."""
    had: dict[tuple[str, str], int] = {}
    bodies = {f.body for f in before}
    for f in before:
        had[f.body, f.handler] = had.get((f.body, f.handler), 0) + 1
    out = []
    for f in after:
        if had.get((f.body, f.handler), 0):
            had[f.body, f.handler] -= 1
        elif f.body in bodies:
            out.append(f)
    return out
