"""Does the module's own import of a submodule surely run before a read of it? (`import xml` then a
read of `xml.dom.minidom`: the module's `import xml.dom.minidom` binds it only when it ran first.)

Counted: an import at module level above a module-level read (or anywhere at module level for a
read in a function, which runs when called), and one in the function holding the read, above it;
each on every path there (both branches of an `if`, via flow.Flow), never under a test that is false
at run time (`if TYPE_CHECKING:`, `if False:`: typing_only's guard); a `try` or `with` body runs in
order (`try: import x` / `except ImportError:` imports x where x is there). Not counted: an import
in a loop or an except handler seen from after it (it may be skipped), in another function, or in a def
that a later def of the same name replaces (the read's own def is the one that holds its line).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .flow import Flow
from .scope_bindings import FUNCS
from .typing_only import type_checking, type_checking_names


@dataclass(frozen=True)
class _Context:
    aliases: frozenset[str]  # the module's names for typing.TYPE_CHECKING
    here: str  # the package its relative imports start from ("" when they are not followed)


def absolute(node: ast.ImportFrom, here: str) -> str:
    """The module a `from` import names, its dots resolved against the package `here` ("" for a
    relative import when `here` is "", or one that climbs above it)."""
    if not node.level:
        return node.module or ""
    parts = here.split(".") if here else []
    if not parts or node.level - 1 >= len(parts):
        return ""
    return ".".join([*parts[: len(parts) - (node.level - 1)], *([node.module] if node.module else [])])


def surely_imported(tree: ast.Module, here: str = "") -> frozenset[str]:
    """The modules the module-level statements import on every path when the module runs (not in a
    def, not under `if TYPE_CHECKING:`/`if False:`, both branches of an `if`); `here`: the package
    its relative imports start from (its own name for a package's `__init__`)."""
    flow = Flow()
    _walk(tree.body, flow, None, _Context(type_checking_names(tree), here))
    return frozenset(flow.definite)


def imported_before(tree: ast.Module, line: int, module: str, here: str = "") -> bool:
    """Whether an import of `module` (or a module inside it) surely runs before the read at `line`;
    `here`: the package the module's relative imports start from ("": they are not followed)."""
    ctx = _Context(type_checking_names(tree), here)
    path = _holding(tree.body, line)
    func = next((n for n in reversed(path) if isinstance(n, FUNCS)), None)
    if func is not None:
        everywhere = Flow()
        _walk(tree.body, everywhere, None, ctx)
        if _has(everywhere.definite, module):
            return True
        flow = Flow()
        return _has(_walk(func.body, flow, line, ctx) or set(), module)
    return _has(_walk(tree.body, Flow(), line, ctx) or set(), module)


def _has(modules: set[str], module: str) -> bool:
    return any(m == module or m.startswith(module + ".") for m in modules)


def _holding(body: list[ast.stmt], line: int) -> list[ast.stmt]:
    """The statements (outermost first) whose lines hold `line`."""
    out: list[ast.stmt] = []
    stack = list(body)
    while stack:
        s = stack.pop()
        if s.lineno <= line <= (s.end_lineno or s.lineno):
            out.append(s)
            stack = [x for x in ast.iter_child_nodes(s) if isinstance(x, ast.stmt)]
            stack += [x for h in getattr(s, "handlers", ()) for x in h.body]
            stack += [x for c in getattr(s, "cases", ()) for x in c.body]
    return out


def _never(test: ast.expr, aliases: frozenset[str]) -> bool | None:
    """True when an `if` body never runs, False when its `else` never runs, None otherwise."""
    if isinstance(test, ast.Constant):
        return not test.value
    return type_checking(test, aliases)


def _walk(body: list[ast.stmt], flow: Flow, line: int | None, ctx: _Context) -> set[str] | None:
    """Follow `body`, binding each imported module in `flow`; the modules imported on every path
    before `line` once the statement holding it is reached (None when it is not in `body`)."""
    for s in body:
        holds = line is not None and s.lineno <= line <= (s.end_lineno or s.lineno)
        if isinstance(s, ast.Import):
            dotted = [a.name for a in s.names]
        elif isinstance(s, ast.ImportFrom) and (base := absolute(s, ctx.here)):
            dotted = [base, *(f"{base}.{a.name}" for a in s.names)]
        else:
            dotted = []
        if holds and not isinstance(s, (ast.If, ast.ClassDef)) and not _compound(s):
            return set(flow.definite)
        for d in dotted:
            flow.bind(d, s.lineno)
        if isinstance(s, ast.If):
            never = _never(s.test, ctx.aliases)
            nets = []
            for branch, skipped in ((s.body, never is True), (s.orelse, never is False)):
                if holds and line is not None and any(x.lineno <= line <= (x.end_lineno or x.lineno) for x in branch):
                    return None if skipped else _walk(branch, flow, line, ctx)
                if skipped:
                    continue
                mark = flow.open()
                _walk(branch, flow, None, ctx)
                nets.append(flow.close(mark))
            if holds:
                return set(flow.definite)  # the read is in the test
            flow.join(nets)
        elif isinstance(s, ast.ClassDef):  # a class body runs where it stands
            if holds:
                return _walk(s.body, flow, line, ctx) or set(flow.definite)
            _walk(s.body, flow, None, ctx)
        elif isinstance(s, (ast.With, ast.AsyncWith, ast.Try)) or type(s).__name__ == "TryStar":
            # run in order where nothing above them raises (`try: import x` / `except ImportError:`, x there)
            for part in (getattr(s, "body", []), getattr(s, "orelse", []), getattr(s, "finalbody", [])):
                found = _walk(part, flow, line, ctx)
                if found is not None:
                    return found
            if holds:
                return _parts_walk(s, flow, line, ctx)
        elif holds:  # a loop, match, or an except handler: what runs above the read in the part holding it
            return _parts_walk(s, flow, line, ctx)
    return None


def _parts_walk(s: ast.stmt, flow: Flow, line: int | None, ctx: _Context) -> set[str]:
    """The modules imported on every path before `line`, in the part of `s` holding it."""
    for part in _parts(s):
        if any(x.lineno <= (line or 0) <= (x.end_lineno or x.lineno) for x in part):
            mark = flow.open()
            found = _walk(part, flow, line, ctx)
            flow.close(mark)
            return found or set()
    return set(flow.definite)


def _compound(s: ast.stmt) -> bool:
    return bool(_parts(s)) and not isinstance(s, FUNCS)


def _parts(s: ast.stmt) -> list[list[ast.stmt]]:
    parts = [getattr(s, f, None) or [] for f in ("body", "orelse", "finalbody")]
    parts += [h.body for h in getattr(s, "handlers", ())]
    parts += [c.body for c in getattr(s, "cases", ())]
    return [p for p in parts if p]
