"""Code another module runs with `exec` or `eval`, as a rename's rules read it (issue 23, exec51).

A rename is followed only where no other module of the package may store the renamed name
(radpatch.releases.renamed_release). An `exec`/`eval` there runs code that may store any name. Where
that code is a string literal (or literals joined with `+`, an f-string with no fields: folded as Python
folds them), it is parsed and read like the rest: it may store a name where it binds it (an assignment,
`del`, `def`, `class`, `import ... as`, `except ... as`, a `match` capture, `:=`) in whatever namespace
it runs in, stores it as an attribute, or names it in a setattr-like call; and it may store any name
where it writes a namespace no statement shows (a subscript store or a dict-like write, a `__dict__`,
`globals`/`vars`/`locals`, `sys.modules`, `__import__`, a setattr-like call with a computed name or
passed on, another `exec`/`eval`/`compile` of code that is not itself such a literal). Code that does
not parse here may store anything. Code that is no literal (vLLM's generated code: `exec(code,
namespace)`) cannot be read: the entry's author may vouch for the call's statement (`vouched_exec:`,
radpatch.releases.vouched), else the rename is refused there. Read with `ast` only."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

ANY = "*"  # the code may store any name
SETTERS = frozenset({"setattr", "delattr", "__setattr__", "__delattr__"})
_NAMESPACES = frozenset({"globals", "vars", "locals", "__import__", "exec", "eval", "compile", "__dict__", "modules"})
_PASSED = SETTERS | {"exec", "eval"}
_DICT_WRITES = frozenset({"update", "setdefault", "__setitem__", "__delitem__", "pop", "popitem", "clear"})


def runs_code(node: ast.Call) -> bool:
    """`exec(...)` or `eval(...)` (also `builtins.exec`): code that may store any name (`eval` by `:=`)."""
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "builtins":
        return func.attr in ("exec", "eval")
    return isinstance(func, ast.Name) and func.id in ("exec", "eval")


def literal(node: ast.expr | None) -> str | None:
    """The text of a string literal, `'a' + 'b'` (folded), or an f-string with no fields; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal(node.left), literal(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
        return "".join(str(v.value) for v in node.values if isinstance(v, ast.Constant))
    return None


def code_of(call: ast.Call) -> str | None:
    """The literal code an `exec`/`eval` call runs (its first argument, or `source=`), or None."""
    given = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "source"), None)
    return literal(given)


def stored(text: str) -> frozenset[str]:
    """The names the code `text` may store (bind, set or delete as an attribute, name in a setattr-like
    call), or {ANY} where it may store any name (a namespace written, code run that is no literal, a
    computed setattr, or code that does not parse here)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset({ANY})
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    out: set[str] = set()
    for node in ast.walk(tree):
        out.update(_stores(node, called))
        if ANY in out:
            return frozenset({ANY})
    return frozenset(out)


def may_store(text: str, names: Collection[str]) -> str | None:
    """The first of `names` (or ANY) the code `text` may store; None when it stores none of them."""
    got = stored(text)
    if ANY in got:
        return ANY
    return next((n for n in names if n in got), None)


def _stores(node: ast.AST, called: Collection[int]) -> Iterator[str]:
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Store | ast.Del):
            yield node.id
        elif node.id in _NAMESPACES - _PASSED or (id(node) not in called and node.id in _PASSED):
            yield ANY  # a namespace at hand, or a setter or code runner passed on (`sa = setattr`)
    elif isinstance(node, ast.Attribute):
        if isinstance(node.ctx, ast.Store | ast.Del):
            yield node.attr
        if node.attr in _NAMESPACES:
            yield ANY
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        yield ANY  # `ns['size'] = ...`: ns may be a module's namespace
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Import | ast.ImportFrom):
        yield from (ANY if a.name == "*" else a.asname or a.name.split(".")[0] for a in node.names)
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest
    elif isinstance(node, ast.Call):
        yield from _call_stores(node)


def _call_stores(node: ast.Call) -> Iterator[str]:
    func = node.func
    called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if called in SETTERS:  # the name is the second argument (`setattr(o, n, v)`, `object.__setattr__(o, n, v)`)
        named = node.args[:2] if called.startswith("__") else node.args[1:2]  # or the first: `o.__setattr__(n, v)`
        said = [literal(a) for a in named]
        yield from (ANY,) if node.keywords or not said else [s if s is not None else ANY for s in said]
    elif called in _DICT_WRITES:
        yield ANY  # `ns.update(size=...)`: ns may be a module's namespace
    elif runs_code(node):
        text = code_of(node)
        yield from stored(text) if text is not None else (ANY,)


def unread_sites(tree: ast.Module) -> list[tuple[ast.expr, str]]:
    """Each `exec`/`eval` of code that is no literal in `tree`, with the code a `vouched_exec:` item
    names it by: its statement (the call itself where it sits in a compound statement's header). Also
    each way `exec`/`eval` leaves radpatch's sight (att52 #3c): the name read other than as a call's
    function (`_run = exec`), through an alias of `builtins` (`b.exec`), or by name (`getattr(builtins,
    "exec")`, `__builtins__["exec"]`): code it runs later may store anything."""
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and runs_code(n)}
    aliases = {"builtins"} | {
        a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names if a.name == "builtins"
    }
    sites: list[ast.expr] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and runs_code(n) and code_of(n) is None:
            sites.append(n)
        elif id(n) in called:
            continue
        elif isinstance(n, ast.Name) and n.id in _RUNNERS and isinstance(n.ctx, ast.Load):
            sites.append(n)
        elif isinstance(n, ast.Attribute) and n.attr in _RUNNERS and isinstance(n.value, ast.Name):
            if n.value.id in aliases:
                sites.append(n)
        elif isinstance(n, ast.Constant) and n.value in _RUNNERS and _names_runner(n, tree, aliases):
            sites.append(n)
    if not sites:
        return []
    owner: dict[int, ast.stmt] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            for child in ast.walk(node):  # the innermost statement is walked last: it wins
                owner[id(child)] = node
    out = []
    for site in sites:
        stmt = owner.get(id(site))
        out.append((site, ast.unparse(stmt if stmt is not None and not hasattr(stmt, "body") else site)))
    return out


_RUNNERS = frozenset({"exec", "eval"})


def _names_runner(const: ast.Constant, tree: ast.Module, aliases: set[str]) -> bool:
    """The string "exec"/"eval" names the builtin: getattr's name on `builtins` (or an alias of it, or
    `__builtins__`), or a key of `__builtins__` (`__builtins__["exec"]`); not `getattr(model, "eval")`."""
    holders = aliases | {"__builtins__"}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr" and len(n.args) > 1:
            if n.args[1] is const and isinstance(n.args[0], ast.Name) and n.args[0].id in holders:
                return True
        if isinstance(n, ast.Subscript) and n.slice is const and isinstance(n.value, ast.Name):
            if n.value.id == "__builtins__":
                return True
    return False


def same_statement(a: str, b: str) -> bool:
    """`a` and `b` are the same statement as Python reads it (formatting and comments aside)."""
    try:
        return ast.dump(ast.parse(a.strip())) == ast.dump(ast.parse(b.strip()))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
