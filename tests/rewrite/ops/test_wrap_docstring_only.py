"""wrap_body on a function whose body is only a docstring: `__body__` would stand for no statement,
so the template's block would be empty. It is refused with that reason (not as a failed undo), and
the hint's way (insert_after with `find` the docstring) does give the function code.

Generated: functions, methods, nested and async defs; one-line, triple-quoted, concatenated, raw
and comment-followed docstrings; templates of each block kind.
"""

from __future__ import annotations

import ast
import itertools
import textwrap
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.wrap_body import WrapBody
from tests.lib.generated import sample
from tests.lib.rewrites import check, patch_of, refusal

DOCS = ['"""Doc."""', "'doc'", '"""Multi\nline."""', '"a" "b"', '"""Doc."""  # note', "r'raw'"]
HOLDERS = {  # (the def's enclosing lines, its indent, its qualified name)
    "function": ("", 0, "f"),
    "method": ("class C:\n", 4, "C.f"),
    "nested-class": ("class C:\n    class D:\n", 8, "C.D.f"),
    "async": ("", 0, "f"),
}
TEMPLATES = [
    "try:\n    __body__\nfinally:\n    print('x')",
    "with open('x'):\n    __body__",
    "if True:\n    __body__",
    "for _ in range(1):\n    __body__",
]


def module(holder: str, doc: str, extra: str = "") -> str:
    head, width, _ = HOLDERS[holder]
    pad = " " * width
    kw = "async def" if holder == "async" else "def"
    lines = doc.splitlines()
    body = f"{pad}    {lines[0]}\n" + "".join(f"{x}\n" for x in lines[1:])  # continuation lines as written
    return f"{head}{pad}{kw} f(self=None):\n{body}" + (f"{pad}    {extra}\n" if extra else "")


def refused(src: str, op: WrapBody) -> str | None:
    patch = patch_of(op)
    try:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), src.encode())
    except RefusedError as exc:
        return exc.message
    return None


@pytest.mark.parametrize(("holder", "doc", "template"), sample(itertools.product(HOLDERS, DOCS, TEMPLATES)))
def test_wrapping_a_docstring_only_body_is_refused_with_its_reason(holder: str, doc: str, template: str) -> None:
    qual = HOLDERS[holder][2]
    src = module(holder, doc)
    said = refusal(src, WrapBody(qual, template))
    assert f"{qual}() has no statements to wrap: its body is only a docstring" in said, said
    # one statement after the docstring: the same wrap applies (the refusal is about the empty body)
    assert refused(module(holder, doc, "return 1"), WrapBody(qual, template)) is None


@pytest.mark.parametrize(("holder", "doc"), sample(itertools.product(HOLDERS, DOCS)))
def test_the_hints_way_gives_a_docstring_only_function_code(holder: str, doc: str) -> None:
    src = module(holder, doc)
    fn = next(n for n in ast.walk(ast.parse(src)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    docstring = ast.get_source_segment(src, fn.body[0])
    assert docstring is not None
    qual = HOLDERS[holder][2]
    check(src, InsertStatements(qual, textwrap.dedent(docstring), "return 5", "after"), module(holder, doc, "return 5"))
