"""wrap_body and replace_body: change what a function does as a whole.

wrap_body's template holds one line `__body__`; the function's statements (its docstring stays
first) move there, keeping their bytes, and libcst re-indents them as a block. The inverse
follows the template to the same spot in the patched body, checks that everything around it is
the template, and moves the statements back.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from radpatch.registry.model import Fail, Field, Operation
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import MatchFailure, NotFound, NotUndoable, code_of, replace_on_path
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.selection import function
    from radpatch.rewrite.tree import Path_

BODY = "__body__"  # the placeholder statement of a wrap_body template


@dataclass(frozen=True)
class WrapBody(Operation):
    """Run a function's body inside new code: `with_` is a template whose `__body__` line is the original body."""

    function: str
    with_: str

    KEY: ClassVar[str] = "wrap_body"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function or method whose body is wrapped"),
        Field(
            "with", "code", f"the new body; one line `{BODY}` stands for the original body (the docstring stays first)"
        ),
    )
    EXAMPLE: ClassVar[str] = (
        f"function: EngineCore.abort_requests\nwith: |\n  try:\n      {BODY}\n  except Exception:\n"
        '      logger.exception("abort failed")\n      raise'
    )

    @classmethod
    def build(cls, key: str, values: dict[str, object], fail: Fail) -> Operation:
        _check_template(str(values["with_"]), fail)
        return cls(**values)  # type: ignore[arg-type]

    def describe(self) -> str:
        return f"wrap the body of {self.function}()"

    def scope_name(self) -> str:
        return self.function

    def touches(self) -> tuple[Touch, ...]:
        """The function's whole body: every node inside it."""
        return (Touch("body", self.function, "body"),)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return wrap(src, self)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return unwrap(src, self)


def _check_template(code: str, fail: Fail) -> None:
    try:
        tree = ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # the `code` reader reported it
    holes = [
        n for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Name) and n.value.id == BODY
    ]
    mentions = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == BODY]
    if len(holes) != 1 or len(mentions) != 1:
        raise fail(
            "with",
            f"a wrap_body template needs exactly one line `{BODY}` standing for the original body "
            f"(found {len(holes)}); e.g. try:\\n    {BODY}\\nexcept Exception: ...",
        )
    problem = hole_problem(code)
    if problem:
        raise fail("with", problem)


def hole_problem(code: str) -> str | None:
    """Why the template's `__body__` cannot stand for a body: it shares its line with other code
    (`if x: __body__`, `x = 1; __body__`), where a block of statements cannot go."""
    text = textwrap.dedent(code)
    lines = text.splitlines()
    for n in ast.walk(ast.parse(text)):
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Name) and n.value.id == BODY:
            line = lines[n.lineno - 1]
            rest = line[n.end_col_offset or 0 :].strip()
            if line[: n.col_offset].strip() or rest and not rest.startswith("#"):
                return (
                    f"`{BODY}` shares line {n.lineno} of the template with other code: the body it stands for is "
                    f"a block, so write `{BODY}` on a line of its own (e.g. `if x:\\n    {BODY}`)"
                )
    return None


@dataclass(frozen=True)
class ReplaceBody(Operation):
    """Replace a function's whole body (AST-equal to `find`) by `with_`; its docstring stays."""

    function: str
    find: str
    with_: str

    KEY: ClassVar[str] = "replace_body"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function or method"),
        Field("find", "code", "its current body without the docstring (AST-compared: any layout)"),
        Field("with", "code", "the new body"),
    )
    EXAMPLE: ClassVar[str] = (
        "function: EngineCore.abort_requests\n"
        "find: self.scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)\n"
        "with: self.scheduler.finish_requests(list(request_ids), RequestStatus.FINISHED_ABORTED)"
    )

    def describe(self) -> str:
        return f"replace the body of {self.function}()"

    def scope_name(self) -> str:
        return self.function

    def touches(self) -> tuple[Touch, ...]:
        """The function's whole body: every node inside it."""
        return (Touch("body", self.function, "body"),)

    def forward(self, src: Source) -> Source:
        load(__name__)
        return replace_body(src, self, undo=False)

    def inverse(self, src: Source) -> Source:
        load(__name__)
        return replace_body(src, self, undo=True)


Step = tuple[str, int | None]


def _split(fn: cst.FunctionDef) -> tuple[list[cst.BaseStatement], list[cst.BaseStatement], bool]:
    """(docstring statement or nothing, the rest of the body, whether the docstring shares its line
    with the rest's first statements: `'doc'; return 1`); a one-line body becomes a block."""
    body = fn.body
    stmts: list[cst.BaseStatement] = (
        list(body.body) if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(body=body.body)]  # type: ignore[arg-type]
    )
    first = stmts[0] if stmts else None
    if (
        isinstance(first, cst.SimpleStatementLine)
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        if len(first.body) == 1:
            return stmts[:1], stmts[1:], False
        doc = first.with_changes(body=first.body[:1], trailing_whitespace=cst.TrailingWhitespace())
        beside = cst.SimpleStatementLine(body=first.body[1:], trailing_whitespace=first.trailing_whitespace)
        return [doc], [beside, *stmts[1:]], True
    return [], stmts, False


def _with_statements(
    fn: cst.FunctionDef, doc: list[cst.BaseStatement], stmts: list[cst.BaseStatement], shared: bool = False
) -> cst.FunctionDef:
    """`fn` with the body `doc` + `stmts`. A docstring that shared its line (_split) shares it with the
    first line of `stmts` when that is a line of simple statements (so undoing gives the line back),
    else it stands alone."""
    if doc and shared:
        line = doc[0]
        assert isinstance(line, cst.SimpleStatementLine)
        if stmts and isinstance(stmts[0], cst.SimpleStatementLine):
            merged = line.with_changes(
                body=[*line.body, *stmts[0].body], trailing_whitespace=stmts[0].trailing_whitespace
            )
            doc, stmts = [merged], stmts[1:]
        else:
            alone = line.body[0].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            doc = [line.with_changes(body=[alone])]
    body = fn.body
    block = (
        body.with_changes(body=[*doc, *stmts])
        if isinstance(body, cst.IndentedBlock)
        else cst.IndentedBlock(body=[*doc, *stmts])
    )
    return fn.with_changes(body=block)


def _statements(code: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(textwrap.dedent(code).strip("\n") + "\n").body)


def _is_hole(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.SimpleStatementLine)
        and len(node.body) == 1
        and isinstance(node.body[0], cst.Expr)
        and isinstance(node.body[0].value, cst.Name)
        and node.body[0].value.value == BODY
    )


def _locate(node: cst.CSTNode) -> list[Step] | None:
    """Field steps from `node` down to the list holding the `__body__` statement (last: its index)."""
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                if _is_hole(v):
                    return [(f.name, i)]
                if isinstance(v, cst.CSTNode):
                    rest = _locate(v)
                    if rest is not None:
                        return [(f.name, i), *rest]
        elif isinstance(value, cst.CSTNode):
            rest = _locate(value)
            if rest is not None:
                return [(f.name, None), *rest]
    return None


def _follow(node: cst.CSTNode, steps: Sequence[Step]) -> Path_ | None:
    """Nodes along `steps` (all but the last, which indexes the list the statements are in)."""
    path: Path_ = (node,)
    for name, index in steps[:-1]:
        value = getattr(path[-1], name, None)
        if index is not None:
            if not isinstance(value, (list, tuple)) or index >= len(value):
                return None
            value = value[index]
        if not isinstance(value, cst.CSTNode):
            return None
        path = (*path, value)
    return path


def _ast(module: cst.Module) -> str:
    return ast.dump(ast.parse(module.code))


def wrap(src: Source, op: WrapBody) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        path, fn = function(module, op.function, offset)
        doc, rest, shared = _split(fn)
        if not rest:  # `__body__` would stand for nothing: the template's block would be left empty
            raise MatchFailure(
                f"{op.function}() has no statements to wrap: its body is only a docstring",
                "wrap_body moves the statements after the docstring into the template; to give the function "
                "code, use insert_after with `find` its docstring",
            )
        template = cst.parse_module(textwrap.dedent(op.with_).strip("\n") + "\n")
        problem = hole_problem(op.with_)
        steps = _locate(template)
        holder = _follow(template, steps) if steps is not None and problem is None else None
        if holder is None or steps is None:
            raise MatchFailure(problem or f"the template has no line `{BODY}` standing for the body", "fix `with`")
        name, i = steps[-1]
        assert i is not None
        items = list(getattr(holder[-1], name))
        filled = replace_on_path(holder, holder[-1].with_changes(**{name: [*items[:i], *rest, *items[i + 1 :]]}))
        assert isinstance(filled, cst.Module)
        return replace_on_path(path, _with_statements(fn, doc, list(filled.body), shared))

    return in_scope(src, op.function, edit)


def unwrap(src: Source, op: WrapBody) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        path, fn = function(module, op.function, offset)
        doc, rest, shared = _split(fn)
        template = cst.parse_module(textwrap.dedent(op.with_).strip("\n") + "\n")
        steps = _locate(template)
        if steps is None or hole_problem(op.with_):
            raise MatchFailure(hole_problem(op.with_) or f"the template has no line `{BODY}`", "fix `with`")
        current = cst.Module(body=rest)  # type: ignore[arg-type]
        holder = _follow(current, steps)
        t_holder = _follow(template, steps)
        assert t_holder is not None
        name, i = steps[-1]
        assert i is not None
        if holder is None or not isinstance(getattr(holder[-1], name, None), (list, tuple)):
            raise NotUndoable(f"the body of {op.function}() is not wrapped in the template")
        items = list(getattr(holder[-1], name))
        n = len(items) - (len(getattr(t_holder[-1], name)) - 1)
        inner = items[i : i + n]
        hole = cst.parse_statement(f"{BODY}\n")
        emptied = replace_on_path(holder, holder[-1].with_changes(**{name: [*items[:i], hole, *items[i + n :]]}))
        if n < 1 or not isinstance(emptied, cst.Module) or _ast(emptied) != _ast(template):
            raise NotUndoable(
                f"the body of {op.function}() is not wrapped in the template (the code around `{BODY}` differs)"
            )
        return replace_on_path(path, _with_statements(fn, doc, list(inner), shared))

    return in_scope(src, op.function, edit)


def _body_key(module: cst.Module, stmts: Sequence[cst.BaseStatement]) -> str:
    return ast.dump(ast.parse(textwrap.dedent("".join(code_of(module, s) for s in stmts))))


def replace_body(src: Source, op: ReplaceBody, undo: bool) -> Source:
    old, new = (op.with_, op.find) if undo else (op.find, op.with_)

    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        path, fn = function(module, op.function, offset)
        doc, rest, shared = _split(fn)
        if _body_key(module, rest) != ast.dump(ast.parse(textwrap.dedent(old))):
            raise (NotUndoable if undo else NotFound)(
                f"the body of {op.function}() (docstring aside) is not {'the replacement' if undo else '`find`'}"
            )
        stmts = _statements(new)
        if rest:
            stmts[0] = stmts[0].with_changes(leading_lines=rest[0].leading_lines)  # type: ignore[attr-defined]
        return replace_on_path(path, _with_statements(fn, doc, stmts, shared))

    return in_scope(src, op.function, edit)
