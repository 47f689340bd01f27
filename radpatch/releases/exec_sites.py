"""Where an `exec`/`eval` of code radpatch cannot read stands, as a `vouched_exec:` item anchors it
(issue 23, att52 #3a, #3b): its file, its scope (the enclosing def/class, dotted, or "<module>"), its
statement, which occurrence of that statement in the scope it is (1 for the first, in source order),
and the statements that bind the names the call passes (in the scope Python looks them up in: the
call's own, else an enclosing function's, else the module's). A vouch is for that place and what its
names hold there: the same statement moved to another def, a copy of it added, or a name it passes
bound anew (`namespace = vars(core)` where it was `namespace = {}`) is no longer vouched for, and
`changed` names what differs from the nearest item. Sites themselves: radpatch.releases.exec_code."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from radpatch.registry.model import VouchedExec
from radpatch.releases import exec_code, exec_reads

MODULE = "<module>"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Site:
    file: str
    line: int
    scope: str
    code: str
    occurrence: int
    binds: tuple[str, ...]
    reads: str = ""  # digest of the module's code the call depends on (radpatch.releases.exec_reads)
    depends: tuple[str, ...] = ()  # that code, by the names its top-level statements bind, for messages


def sites(file: str, tree: ast.Module) -> list[Site]:
    """Each unread exec/eval site of `tree` (the module at `file` in the wheel), in source order."""
    found = exec_code.unread_sites(tree)
    if not found:
        return []
    parent = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    out: list[Site] = []
    seen: dict[tuple[str, str], int] = {}
    for node, code in sorted(found, key=lambda s: (s[0].lineno, s[0].col_offset)):
        chain = _chain(node, parent, tree)
        scope = ".".join(getattr(s, "name", "<lambda>") for s in reversed(chain[:-1])) or MODULE
        key = (scope, _dump(code))
        seen[key] = seen.get(key, 0) + 1
        passed = _passed(node) if isinstance(node, ast.Call) else []
        binds = tuple(t for name in passed for t in _binds(name, chain))
        top: ast.AST = node
        while parent.get(id(top)) is not tree:  # the top-level statement it stands in
            top = parent[id(top)]
        depends = exec_reads.slice_of(tree, top)  # type: ignore[arg-type]
        reads, named = exec_reads.digest(depends), tuple(exec_reads.names(depends))
        out.append(Site(file, node.lineno, scope, code, seen[key], binds, reads, named))
    return out


def covered(site: Site, items: Sequence[VouchedExec]) -> bool:
    return any(_differs(site, v) == "" for v in items)


def changed(site: Site, items: Sequence[VouchedExec]) -> str:
    """What differs between `site` and the nearest item for its file and statement, in words; "" when none
    names its statement there."""
    near = [(v, w) for v in items if (w := _differs(site, v)) and v.file == site.file and _same(v.code, site.code)]
    return min(near, key=lambda vw: _rank(site, vw[0]))[1] if near else ""


def stale(item: VouchedExec, found: Sequence[Site] | None) -> str:
    """Why `item` matches none of the sites `found` in its file (None: no such file), in words; "" when one matches."""
    if found is None:
        return f"there is no {item.file}"
    if any(_differs(s, item) == "" for s in found):
        return ""
    same = [s for s in found if _same(item.code, s.code)]
    if not same:
        return f"{item.file} has no call `{item.code}` (radpatch cannot read) any more"
    best = min(same, key=lambda s: _rank(s, item))
    return f"at {item.file}:{best.line}, " + _differs(best, item)


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _rank(site: Site, v: VouchedExec) -> tuple[bool, bool, int]:
    return (v.scope != site.scope, v.occurrence != site.occurrence, abs(v.occurrence - site.occurrence))


def _differs(site: Site, v: VouchedExec) -> str:
    """ "" when `v` vouches for `site`, else what differs, in words."""
    if v.file != site.file or not _same(v.code, site.code):
        return f"`{site.code}` is not the vouched `{v.code}` in {v.file}"
    where = "at module level" if site.scope == MODULE else f"in {site.scope}"
    if not v.scope:
        return f"the item names no place (scope:, binds:): the call is {where}; read it, then replace the item"
    if v.scope != site.scope:
        was = "at module level" if v.scope == MODULE else f"in {v.scope}"
        return f"the call is {where}; the item vouches for it {was}: read it again there"
    if v.occurrence != site.occurrence:
        return (
            f"it is the {ordinal(site.occurrence)} such call {where}; the item vouches for the "
            f"{ordinal(v.occurrence)}: read this one too"
        )
    if [_dump(b) for b in v.binds] != [_dump(b) for b in site.binds]:
        now = "; ".join(f"`{b}`" for b in site.binds) or "none"
        was = "; ".join(f"`{b}`" for b in v.binds) or "none"
        return f"what the names it passes hold changed: they are bound by {now}, vouched with {was}: read it again"
    if v.reads != site.reads:
        code = ", ".join(site.depends)
        if not v.reads:
            return (
                f"the item names no digest of the code the call depends on (reads:): read {code}, then replace the item"
            )
        return f"the code the call depends on ({code}) changed: reads {site.reads}, vouched {v.reads}: read it again"
    return ""


def _same(a: str, b: str) -> bool:
    return exec_code.same_statement(a, b)


def _dump(text: str) -> str:
    try:
        return ast.dump(ast.parse(text.strip()))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text.strip()


def _chain(node: ast.AST, parent: dict[int, ast.AST], tree: ast.Module) -> list[ast.AST]:
    """The scopes `node` is evaluated in, innermost first, the module last: a def's decorators and
    defaults, a class's bases, are evaluated in the scope around it."""
    chain: list[ast.AST] = []
    child, up = node, parent.get(id(node))
    while up is not None:
        if isinstance(up, ast.Lambda) and child is up.body:
            chain.append(up)
        elif isinstance(up, _SCOPES) and not isinstance(up, ast.Lambda) and child in up.body:
            chain.append(up)
        child, up = up, parent.get(id(up))
    return [*chain, tree]


def _passed(call: ast.Call) -> list[str]:
    """The names read in the call's arguments, in order, once each (the code, the namespaces)."""
    args = [*call.args, *(k.value for k in call.keywords)]
    names = [n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return list(dict.fromkeys(names))


def _binds(name: str, chain: list[ast.AST]) -> list[str]:
    """The statements binding `name` in the scope Python reads it from (call's scope first)."""
    for i, scope in enumerate(chain):
        if i and isinstance(scope, ast.ClassDef):
            continue  # a class body's names are not seen from the defs inside it
        declared = {n for node, _ in _region(scope) if isinstance(node, ast.Global | ast.Nonlocal) for n in node.names}
        if name in declared and scope is not chain[-1]:  # `global`/`nonlocal`: read where it points
            outer = [s for s in chain[i + 1 :] if not isinstance(s, ast.ClassDef)]
            return _binds(name, chain[-1:] if _global(scope, name) else outer)
        got = [text for bound, text in _bound(scope) if bound == name] + _rebound_inside(scope, name)
        if got:
            return got
    return []


def _rebound_inside(scope: ast.AST, name: str) -> list[str]:
    """The statements of defs inside `scope` that bind its `name` there: `global name` (the module's)
    or `nonlocal name` (an enclosing def's)."""
    said = ast.Global if isinstance(scope, ast.Module) else ast.Nonlocal
    out: list[str] = []
    for d in ast.walk(scope):
        if d is not scope and isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef):
            if any(isinstance(n, said) and name in n.names for n, _ in _region(d)):
                out += [text for bound, text in _bound(d) if bound == name and not text.startswith("parameter ")]
    return out


def _global(scope: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Global) and name in n.names for n, _ in _region(scope))


def _bound(scope: ast.AST) -> Iterator[tuple[str, str]]:
    """(name, statement) for each binding in the scope's own namespace; a def's parameters first."""
    if isinstance(scope, _FUNCS):
        a = scope.args
        plain = [*a.posonlyargs, *a.args]
        defaults: list[ast.expr | None] = [None] * (len(plain) - len(a.defaults)) + list(a.defaults)
        given = [*zip(plain, defaults), (a.vararg, None), *zip(a.kwonlyargs, a.kw_defaults), (a.kwarg, None)]
        for arg, default in given:
            if arg is not None:
                said = ast.unparse(arg) + (f"={ast.unparse(default)}" if default is not None else "")
                yield arg.arg, f"parameter {said}"
    for node, stmt in _region(scope):
        name = _binding(node)
        if name and stmt is not None:
            yield name, _header(stmt)


def _binding(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return node.id
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.ExceptHandler):
        return node.name
    if isinstance(node, ast.MatchAs | ast.MatchStar):
        return node.name
    if isinstance(node, ast.MatchMapping):
        return node.rest
    if isinstance(node, ast.alias):
        return None if node.name == "*" else node.asname or node.name.split(".")[0]
    return None


def _region(scope: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """Each node evaluated in the scope's own namespace, with its innermost statement (or handler)."""
    body: list[ast.AST] = [scope.body] if isinstance(scope, ast.Lambda) else list(getattr(scope, "body", []))
    stack: list[tuple[ast.AST, ast.AST | None]] = [(n, None) for n in reversed(body)]
    while stack:
        node, stmt = stack.pop()
        if isinstance(node, ast.stmt | ast.ExceptHandler):
            stmt = node
        yield node, stmt
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = node.args
            kids: list[ast.AST] = [*getattr(node, "decorator_list", []), *a.defaults, *(d for d in a.kw_defaults if d)]
        elif isinstance(node, ast.ClassDef):
            kids = [*node.decorator_list, *node.bases, *node.keywords]
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            kids = [node.generators[0].iter]  # the rest runs in the comprehension's own scope
        else:
            kids = list(ast.iter_child_nodes(node))
        stack.extend((k, stmt) for k in reversed(kids))


def _header(stmt: ast.AST) -> str:
    """The statement as one line: a compound one as its header with `...` for its body."""
    if not hasattr(stmt, "body") or isinstance(stmt, ast.Lambda):
        return ast.unparse(stmt)
    head = copy.copy(stmt)
    for key in ("body", "orelse", "finalbody", "handlers", "decorator_list"):
        if hasattr(head, key):
            setattr(head, key, [ast.Expr(ast.Constant(...))] if key == "body" else [])
    try:
        return ast.unparse(head).replace("\n    ...", " ...")
    except (AttributeError, TypeError, ValueError):
        return ast.unparse(stmt).split("\n", 1)[0]
