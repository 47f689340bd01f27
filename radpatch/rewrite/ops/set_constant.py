"""set_constant: `NAME = from` becomes `NAME = value` at module level, or, without `from`, a new
`NAME = value` line goes after the module's imports (refused if the module binds NAME already)."""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.code import expression_text
from radpatch.registry.model import Field, Operation
from radpatch.registry.touch import Touch, binding, norm
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source, Top
from radpatch.rewrite.top_bindings import is_constant

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import Ambiguous, Clash, MatchFailure, NearMiss, NotFound, NotUndoable
    from radpatch.rewrite.merge import merge
    from radpatch.rewrite.ops.common.bound_literal import refuse_later_display, refuse_later_module_stores
    from radpatch.rewrite.ops.common.import_lines import after_imports, insert_line


@dataclass(frozen=True)
class SetConstant(Operation):
    """Set a module-level constant: change `NAME = from` to `NAME = value`, or add `NAME = value` after the imports."""

    name: str
    value: str
    from_: str | None = None

    KEY: ClassVar[str] = "set_constant"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("name", "identifier", "the module-level name"),
        Field("value", "expression", "its new value"),
        Field(
            "from",
            "expression",
            "optional: the value the module assigns now; without it the name must be new",
            required=False,
        ),
    )
    EXAMPLE: ClassVar[str] = "name: HANDSHAKE_TIMEOUT_MINS\nfrom: 5\nvalue: 15"

    def describe(self) -> str:
        was = f" (was {self.from_})" if self.from_ is not None else ""
        return f"set {self.name} = {self.value}{was}"

    def at_imports(self) -> str | None:
        return "line" if self.from_ is None else None

    def touches(self) -> tuple[Touch, ...]:
        """The module-level assignment to the name (a node inside a statement another rewrite may replace);
        without `from:`, also the new name it binds (another entry binding it overlaps it)."""
        part = ("constant", self.name)
        constant = Touch(
            "node", "<module>", f"constant {self.name}", part=part, kind="constant", says=f"constant `{self.name}`"
        )
        if self.from_ is not None:
            return (constant,)
        return constant, binding(self.name, norm(self.value))

    def forward(self, src: Source) -> Source:
        load(__name__)
        return _forward(src, self)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return _inverse(src, self)


def _assignments(src: Source, name: str) -> list[int]:
    """The top-level statements binding `name` (an assignment, a def, an import, a block binding it)."""
    return [i for i, t in enumerate(src.tops) if name in t.binds]


def _value(node: ast.stmt) -> ast.expr:
    assert isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
    return node.value


def _typing_only(test: ast.expr) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING` (any module's): the test of a block only type checkers read."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _global_lines(src: Source, name: str) -> list[int]:
    """The lines of `global name` declarations in the module's functions: each binds the
    module's `name` when the function runs (an `init()` called at import, or later)."""
    if not re.search(rf"\bglobal\b[^\n]*\b{re.escape(name)}\b", src.text):
        return []
    try:
        tree = ast.parse(src.text)
    except (SyntaxError, ValueError):
        return [1]  # newer syntax than radpatch's Python: the text has such a declaration somewhere
    return sorted(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Global) and name in n.names)


def _refuse_global(src: Source, name: str) -> None:
    lines = _global_lines(src, name)
    if lines:
        raise Clash(
            f"a function of the module declares `global {name}` (line {lines[0]}) and binds it when it runs",
            "radpatch cannot tell which value the module ends up with; change the code with a `replace` rewrite",
        )


def _change(src: Source, op: SetConstant, old: str, new: str, failure: type[MatchFailure]) -> Source:
    hits = _assignments(src, op.name)
    if not hits:
        close = _close_names(src, op.name)
        if close:
            raise NearMiss(
                f"the module does not assign {op.name} at top level; closest: {', '.join(close)}",
                "fix `name:` (a name the module assigns is shown; names are case-sensitive)",
            )
        raise NotFound(f"the module does not assign {op.name} at top level")
    if len(hits) > 1:
        raise Ambiguous(
            f"the module binds {op.name} {len(hits)} times "
            f"(lines {', '.join(str(src.tops[i].start + 1) for i in hits)}): the last one run is the value",
            "radpatch changes a constant bound once; use a `replace` rewrite with `occurrence:`",
        )
    i = hits[0]
    node = src.readable(i)
    if isinstance(node, ast.If) and _typing_only(node.test):
        raise MatchFailure(
            f"line {src.tops[i].start + 1} binds {op.name} only inside `if {ast.unparse(node.test)}:`, which never "
            f"runs: type checkers read it, the running module does not",
            f"change the code that gives {op.name} its value at run time (a module `__getattr__`, a dict of "
            "defaults) with a `replace` or `set_item` rewrite there",
        )
    if node is None or not is_constant(node):
        raise MatchFailure(
            f"line {src.tops[i].start + 1} binds {op.name} but is not `{op.name} = value`",
            "set_constant changes a top-level `NAME = value`; change this code with a `replace` rewrite",
        )
    have = ast.unparse(_value(node))
    if ast.dump(_value(node)) != ast.dump(ast.parse(expression_text(old), mode="eval").body):
        raise failure(f"{op.name} is {have} at line {src.tops[i].start + 1}, not {old}")
    if failure is NotFound:
        refuse_later_display(src.text, op.name, old, new, src.tops[i].start + 1)
        refuse_later_module_stores(src.text, op.name, src.tops[i].start + 1)
    first, last = src.line_start(i), src.line_end(i)  # the statements sharing its line: `A = 1; B = 2`
    t = src.tops[i]
    module = cst.parse_module(src.text_of(t.start, t.end))
    stmt = module.body[0]
    assert isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == last - first
    small = stmt.body[i - first]
    assert isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None
    value = merge(small.value, cst.parse_expression(expression_text(old)), cst.parse_expression(expression_text(new)))
    body = [*stmt.body[: i - first], small.with_changes(value=value), *stmt.body[i - first + 1 :]]
    code = module.with_changes(body=[stmt.with_changes(body=body)]).code
    n = len(Source.parse_lines(code))
    return src.splice(first, last, code, tuple(Top(x.name, 0, n, x.binds) for x in src.tops[first:last]))


def _forward(src: Source, op: SetConstant) -> Source:
    _refuse_global(src, op.name)
    if op.from_ is not None:
        return _change(src, op, op.from_, op.value, NotFound)
    bound = [i for i, t in enumerate(src.tops) if op.name in t.binds]
    if bound:
        raise Clash(
            f"the module already binds {op.name} (line {src.binding_line(bound[0], op.name)})",
            "to change it, give `from:` with its current value; to add a new constant, pick a new name",
        )
    return insert_line(
        src, _place(src, op.value), f"{op.name} = {expression_text(op.value)}", Top(None, 0, 1, (op.name,))
    )


def _place(src: Source, value: str) -> int:
    """Where a new constant goes: after the module's imports, and after the first top-level
    statement binding each module name its value reads (else importing the module would fail)."""
    reads = {n.id for n in ast.walk(ast.parse(expression_text(value), mode="eval")) if isinstance(n, ast.Name)}
    at = after_imports(src)
    for name in reads:
        bound = [i for i, t in enumerate(src.tops) if name in t.binds]
        if bound:
            at = max(at, bound[0] + 1)
    return at


def _inverse(src: Source, op: SetConstant) -> Source:
    if op.from_ is not None:
        return _change(src, op, op.value, op.from_, NotUndoable)
    key = ast.dump(ast.parse(f"{op.name} = {expression_text(op.value)}").body[0])
    hits = [i for i in _assignments(src, op.name) if ast.dump(src.readable(i) or ast.Pass()) == key]
    if len(hits) != 1:
        raise NotUndoable(f"expected one `{op.name} = {op.value}` at module level, found {len(hits)}")
    i = hits[0]
    t = src.tops[i]
    if src.line_end(i) - src.line_start(i) > 1:
        raise NotUndoable(f"`{op.name} = {op.value}` shares its line with other statements; radpatch wrote it alone")
    if i == len(src.tops) - 1 and not src.lines[-1].endswith(("\n", "\r")):
        kept = src.text_of(0, t.start)
        return Source.parse(kept[: -len(src.newline)] if kept.endswith(src.newline) else kept)
    return src.splice_lines(t.start, t.end, i, i + 1, "", ())


def _close_names(src: Source, name: str) -> list[str]:
    """The names the module assigns at top level closest to `name` (a typo in `name:` reads as one)."""
    try:
        body = ast.parse(src.text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    targets = [t for n in body if isinstance(n, ast.Assign) for t in n.targets]
    targets += [n.target for n in body if isinstance(n, ast.AnnAssign)]
    names = {t.id.lower(): t.id for t in targets if isinstance(t, ast.Name)}  # `limit` for LIMIT too
    return [names[n] for n in difflib.get_close_matches(name.lower(), sorted(names), n=3)]
