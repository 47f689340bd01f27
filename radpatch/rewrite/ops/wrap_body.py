"""wrap_body: run a function's body inside new code.

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

from radpatch import source_lines
from radpatch.registry.model import Fail, Field, Operation
from radpatch.registry.touch import Touch
from radpatch.rewrite.lazy import load
from radpatch.rewrite.source import Source

if TYPE_CHECKING:
    import libcst as cst

    from radpatch.rewrite.matching import MatchFailure, NotUndoable, replace_on_path
    from radpatch.rewrite.ops.common import in_scope
    from radpatch.rewrite.ops.common.function_body import split_body, with_statements
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
    lines = source_lines.split(text)
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


Step = tuple[str, int | None]


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
        doc, rest, shared = split_body(fn)
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
        return replace_on_path(path, with_statements(fn, doc, list(filled.body), shared))

    return in_scope(src, op.function, edit)


def unwrap(src: Source, op: WrapBody) -> Source:
    def edit(module: cst.Module, offset: int) -> cst.CSTNode:
        path, fn = function(module, op.function, offset)
        doc, rest, shared = split_body(fn)
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
        return replace_on_path(path, with_statements(fn, doc, list(inner), shared))

    return in_scope(src, op.function, edit)
