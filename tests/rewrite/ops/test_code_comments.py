"""The comments a rewrite's code carries are written with it and undone with it (issue 20): comment
lines that open an insertion's `code`, a payload definition's own comment lines, the comment lines
above and after a statement a `replace` changes. Generated over positions and kinds; check proves
forward, then inverse back to the original bytes, then forward again to the same bytes."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from tests.lib.generated import sample
from tests.lib.rewrites import check

HEADERS = {"none": "", "spdx": "# SPDX-License-Identifier: Apache-2.0\n# Copyright the toy project\n"}
COMMENTS = {"one": ["# why: upstream 123"], "two": ["# why", "# (twice)"], "gap": ["# why", "", "# and how"]}
BODY = "import os\nLIMIT = 8\n\n\ndef f(x):\n    y = x\n    return y\n"


def _lines(comments: list[str], indent: str = "") -> str:
    return "".join(f"{indent}{c}\n" if c else "\n" for c in comments)


@pytest.mark.parametrize(
    ("header", "comments", "where", "anchor"),
    sample(itertools.product(HEADERS, COMMENTS, ("before", "after"), ("import os", "LIMIT = 8", "y = x"))),
)
def test_comment_lines_opening_inserted_code_are_written_and_undone(
    header: str, comments: str, where: str, anchor: str
) -> None:
    """Above a module's first statement (below its header comments, which libcst reads as the
    module header on re-reading), between module statements, in a function."""
    lines = COMMENTS[comments]
    scope = "f" if anchor == "y = x" else "<module>"
    indent = "    " if scope == "f" else ""
    code = _lines(lines) + "z = 1\n"
    before = HEADERS[header] + BODY
    new = _lines(lines, indent) + f"{indent}z = 1\n"
    at = f"{indent}{anchor}\n"
    after = before.replace(at, new + at if where == "before" else at + new, 1)
    check(before, InsertStatements(scope, anchor, code, where), after)  # type: ignore[arg-type]


@pytest.mark.parametrize("header", sorted(HEADERS))
@pytest.mark.parametrize("comments", sorted(COMMENTS))
def test_a_payload_definitions_own_comment_lines_go_with_it(header: str, comments: str) -> None:
    lines = [c for c in COMMENTS[comments] if c]  # the comment block right above the def
    payload = f'"""Payload."""\n\n\n{_lines(lines)}def g(x):\n    return x // 2\n'
    before = HEADERS[header] + BODY
    after = before + f"\n\n{_lines(lines)}def g(x):\n    return x // 2\n"
    check(before, InsertDefinitions(Path("p.py"), payload.encode(), ("g",), "f", "after"), after)


@pytest.mark.parametrize("scope", ["<module>", "f"])
@pytest.mark.parametrize("comments", sorted(COMMENTS))
def test_a_replace_of_one_statement_writes_the_comment_lines_of_with(scope: str, comments: str) -> None:
    find, indent = ("LIMIT = 8", "") if scope == "<module>" else ("y = x", "    ")
    with_ = _lines(COMMENTS[comments]) + find.replace("8", "16").replace("x", "x + 1")
    before = BODY
    changed = find.replace("8", "16").replace("x", "x + 1")
    after = before.replace(f"{indent}{find}\n", _lines(COMMENTS[comments], indent) + f"{indent}{changed}\n", 1)
    check(before, Replace(scope, find, with_), after)


@pytest.mark.parametrize("scope", ["<module>", "f"])
@pytest.mark.parametrize("old", ["", "  # old"])
def test_a_replace_writes_the_comment_after_the_statement_with_says(scope: str, old: str) -> None:
    find, indent = ("LIMIT = 8", "") if scope == "<module>" else ("y = x", "    ")
    changed = find.replace("8", "16").replace("x", "x + 1")
    before = BODY.replace(f"{indent}{find}\n", f"{indent}{find}{old}\n")
    after = before.replace(f"{indent}{find}{old}\n", f"{indent}{changed}  # doubled\n")
    check(before, Replace(scope, find, f"{changed}  # doubled"), after, exact=not old)


def test_the_comment_lines_find_names_are_replaced_by_those_of_with() -> None:
    before = "def f(x):\n    # old why\n    y = x\n    return y\n"
    check(
        before,
        Replace("f", "# old why\ny = x", "# new why\ny = x + 1"),
        "def f(x):\n    # new why\n    y = x + 1\n    return y\n",
    )


def test_a_blank_line_in_with_is_written_empty_inside_a_block() -> None:
    check(
        BODY,
        Replace("f", "y = x", "y = x\n\n# then\nz = y"),
        BODY.replace("    y = x\n", "    y = x\n\n    # then\n    z = y\n"),
    )


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_payload_comment_goes_with_its_definition_at_the_top_of_a_module(where: str) -> None:
    """Before a module's first statement the definitions go at the top, each followed by two
    blank lines; the comment lines go with theirs either way."""
    payload = b'"""Payload."""\n\n\n# why g\ndef g(x):\n    return x // 2\n'
    before = "def f(x):\n    return x\n"
    new = "# why g\ndef g(x):\n    return x // 2\n"
    after = new + "\n\n" + before if where == "before" else before + "\n\n" + new
    check(before, InsertDefinitions(Path("p.py"), payload, ("g",), "f", where), after)  # type: ignore[arg-type]


@pytest.mark.parametrize(("anchor", "where"), [("C", "into"), ("C.a", "before"), ("C.a", "after")])
def test_a_payload_comment_goes_with_its_method_into_a_class(anchor: str, where: str) -> None:
    payload = b'"""Payload."""\n\n\n# why g\n# (twice)\ndef g(self):\n    return 2\n'
    before = "class C:\n    def a(self):\n        return 1\n"
    new = "    # why g\n    # (twice)\n    def g(self):\n        return 2\n"
    after = f"class C:\n{new}\n    def a(self):\n        return 1\n" if where == "before" else before + "\n" + new
    check(before, InsertDefinitions(Path("p.py"), payload, ("g",), anchor, where), after)  # type: ignore[arg-type]
