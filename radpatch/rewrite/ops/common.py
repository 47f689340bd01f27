"""What several operations share: running an edit on the one top-level definition it concerns,
choosing the one match (`within:`, `occurrence:`), saying clearly why nothing matched, finding a
function, and adding or removing a module-level line after the imports.

Not an operation: radpatch.rewrite.ops loads every other module of the package as one, and this
one only when an operation runs (it imports libcst).
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import difflib
import functools
import io
import sys
import textwrap
import tokenize
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import libcst as cst

from radpatch.errors import Position, Probed
from radpatch.registry.model import Occurrence
from radpatch.rewrite.matching import (
    SCOPE_MISSING,
    SCOPE_NEAR,
    Ambiguous,
    Clash,
    MatchFailure,
    NearMiss,
    NotFound,
    NotUndoable,
    Path_,
    block_body,
    closest,
    code_of,
    explaining,
    find_scope,
    find_statements,
    inline_statements,
    lines_of,
    nested_scopes,
    replace_on_path,
    starts,
    statement_count,
    statement_slots,
)
from radpatch.rewrite.source import Source, Top, bindings, bound_names

Edit = Callable[[cst.Module, int], cst.CSTNode]


class Selecting(Protocol):
    @property
    def within(self) -> str | None: ...

    @property
    def occurrence(self) -> Occurrence: ...


@contextlib.contextmanager
def code_errors() -> Iterator[None]:
    """Code that parses for `ast` but not for libcst (or not at all once combined) is a refusal;
    so is code nested deeper than the parsers can follow."""
    try:
        yield
    except cst.ParserSyntaxError as exc:
        raise MatchFailure(f"libcst cannot parse the code involved: {exc.message} (line {exc.raw_line})") from None
    except SyntaxError as exc:
        raise MatchFailure(
            f"the code involved does not parse for radpatch's Python {sys.version_info[0]}.{sys.version_info[1]}: "
            f"{exc.msg} (line {exc.lineno})",
            "code in a newer Python's grammar (the target's) is read only by a radpatch running on that Python or "
            "newer: run radpatch with it, or write the rewrite on code this Python can read",
        ) from None
    except (RecursionError, MemoryError):
        raise MatchFailure(
            "the code involved is nested too deeply for radpatch to analyse",
            "simplify the expression in the registry, or patch a shallower statement",
        ) from None


def in_scope(src: Source, qualname: str, edit: Edit) -> Source:
    """Run `edit` on a libcst module holding just the top-level definition `qualname` lives in."""
    if qualname == "<module>":
        return Source.parse(as_module(edit(cst.parse_module(src.text), 0)).code)
    top = qualname.split(".")[0]
    hits = src.named(top)
    if len(hits) != 1:
        if hits or any(top in t.binds for t in src.tops):
            # several definitions (`@overload`s, if/else): the whole module, where find_scope chooses or says how
            return Source.parse(as_module(edit(cst.parse_module(src.text), 0)).code)
        close = difflib.get_close_matches(top, src.names(), n=3)
        raise (NearMiss if close else NotFound)(
            f"scope {qualname!r}: the module defines no function or class {top!r}; {near(top, src.names())}",
            SCOPE_NEAR if close else SCOPE_MISSING,
            scope_gone=True,
        )
    t = src.tops[hits[0]]
    new = as_module(edit(parse_top(src.text_of(t.start, t.end)), t.start)).code
    return src.splice(hits[0], hits[0] + 1, new, (Top(t.name, 0, len(Source.parse_lines(new)), t.binds),))


_TREES: dict[str, cst.Module] | None = None  # inside kept_trees(): the last few definitions' trees by text
_TREES_KEEP = 4  # a drifted file's status: the definition, its caller, and both as the rewrites before left them
_TREES_MAX = 100_000  # characters: a larger definition is parsed again rather than kept


@contextlib.contextmanager
def kept_trees() -> Iterator[None]:
    """While active, the same definition text gives the same libcst tree, and with it matching's
    positions and closest candidate, which are kept per tree: a drifted file's status undoes and
    applies the same rewrite on the same definition. Off elsewhere: apply frees each tree before
    it analyses the next version of the module (its peak memory)."""
    global _TREES
    outer, _TREES = _TREES, {} if _TREES is None else _TREES
    try:
        yield
    finally:
        _TREES = outer


def parse_top(text: str) -> cst.Module:
    """libcst's tree of a top-level definition's text (kept inside kept_trees(); trees are immutable)."""
    trees = _TREES
    tree = trees.pop(text, None) if trees is not None else None
    if tree is None:
        tree = cst.parse_module(text)
    if trees is not None and len(text) <= _TREES_MAX:
        trees[text] = tree
        while len(trees) > _TREES_KEEP:
            del trees[next(iter(trees))]
    return tree


def as_module(node: cst.CSTNode) -> cst.Module:
    assert isinstance(node, cst.Module)
    return node


def near(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=3)
    return f"closest: {', '.join(close)}" if close else "no similar name"


def with_body(block: Path_, body: Sequence[cst.BaseStatement]) -> cst.CSTNode:
    return replace_on_path(block, block[-1].with_changes(body=list(body)))


def scope_statements(scope: Path_) -> list[cst.CSTNode]:
    return [block_body(b[-1])[i] for b, i in statement_slots(scope)]


def statement_paths(hits: Sequence[tuple[Path_, int]]) -> list[Path_]:
    return [(*block, block_body(block[-1])[i]) for block, i in hits]


def slot_of(path: Path_) -> tuple[Path_, int]:
    """(block path, index) of the statement at the end of `path`."""
    block = path[:-1]
    body = block_body(block[-1])
    return block, next(i for i, s in enumerate(body) if s is path[-1])


# --- selection ---------------------------------------------------------------------------------
# `occurrence: all` and the installed file's count (rewrite.runner) need what select() sees: the
# matches' positions (probe), and a match picked by its index whatever `occurrence:` says (picking).

_PROBE: contextvars.ContextVar[bool] = contextvars.ContextVar("radpatch_probe", default=False)
_PICK: contextvars.ContextVar[int | None] = contextvars.ContextVar("radpatch_pick", default=None)


def probe(run: Callable[[], object]) -> list[Position] | None:
    """The positions of the matches the operation `run` runs would choose among (after `within`),
    without editing anything; None when it finished without choosing among matches."""
    token = _PROBE.set(True)
    try:
        run()
    except Probed as found:
        return found.positions
    finally:
        _PROBE.reset(token)
    return None


@contextlib.contextmanager
def picking(index: int) -> Iterator[None]:
    """While active, select() takes the index-th match (from 1, in source order) of what it is given."""
    token = _PICK.set(index)
    try:
        yield
    finally:
        _PICK.reset(token)


def positions(module: cst.Module, hits: Sequence[Path_], offset: int) -> list[Position]:
    pos = starts(module)
    return [(pos[h[-1]][0] + offset, pos[h[-1]][1]) for h in hits]


Explanation = tuple[str, bool] | tuple[str, bool, str]  # (detail, plausible[, hint]) of a pattern that matched nowhere


def select(
    module: cst.Module,
    hits: list[Path_],
    what: str,
    scope: str,
    op: Selecting | None,
    offset: int,
    no_match: Callable[[], Explanation],
    undo: cst.CSTNode | None = None,
    nested: Callable[[], list[tuple[str, int]]] | None = None,
) -> Path_:
    """The one hit the rewrite means: narrowed by `within`, picked by `occurrence`, else unique.
    `undo` is what the hit replaced (inverse of a replace), so `within` is judged as it was.
    `nested`: the matches inside functions defined in the scope (which it does not search), for
    a refusal that says which scope to write instead."""
    within = op.within if op else None
    everywhere = hits
    if within:
        hits = [h for h in hits if _is_within(module, h, within, undo)]
    if _PROBE.get():
        raise Probed(positions(module, hits, offset))
    pick = _PICK.get()
    nth = pick if pick is not None else op.occurrence if op else None
    if nth == "all":  # ops.forward runs the edit once per match, picking each; here only when there is none
        if hits:
            raise MatchFailure("`occurrence: all` is run by radpatch.rewrite.ops.forward, one match at a time")
        nth = None
    where = f"{scope}" + (f" within `{_one_line(within)}`" if within else "")
    if within and everywhere and not hits:
        lines = lines_of(module, [h[-1] for h in everywhere], offset)
        raise NotFound(
            f"{what} matches {len(everywhere)} time(s) in {scope} (lines {', '.join(map(str, lines))}) "
            f"but none within `{_one_line(within)}`",
            "fix `within:`: an enclosing statement of the match (a compound statement's header such as "
            "`for x in y:`, or a whole statement), written as in the code",
        )
    inner = (
        nested() if nested is not None and explaining() and (not hits or nth is not None and nth > len(hits)) else []
    )
    if inner and not hits:
        raise NotFound(
            f"{what} not found in {where} itself; it is inside a function defined in it: {_listed(inner)}",
            _scope_hint(inner, within),
        )
    if nth is not None:
        if nth <= len(hits):
            return hits[nth - 1]
        lines = lines_of(module, [h[-1] for h in hits], offset)
        shown = f" (the matches are at lines {', '.join(map(str, lines))})" if hits else ""
        if inner:
            raise NotFound(
                f"{what} has {len(hits)} match(es) in {where}{shown}; occurrence {nth} does not exist there. "
                f"{len(inner)} more {'is' if len(inner) == 1 else 'are'} inside a function defined in it, which "
                f"`scope: {scope}` does not search: {_listed(inner)}",
                _scope_hint(inner, within),
            )
        raise NotFound(
            f"{what} has {len(hits)} match(es) in {where}; occurrence {nth} does not exist{shown}",
            f"`occurrence:` counts the matches in the installed file's source order from 1: pick one of "
            f"1..{len(hits)}, or write `occurrence: all` for every one"
            if hits
            else "",
        )
    if len(hits) == 1:
        return hits[0]
    if not hits:
        detail, plausible, *hint = no_match() if explaining() else ("(closest candidate not searched)", False)
        raise (NearMiss if plausible else NotFound)(f"{what} not found in {where}; {detail}", *hint)
    lines = lines_of(module, [h[-1] for h in hits], offset)
    raise Ambiguous(f"{what} matches {len(hits)} times in {where} (ambiguous): lines {', '.join(map(str, lines))}")


def statement_match(
    module: cst.Module,
    scope_name: str,
    find: str,
    op: Selecting | None,
    offset: int,
    explain: Callable[[Callable[[], Explanation], Path_], Callable[[], Explanation]] | None = None,
) -> Path_:
    """The path to the first statement of the one run of statements equal to `find` in the scope
    (narrowed by `within:`, picked by `occurrence:`), or the refusal that says why not; `explain`
    may put its own explanation before the usual one (given the scope's path)."""
    scope = find_scope(module, scope_name, offset)

    def hits(path: Path_) -> list[Path_]:
        return statement_paths(find_statements(module, path, find))

    otherwise = statement_candidates(module, scope, find, offset)
    return select(
        module,
        hits(scope),
        "statement `find`",
        scope_name,
        op,
        offset,
        explain(otherwise, scope) if explain else otherwise,
        nested=nested_matches(module, scope, scope_name, hits, offset),
    )


def _listed(inner: list[tuple[str, int]]) -> str:
    return ", ".join(f"line {line} in `{q}`" for q, line in inner)


def _scope_hint(inner: list[tuple[str, int]], within: str | None) -> str:
    q = inner[0][0]
    several = sum(1 for name, _ in inner if name == q) > 1
    return (
        f"a function defined inside the scope is a scope of its own: write the rewrite for the match there with "
        f"`scope: {q}`"
        + (" and `occurrence:` (counted in that scope)" if several else "")
        + (" (check `within:` too)" if within else "")
        + "; `occurrence:` counts the matches of one scope"
    )


def nested_matches(
    module: cst.Module, scope: Path_, qualname: str, match: Callable[[Path_], Sequence[Path_]], offset: int
) -> Callable[[], list[tuple[str, int]]]:
    """(qualified name, line) of each match of `match` in the functions and classes defined inside
    the scope at `path`, which the scope's own search does not enter; gathered only for a refusal."""

    def find() -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        for path, name in nested_scopes(scope, qualname):
            try:
                hits = match(path)
            except SyntaxError:
                continue
            out.extend((name, line) for line in lines_of(module, [h[-1] for h in hits], offset))
        return sorted(out, key=lambda hit: hit[1])

    return find


def _one_line(code: str) -> str:
    text = " ".join(textwrap.dedent(code).split())
    return text if len(text) <= 60 else text[:57] + "..."


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


def undo_pick(
    module: cst.Module,
    find_hits: list[Path_],
    with_hits: list[Path_],
    op: Selecting,
    what: str,
    scope: str,
    offset: int,
    undo: cst.CSTNode | None,
) -> Path_:
    """The hit an inverse restores. With `occurrence: n`, forward took the n-th match of `find`;
    in the patched code that is the `with` match preceded by exactly n-1 `find` matches."""
    if op.within:
        find_hits = [h for h in find_hits if _is_within(module, h, op.within, None)]
        with_hits = [h for h in with_hits if _is_within(module, h, op.within, undo)]
    if op.occurrence is None or op.occurrence == "all" or _PICK.get() is not None:
        return select(
            module, with_hits, what, scope, None, offset, lambda: ("the rewrite's result is not there", False)
        )
    pos = lines_positions(module, [h[-1] for h in [*find_hits, *with_hits]])
    fpos, wpos = pos[: len(find_hits)], pos[len(find_hits) :]
    chosen = [
        h for h, p in sorted(zip(with_hits, wpos), key=lambda x: x[1]) if sum(q < p for q in fpos) == op.occurrence - 1
    ]
    run = _UNDO_RUN.get()
    if run is not None and len(chosen) > 1 and len(chosen) == run[1]:
        # the same edit at neighbouring occurrences (`occurrence: 1` and `occurrence: 2`, one `with`):
        # their results stand in occurrence order, and nothing else between them reads as the result
        chosen = [chosen[run[0]]]
    return select(module, chosen, what, scope, None, offset, lambda: ("the rewrite's result is not there", False))


_UNDO_RUN: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar("radpatch_undo_run", default=None)


@contextlib.contextmanager
def undoing_in_run(index: int, size: int) -> Iterator[None]:
    """While active, an undo whose `occurrence:` result matches `size` times takes the index-th
    (from 0, in source order): rewrite.runner sets it for a rewrite that makes the same edit as
    others still applied at the occurrences next to its own (a run of `size`, it the index-th)."""
    token = _UNDO_RUN.set((index, size))
    try:
        yield
    finally:
        _UNDO_RUN.reset(token)


def lines_positions(module: cst.Module, nodes: Sequence[cst.CSTNode]) -> list[tuple[int, int]]:
    pos = starts(module)
    return [pos[n] for n in nodes]


def statement_candidates(module: cst.Module, scope: Path_, pattern: str, offset: int) -> Callable[[], Explanation]:
    """The no-match explanation of a statement `find`: where it sits inside a line (a one-line
    suite, or beside another statement after `;`), which whole-line matching cannot take, else
    the closest statement of the scope."""

    def explain() -> Explanation:
        inline = inline_statements(module, scope, pattern)
        if inline:
            first = lines_of(module, [i.first for i in inline], offset)
            shown = ", ".join(map(str, first))
            where = (
                f"it is at line {shown}, but not on lines of its own: it starts or ends inside a line"
                if statement_count(pattern) > 1
                else f"it is at line {shown}, but not on a line of its own"
            )
            whole = inline[0].lines
            if whole is None:
                return f"{where} (in a one-line suite such as `if x: y`)", True, INLINE_HINT
            if "\n" not in whole and len(whole) < 160:
                hint = f"statements match as whole lines: make `find` the whole line it is part of, `{whole}`"
            else:
                end = first[0] + whole.count("\n")
                hint = (
                    f"statements match as whole lines: make `find` the whole lines {first[0]}-{end} it is part "
                    "of, every statement on them"
                )
            return f"{where} (beside another statement after `;`)", True, hint
        return closest(module, scope_statements(scope), pattern, offset)

    return explain


INLINE_HINT = (
    "statements match as whole lines: make `find` the whole statement it is part of (`if x: return 1`; for "
    "`else: y = 2`, the whole if/else)"
)


def candidates(
    module: cst.Module, nodes: Callable[[], Sequence[cst.CSTNode]], pattern: str, offset: int
) -> Callable[[], tuple[str, bool]]:
    """The no-match explanation of `pattern` among `nodes()`, gathered only when nothing matched."""
    return lambda: closest(module, nodes(), pattern, offset)


def function(module: cst.Module, qualname: str, offset: int = 0) -> tuple[Path_, cst.FunctionDef]:
    path = find_scope(module, qualname, offset)
    fn = path[-1]
    if not isinstance(fn, cst.FunctionDef):
        what = "the module" if isinstance(fn, cst.Module) else "a class"
        raise MatchFailure(
            f"{qualname!r} is {what}, not a function", "name a function or method: `f` or `Class.method`"
        )
    return path, fn


# --- module-level lines: add_import (and a payload's imports) and new constants -----------------
# An added import ends with `# radpatch: added import`, so the inverse removes exactly the line
# radpatch added and never an import the module had of its own.

MARK = "# radpatch: added import"


def after_imports(src: Source, limit: int | None = None) -> int:
    """Index into src.tops after which module-level additions go: after the last import that comes
    before the first def/class (else after the docstring and `from __future__` imports); with
    `limit`, only the statements before tops[limit] count."""
    at = 0
    for i, t in enumerate(src.tops[:limit]):
        if t.name is not None:
            break
        node = src.readable(i)
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (i == 0 and node is not None and _is_docstring(node)):
            at = i + 1
    return at


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def insert_line(src: Source, at: int, line: str, top: Top) -> Source:
    """Insert one statement line after tops[at - 1] (and the statements sharing its line); at 0:
    at the top of the file, below its shebang, encoding declaration and comment header."""
    nl = src.newline
    if at:
        at = src.line_end(at - 1)
    start = src.tops[at - 1].end if at else src.head()
    if start == len(src.lines) and src.lines and not src.lines[-1].endswith(("\n", "\r")):
        return Source.parse(src.text + nl + line)
    return src.splice_lines(start, start, at, at, line + nl, (Top(top.name, 0, 1, top.binds),))


def _aliases(node: ast.stmt) -> set[tuple[str | None, int, str, str | None]]:
    if isinstance(node, ast.Import):
        return {(None, 0, a.name, a.asname) for a in node.names}
    if isinstance(node, ast.ImportFrom):
        return {(node.module, node.level, a.name, a.asname) for a in node.names}
    return set()


def _module_imports(src: Source) -> list[tuple[int, ast.stmt]]:
    found = [(i, src.readable(i)) for i, t in enumerate(src.tops) if t.name is None and t.binds]
    return [(i, node) for i, node in found if node is not None]


def has_import(src: Source, statement: str) -> bool:
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
    another module's name), wherever the module binds it: at top level or in its blocks (`try:
    import orjson as json`, `if TYPE_CHECKING:`); an import of the same name from the same
    place is no clash."""
    for name in bound_names(node):
        for i, t in enumerate(src.tops):
            if name not in t.binds:
                continue
            have = src.readable(i)
            found: list[tuple[ast.AST | None, int]] = (
                [(b, t.start + getattr(b, "lineno", 1)) for n, b in bindings(have) if n == name] if have else []
            )
            for b, line in found or [(None, t.start + 1)]:
                if not isinstance(b, (ast.Import, ast.ImportFrom)) or _source(b, name) != _source(node, name):
                    raise Clash(
                        f"`{ast.unparse(node)}` would rebind {name!r}, which the module binds at line {line}",
                        "rename it with `as` (e.g. `... import x as _yourpatch_x`) "
                        "so it takes over nothing the module defines",
                    )


def add_import(src: Source, statement: str) -> Source:
    """The import on a line of its own, as ast writes it, with the comment `statement` carries
    (`import json  # for dumps`: a patch's own word on its line) and then the mark."""
    if has_import(src, statement):
        return src
    node = ast.parse(statement.strip()).body[0]
    _clash(src, node)
    line = f"{ast.unparse(node)}{''.join(f'  {c}' for c in _comments(statement))}  {MARK}"
    return insert_line(src, after_imports(src), line, Top(None, 0, 1, bound_names(node)))


def _comments(code: str) -> list[str]:
    """The comments of a line of code, in order (none when it does not tokenize)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code.strip() + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    return [t.string for t in tokens if t.type == tokenize.COMMENT and t.string.strip() != MARK]


def imports_before_uses(original: Source, src: Source) -> Source:
    """`src` (the entry's result on `original`) with each import line radpatch added there moved up
    above the first module-level code that uses a name of it, when that code runs at import time
    above the line after_imports chose (`import os / X = 1 / import sys`, and a later rewrite of the
    same entry makes `X = json.dumps(1)`): after the last import before that code, else at the
    head. Only then: an entry whose result the names proof would not refuse for this very reason
    keeps the placement of after_imports, byte for byte. remove_import finds the line by its mark
    wherever it is, so the inverse is unchanged."""
    have = {line.strip() for line in original.lines if line.rstrip("\r\n").endswith(MARK)}
    done: set[str] = set()
    while True:
        moved = _move_one(src, have | done)
        if moved is None:
            return src
        src, line = moved
        done.add(line)


def _move_one(src: Source, skip: set[str]) -> tuple[Source, str] | None:
    """Move the first added import line (not in `skip`) used above itself at import time; None when none is."""
    import re

    from radpatch.prove import names

    later: list[names.Problem] | None = None
    for i, t in enumerate(src.tops):
        line = src.lines[t.start] if t.end - t.start == 1 else ""
        if not line.rstrip("\r\n").endswith(MARK) or line.strip() in skip or not t.binds:
            continue
        if src.line_start(i) != i or src.line_end(i) != i + 1:
            continue  # not a line of its own: not one radpatch wrote
        above = src.text_of(0, t.start)
        if not any(re.search(rf"\b{re.escape(n)}\b", above) for n in t.binds):
            continue
        if later is None:
            try:
                later = [p for p in names.problems(src.text) if p.kind == names.LATER]
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None  # the proof says why
        uses = [p.line for p in later if p.name in t.binds and p.line <= t.start]
        if not uses:
            continue
        first = min(uses)
        k = next(j for j, u in enumerate(src.tops) if u.end >= first)
        kept = src.splice_lines(t.start, t.end, i, i + 1, "", ())
        return insert_line(kept, after_imports(kept, k), line.rstrip("\r\n"), Top(None, 0, 1, t.binds)), line.strip()
    return None


def remove_import(src: Source, statement: str) -> Source:
    key = ast.dump(ast.parse(statement.strip()).body[0])
    marked = [
        i
        for i, node in _module_imports(src)
        if ast.dump(node) == key and src.lines[src.tops[i].end - 1].rstrip("\r\n").endswith(MARK)
    ]
    if len(marked) > 1:
        raise NotUndoable(f"`{statement.strip()}` was added {len(marked)} times by radpatch")
    if not marked:
        if has_import(src, statement):
            return src  # the module had it already: the forward edit changed nothing
        raise NotUndoable(f"`{statement.strip()}` is not in the module")
    i = marked[0]
    t = src.tops[i]
    if src.line_end(i) - src.line_start(i) > 1:
        raise NotUndoable(f"`{statement.strip()}` shares its line with other statements; radpatch wrote it alone")
    if i == len(src.tops) - 1 and not src.lines[-1].endswith(("\n", "\r")):
        kept = src.text_of(0, t.start)
        return Source.parse(kept[: -len(src.newline)] if kept.endswith(src.newline) else kept)
    return src.splice_lines(t.start, t.end, i, i + 1, "", ())
