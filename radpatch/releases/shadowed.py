"""Whether the definition a rewrite changes is the one that runs (issue 23, rel39).

A module holding the change's code carries the change only if, once Python has run the module, its
name still stands for that definition: the last binding of the name at module level (and, for a
method, in its class body) as Python executes it. A later definition of the same name, a
re-assignment (`size = len`, `size = wrap(size)`), an import (`from .planning import size`), a
monkeypatch at module end (`Engine.step = fast_step`, `setattr(Engine, "step", ...)`), a store
through `globals()` or a function's `global size`, or a binding in a branch that runs instead
(`try: from .fast import size` / `except ImportError: def size(...)`) means the definition may not
be what runs: "cannot tell", so not carried (verify: not obsolete), and a definition the module
now imports from elsewhere is where the scope went (verify: moved).

The definition the change is in is the one radpatch's rewrites and radpatch.releases.carried read:
the first of the name directly in the module (or class) body, else the one in a module-level
block. Read with `ast` only, nothing imported.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from dataclasses import dataclass

from radpatch import source_lines
from radpatch.prove.refusal import Cause, Refusal
from radpatch.releases import imported_from
from radpatch.releases.namespace_stores import (
    _attribute_stores,
    _module_stores,
)
from radpatch.releases.proof_job import File

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


@dataclass(frozen=True)
class Later:
    """A binding of the scope's name that may run instead of the definition the change is in."""

    name: str  # the scope part bound again: `size`, or `Engine.step`
    line: int  # where the binding is
    defined: int  # the line of the definition the change is in
    text: str  # the binding statement's first line
    imported: str | None = None  # the module a `from X import name` (or `name = X.name`) reads it from (absolute)
    assigned: bool = False  # read by an assignment `name = X.name` (X: a module the file imports), not an import

    def moved_in(self, module: str) -> bool:
        """The name is now imported from another module of `module`'s own top-level package: the code went there."""
        return self.imported is not None and self.imported.split(".")[0] == module.split(".")[0]

    def describe(self) -> str:
        return (
            f"{self.name} is bound again at line {self.line} (`{self.text}`) after its definition at line "
            f"{self.defined}, which holds the change: that binding is what runs"
        )


def of(f: File, data: bytes) -> Later | None:
    """`later` for the first scope of `f`'s rewrites whose definition may not be what runs in `data`."""
    package = f.relpath.endswith("/__init__.py")
    for q in dict.fromkeys(rw.op.scope_name() for rw in f.rewrites):
        if q != "<module>" and (found := later(data, q, f.module, package)) is not None:
            return found
    return None


def moved(entry: str, f: File, later: Later) -> Refusal:
    """verify's refusal of `f` where its module imports the scope's name from another module of its
    package after defining it (`later.moved_in`): the code that runs lives there (a `match` failure
    whose cause is SCOPE_GONE: radpatch.releases.moved finds it, the matrix says moved, port adds it)."""
    rw = next((r for r in f.rewrites if r.op.scope_name().split(".")[0] == later.name.split(".")[0]), f.rewrites[0])
    how = f"bound by an assignment in {f.module}, line" if later.assigned else f"imported by {f.module} at line"
    why = (
        f"moved: {later.name} now lives in {later.imported} ({how} {later.line}); "
        f"the definition at line {later.defined} of {f.relpath} does not run"
    )
    hint = f"`radpatch port {entry} --to VERSION` adds {later.imported} for the release"
    return Refusal("match", why, hint, rw.id, cause=Cause.SCOPE_GONE, file=f.file)


@functools.lru_cache(maxsize=64)
def later(source: bytes, qualname: str, module: str = "", package: bool = False) -> Later | None:
    """The first binding of `qualname`'s name (or of a class holding it) that may run instead of the
    definition the change is in; None when that definition is what runs, or the module does not
    parse or define it (the other checks decide then). `module`: the file's dotted name, to make a
    relative import absolute (`package`: it is a package's `__init__`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = source_lines.split(source.decode("utf-8", "replace"))
    bound = imported_from.modules_bound(tree.body, module, package)
    parts = qualname.split(".")
    container: ast.Module | ast.ClassDef = tree
    owner = ""
    try:
        for part in parts:
            sites = list(_sites(container.body, part, (), module, package, bound if container is tree else {}))
            carrier = _carrier(container.body, sites)
            if carrier is None:
                return None
            name = f"{owner}.{part}" if owner else part
            node, where = carrier
            for site, path, imported in sites:
                if site is not node and not _declaration(site) and _competes(site, path, node, where):
                    # moved only where the binding surely runs: the top level or a `try` body, not a branch
                    # (`if`, a handler, a case) that may not run (att40b #3)
                    sure = all(isinstance(n, ast.Try) and branch == "body" for n, branch, _ in path)
                    imported = imported if sure else None
                    assigned = isinstance(site, ast.Assign | ast.AnnAssign) and imported is not None
                    return Later(name, site.lineno, node.lineno, _text(lines, site.lineno), imported, assigned)
            if container is tree:
                dynamic = _module_stores(tree, part)
            else:  # a class of the module (one nested in another class: its body only)
                dynamic = _attribute_stores(tree, owner, part) if "." not in owner else None
            if dynamic is not None:
                return Later(name, dynamic, node.lineno, _text(lines, dynamic))
            if not isinstance(node, ast.ClassDef):
                return None  # a function's own scope: its nested definitions are bound per call
            container, owner = node, name
    except RecursionError:
        return None
    return None


_Path = tuple[tuple[ast.stmt, str, int], ...]  # the enclosing compound statements: (node, branch, index)


def _sites(
    body: list[ast.stmt], name: str, path: _Path, module: str, package: bool, bound: dict[str, str]
) -> list[tuple[ast.stmt, _Path, str | None]]:
    """Every statement of the block (nested blocks too, not definitions' bodies) that binds `name`,
    with where it sits and, for `from X import name`, X."""
    out: list[tuple[ast.stmt, _Path, str | None]] = []
    for stmt in body:
        binds, imported = _binds(stmt, name, module, package, bound)
        if binds:
            out.append((stmt, path, imported))
        if isinstance(stmt, _DEFS):
            continue
        for branch in _BLOCKS:
            for i, sub in enumerate(getattr(stmt, branch, None) or []):
                inner = getattr(sub, "body", None) if branch in ("handlers", "cases") else None
                if isinstance(sub, ast.ExceptHandler) and sub.name == name:
                    out.append((stmt, path, None))
                if inner is not None:
                    out += _sites(inner, name, (*path, (stmt, branch, i)), module, package, bound)
                elif isinstance(sub, ast.stmt):
                    out += _sites([sub], name, (*path, (stmt, branch, 0)), module, package, bound)
    return out


def _binds(stmt: ast.stmt, name: str, module: str, package: bool, bound: dict[str, str]) -> tuple[bool, str | None]:
    """`stmt` itself (not the blocks it holds) binds `name`; the module it imports it from, if so (an
    import, or an assignment `name = m.name` of a module `m` the file imports: `bound`)."""
    got = imported_from.assigned_from(stmt, bound)
    targets = getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]
    if got is not None and got[1] == name and len(targets) == 1 and isinstance(targets[0], ast.Name):
        if targets[0].id == name:
            return True, got[0]
    if isinstance(stmt, _DEFS):
        return stmt.name == name, None
    if isinstance(stmt, ast.ImportFrom):
        for a in stmt.names:
            if a.name == "*" or (a.asname or a.name) == name:
                return True, None if a.name == "*" else imported_from.absolute(stmt, module, package)
        return False, None
    if isinstance(stmt, ast.Import):
        return any((a.asname or a.name.split(".")[0]) == name for a in stmt.names), None
    if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
        return False, None
    if isinstance(stmt, ast.Global | ast.Nonlocal):
        return False, None
    own = [
        getattr(stmt, f) for f in ("targets", "target", "items", "test", "value", "iter", "subject") if hasattr(stmt, f)
    ]
    for node in _walk_own(own):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store | ast.Del):
            return True, None
        if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name == name:
            return True, None
        if isinstance(node, ast.MatchMapping) and node.rest == name:
            return True, None
    if isinstance(stmt, ast.Match):
        pats = [c.pattern for c in stmt.cases]
        return any(
            (isinstance(n, ast.MatchAs | ast.MatchStar) and n.name == name)
            or (isinstance(n, ast.MatchMapping) and n.rest == name)
            for n in _walk_own(pats)
        ), None
    return False, None


def _walk_own(nodes: Sequence[object]) -> list[ast.AST]:
    """The nodes of `nodes` (values, lists), not inside a lambda's body or a comprehension's own scope
    (a walrus there still binds the module's name: kept)."""
    out: list[ast.AST] = []
    todo: list[object] = list(nodes)
    while todo:
        n = todo.pop()
        if isinstance(n, list):
            todo += n
            continue
        if not isinstance(n, ast.AST):
            continue
        out.append(n)
        if isinstance(n, ast.Lambda):
            continue
        todo += list(ast.iter_child_nodes(n))
    return out


def _carrier(body: list[ast.stmt], sites: list[tuple[ast.stmt, _Path, str | None]]) -> tuple[ast.stmt, _Path] | None:
    """The definition the change is in: the first of the name directly in the body, else the one
    in a block (the rewrites refuse several there)."""
    defs = [(s, p) for s, p, _ in sites if isinstance(s, _DEFS) and not _declaration(s)]
    top = [(s, p) for s, p in defs if not p]
    if top:
        return top[0]
    return defs[0] if len(defs) == 1 else None


def _declaration(stmt: ast.stmt) -> bool:
    """A definition that leaves the name's code as it was: an `@overload` (the implementation runs), a
    property's `@name.setter`/`.deleter`/`.getter` (the property keeps its other accessors), as the
    rewrites name them (radpatch.rewrite.scopes)."""
    if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for d in stmt.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        if isinstance(d, ast.Name) and d.id == "overload" or isinstance(d, ast.Attribute) and d.attr == "overload":
            return True
        if isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter", "getter"):
            return isinstance(d.value, ast.Name) and d.value.id == stmt.name
    return False


def _competes(site: ast.stmt, path: _Path, carrier: ast.stmt, placed: _Path) -> bool:
    """`site` may run after `carrier`, or instead of it: it comes later, or sits in another branch of
    an `if`/`match`, or in a `try` body (or handler) the carrier's handler (or `else`) is the
    alternative of."""
    end = getattr(carrier, "end_lineno", None) or carrier.lineno
    if site.lineno > end:
        return True
    for (a, branch_a, i), (b, branch_b, j) in zip(path, placed):
        if a is not b:
            return False
        if (branch_a, i) == (branch_b, j):
            continue
        if isinstance(a, ast.Try | getattr(ast, "TryStar", ast.Try)):
            return not (branch_a == "body" and branch_b in ("orelse", "finalbody")) and branch_b != "finalbody"
        return isinstance(a, ast.If | ast.Match)
    return False


def _text(lines: list[str], line: int) -> str:
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return text if len(text) <= 60 else text[:57] + "..."
