"""What one rewrite changes, as prove.overlaps.pairs compares it: each operation says it of itself
(`Operation.touches`, in its own module of rewrite/ops/), so that an operation added there is
checked for overlaps without editing overlaps.py. Standard library only (the registry loads light).

An operation that does not say (the `Operation.touches` default) gets one `any` touch: it may
change anything in its module, so it overlaps every other rewrite there (apply refuses two such
entries with no order between them; list and verify report them) until its module says better.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from radpatch.registry.model import Operation

# node: it changes the node itself; anchor: it inserts at a place; body: it changes a function's
# whole body (and so every node inside it); any: it did not say, and may change anything in its module
Role = Literal["node", "anchor", "body", "any"]


@dataclass(frozen=True)
class Touch:
    """What one rewrite changes (`role`): the node itself, a place it inserts at (`anchor`), a
    function's whole `body`, or, undeclared, `any` code of its module."""

    role: Role
    scope: str  # the qualified name it is in ("<module>" for the module)
    key: str  # the node's identity in that scope
    code: str = ""  # replace/delete/insert_*: the `find` as syntax trees (code_trees), to see one inside another
    # replace/delete: the `find` as written, to see a smaller node inside it (picked by `occurrence:`/`within:`
    # too: the node may be inside the copy picked; records written before elem43 kept it for one match only)
    find: str = ""
    # a node inside a statement, by where a `find` holds it (`holds`): ("keyword", call, name, from),
    # a keyword argument of a call; ("constant", name), in the module-level assignment to `name`
    part: tuple[str, ...] = ()
    # the node `part` places, as its operation says it: what it is (`kind`: "constant", "dict entry")
    # and how a message names it (`says`, after "the"); "" in a record written before these were kept
    kind: str = ""
    says: str = ""
    # the `key` of another touch's node this node lies inside (a dict entry inside the constant's
    # assignment: "constant NAME"): the two change the same code
    inside: str = ""
    # replace/delete/insert_*: which copy of `find` it picks, and what it writes
    same: str = ""  # the `find` as one syntax tree: equal for two rewrites that match the same code
    occurrence: int | str | None = None  # `occurrence:` (None: the one match)
    within: str = ""  # `within:` as a syntax tree ("" without one)
    consumes: bool = False  # it removes the copy it picks (delete, replace): later copies are counted anew
    writes: str = ""  # the code it writes (`with`, `code`) as syntax trees (code_trees), to see another's `find` in it
    # a function's part outside its body (its signature, a default, its decorators): commutes with a body rewrite
    beside_body: bool = False
    # replace/delete: the definitions (qualified names) its `find` takes whole, so every node inside them
    defines: tuple[str, ...] = ()
    # replace/delete/insert_*: the span its `find` matches, each of its statements as code_trees gives
    # it: an insertion anchored between two of them (or a rewrite of one of them) meets this rewrite
    statements: tuple[str, ...] = ()
    # replace/delete/insert_* at module level: the module-level names its `find` (a rewrite of it) or
    # the code it writes binds (an assignment, a def or class, an import): an `add_import` of one of
    # them meets it (one order clashes, the other does not)
    names: tuple[str, ...] = ()


BINDS = "name "  # the key of a binding touch: `name NAME`
# the key of where a new dict entry goes (set_item): `entry place NAME[the end]`; its `part` is
# ("entry place", NAME, the `after:` key as `norm` gives it or "", the new key as `norm` gives it)
PLACE = "entry place "


def binding(name: str, writes: str) -> Touch:
    """A new module-level name the rewrite binds (add_import, set_constant of a new name); `writes`:
    what it binds the name to (where an import takes it from, or the value as a syntax tree). Two
    such touches of one name meet unless both bind the same thing (prove.overlaps.touching)."""
    return Touch("node", "<module>", BINDS + name, writes=writes)


def import_bindings(statement: str) -> tuple[Touch, ...]:
    """The names an import statement binds, each with where it takes it from (`json:dumps` for
    `from json import dumps as enc`, `os` for `import os.path`): two imports of one name from one
    place bind the same thing. A star import binds names the registry text does not show: none."""
    try:
        node = ast.parse(textwrap.dedent(statement).strip()).body[0]
    except (SyntaxError, IndexError):
        return ()
    if isinstance(node, ast.Import):
        top = [a.name.split(".")[0] for a in node.names]
        return tuple(binding(a.asname or t, a.name if a.asname else t) for a, t in zip(node.names, top))
    if isinstance(node, ast.ImportFrom):
        where = "." * node.level + (node.module or "")
        return tuple(binding(a.asname or a.name, f"{where}:{a.name}") for a in node.names if a.name != "*")
    return ()


@functools.lru_cache(maxsize=1024)  # a function of the text alone: overlaps asks it per pair of rewrites
def _expression(text: str) -> str | None:
    """`text` as one expression's syntax tree (parenthesised: it may span lines), or None."""
    try:
        return ast.dump(ast.parse(f"(\n{text}\n)", mode="eval").body)
    except SyntaxError:
        return None


@functools.lru_cache(maxsize=1024)  # a function of the text alone: overlaps asks it per pair of rewrites
def norm(code: str) -> str:
    """The code as one syntax tree (an expression's, else the module's), or the text when it does not parse."""
    text = textwrap.dedent(code).strip()
    expression = _expression(text)
    if expression is not None:
        return expression
    try:
        return ast.dump(ast.parse(text))
    except SyntaxError:
        return text


@functools.lru_cache(maxsize=1024)  # a function of the text alone: overlaps asks it per pair of rewrites
def boundary(find: str, side: str) -> str:
    """The statement an insertion's code goes next to, as `norm` gives it: `find`'s first statement
    for `before`, its last for `after` (a `find` of several statements inserts next to one of them,
    the same place as another entry's insertion whose `find` is that statement alone)."""
    text = textwrap.dedent(find).strip()
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return norm(find)
    if len(body) < 2:
        return norm(find)
    return norm(ast.unparse(body[0] if side == "before" else body[-1]))


@functools.lru_cache(maxsize=1024)  # a function of the text alone: overlaps asks it per pair of rewrites
def code_trees(code: str) -> str:
    """The code's syntax trees without a wrapper (an expression's, or each statement's), so that a
    node inside another is a substring of the other's: `len(spec)` is inside `size = len(spec)`."""
    text = textwrap.dedent(code).strip()
    expression = _expression(text)
    if expression is not None:
        return expression
    try:
        return "; ".join(ast.dump(s.value if isinstance(s, ast.Expr) else s) for s in ast.parse(text).body)
    except SyntaxError:
        return ""


@functools.lru_cache(maxsize=1024)  # a function of the text alone: overlaps asks it per pair of rewrites
def statements(find: str) -> tuple[str, ...]:
    """Each statement of `find` (its top level) as `code_trees` gives it; () when it does not parse."""
    try:
        body = ast.parse(textwrap.dedent(find).strip()).body
    except SyntaxError:
        return ()
    return tuple(ast.dump(s.value if isinstance(s, ast.Expr) else s) for s in body)


def on_find(op: Operation, find: str, role: Role, key: str, writes: str) -> Touch:
    """The touch of an operation matched by its `find` (replace, delete, insert_before/after), with
    its `within:`/`occurrence:`. A `find` inside another rewrite's `find` is compared whatever picks
    the copies: one copy of the smaller may be inside the copy of the larger the other picks."""
    pick = getattr(op, "occurrence", None)
    within = getattr(op, "within", None)
    return Touch(
        role,
        op.scope_name(),
        key,
        code_trees(find),
        find,
        same=norm(find),
        occurrence=pick if isinstance(pick, (int, str)) else None,
        within=norm(str(within)) if within else "",
        consumes=op.CONSUMES,
        writes=writes,
        defines=_definitions(op.scope_name(), find) if role == "node" else (),
        statements=statements(find),
        names=_module_names(op, find, role),
    )


def _module_names(op: Operation, find: str, role: Role) -> tuple[str, ...]:
    """At module level: the names the statements of `find` (a rewrite of them: replace, delete)
    and of the code the operation writes (`with`, `code`) bind; () elsewhere."""
    if op.scope_name() != "<module>":
        return ()
    texts = [find] if role == "node" else []
    texts += [w for w in (getattr(op, "with_", None), getattr(op, "code", None)) if isinstance(w, str)]
    out: list[str] = []
    for text in texts:
        try:
            body = ast.parse(textwrap.dedent(text).strip()).body
        except SyntaxError:
            continue
        for s in body:
            out += [n for n in _statement_names(s) if n not in out]
    return tuple(out)


def _statement_names(s: ast.stmt) -> list[str]:
    """The names a module-level statement binds: assignment targets, a def or class, an import's names."""
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [s.name]
    if isinstance(s, ast.Import):
        return [(a.asname or a.name).split(".")[0] for a in s.names]
    if isinstance(s, ast.ImportFrom):
        return [a.asname or a.name for a in s.names if a.name != "*"]
    targets: list[ast.expr] = []
    if isinstance(s, ast.Assign):
        targets = s.targets
    elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
        targets = [s.target]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _definitions(scope: str, find: str) -> tuple[str, ...]:
    """The qualified names of the functions and classes `find` holds whole (its own statements)."""
    try:
        body = ast.parse(textwrap.dedent(find).strip()).body
    except SyntaxError:
        return ()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return tuple(s.name if scope == "<module>" else f"{scope}.{s.name}" for s in body if isinstance(s, kinds))


def place_of(
    scope: str, name: str, key: str, after: str | None, before: str | None, said: str = "", element: bool = False
) -> Touch:
    """Where a new item of the literal `name` goes (its dict entry, its display element `key`, with
    `element`): at the end, after or before another (`after:`/`before:`); two going to one place make
    the literal's order (prove.overlaps.touching). `said`: the literal as a message names it, in backticks (`name`
    when not given; a call's argument is keyed by its syntax tree)."""
    at = "" if after is None else norm(after)
    where = "the end" if after is None else f"after {after}"
    if before is not None:
        at, where = f"before {norm(before)}", f"before {before}"
    said = said or f"`{name}`"
    return Touch(
        "node",
        scope,
        f"{PLACE}{name}[{where}]",
        part=(PLACE.strip(), name, at, norm(key), said),
        kind="element place" if element else PLACE.strip(),
        says=f"{where} of {said}",
    )
