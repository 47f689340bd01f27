"""A call another entry writes is read back from the syntax tree the registry text keeps
(`registry.touch.code_trees`, `prove.overlaps.call_written._undump`). A written call whose arguments
held an f-string (its `conversion=-1`) or a float overflowing to `inf` did not read back: no call was
seen, and two entries that change the same call applied in either order with no overlap reported,
each order installing other code (att45 #4).

Generated over the form of one argument of the written call. Oracles: Python's `ast` (what is read
back dumps exactly as the registry's dump), and the rewrite runner applying both entries on the
module in both orders (tests.lib.overlaps.orders_differ): where the orders differ, the overlap rules
report the pair from the registry text alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.prove.overlaps import pairs
from radpatch.prove.overlaps.call_written import _undump
from radpatch.registry.touch import code_trees
from tests.lib.generated import sample
from tests.lib.overlaps import orders_differ, write

FORMS = (
    '"h"',
    'f"{parser}"',
    'f"{parser!r}"',
    'f"{parser!s:>10}"',
    'f"{parser:{width}}"',
    'f"a{parser!a}b"',
    "1e999",
    "-1e999",
    "-1",
    "1j",
    "...",
    'b"x"',
    "None",
    "[*parts]",
)
SRC = (
    "def setup(parser, width, parts):\n"
    '    parser.description = "d"\n'
    '    parser.add_argument("--x", choices=["a", "b"])\n'
)
ADD = (
    "  - id: a\n    add_element: {scope: setup, call: parser.add_argument, keyword: choices, occurrence: 1, "
    "element: '\"c\"'}\n"
)
INSERT = (
    "  - id: b\n    insert_after: {{scope: setup, find: 'parser.description = \"d\"', "
    'code: \'parser.add_argument("--y", choices=["p"], help={form})\'}}\n'
)


@pytest.mark.parametrize("form", sample(FORMS))
def test_a_written_call_reads_back_as_python_parses_it(form: str) -> None:
    dumped = code_trees(f'parser.add_argument("--y", help={form})')
    back = _undump(dumped)
    assert back and ast.dump(back[0]) == dumped  # type: ignore[arg-type]


@pytest.mark.parametrize("form", sample(FORMS))
@pytest.mark.parametrize("flip", [False, True])
def test_two_entries_on_a_written_call_are_reported_whatever_its_arguments(
    tmp_path: Path, form: str, flip: bool
) -> None:
    a = write(tmp_path, "a", ADD)
    b = write(tmp_path, "b", INSERT.format(form=form.replace("'", "''")))
    assert orders_differ(a, b, SRC)  # "c" lands in --y's choices one way, in --x's the other
    found = pairs.find([b, a] if flip else [a, b], [Version("1.0")])
    assert found and all({o.first, o.second} == {"a", "b"} and not o.ordered for o in found), found
