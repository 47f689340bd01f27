"""A class header written over several lines (`class A(\n    B,\n):`) whose bases or class keywords
change was imported as a `replace` of the whole class ("signature change no operation
expresses"): now one `set_bases`, its `from:`/`to:` the header as the file writes it over its lines,
as for a one-line header (test_class_bases_import.py).

Generated: the bases before and after (one base, two, a metaclass) x module level or nested in a
class x the header's layout (one argument per line with a trailing comma, without one, a comment
on an argument's line, the arguments on the class line and the next) x the body changed too or
not. As data, one set_bases step and no replace of the class; the steps run by the engine give
the bytes GNU patch gives for the diff and undo to the installed bytes; and the batch through
`radpatch import`, apply, `status --check` and revert against GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_bases import SetBases
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check

ARGS = (("B",), ("B", "C"), ("B", "metaclass=M"))
PAIRS = [(x, y) for x, y in itertools.product(ARGS, ARGS) if x != y]
LAYOUTS = ("trailing", "bare", "commented", "hanging")
CASES = sample(list(itertools.product(PAIRS, (False, True), LAYOUTS, (False, True))))


def header(args: tuple[str, ...], layout: str, pad: str) -> str:
    """`A(...)` as the class line and the lines after it write it."""
    if layout == "hanging":
        return "A(" + f",\n{pad}        ".join(args) + ")"
    rows = [
        f"{pad}    {a}{'' if layout == 'bare' and n == len(args) - 1 else ','}"
        + ("  # base" if layout == "commented" and n == 0 else "")
        for n, a in enumerate(args)
    ]
    return "A(\n" + "\n".join(rows) + f"\n{pad})"


def module(args: tuple[str, ...], nested: bool, layout: str, body: str) -> str:
    pad = "    " if nested else ""
    head = "".join(f"class {n}:\n    pass\n\n\n" for n in ("M(type)", "B", "C"))
    outer = "class K:\n    y = 0\n\n" if nested else ""
    return head + outer + f"{pad}class {header(args, layout, pad)}:\n{pad}    x = {body}\n"


def case(pair: tuple[tuple[str, ...], tuple[str, ...]], nested: bool, layout: str, body: bool) -> tuple[str, str]:
    return module(pair[0], nested, layout, "1"), module(pair[1], nested, layout, "2" if body else "1")


@pytest.mark.parametrize(("pair", "nested", "layout", "body"), CASES)
def test_a_tall_class_header_change_is_one_set_bases(
    pair: tuple[tuple[str, ...], tuple[str, ...]], nested: bool, layout: str, body: bool
) -> None:
    before, after = case(pair, nested, layout, body)
    found = rewrites(before, after)
    scope = "K.A" if nested else "A"
    old, new = header(pair[0], layout, ""), header(pair[1], layout, "")  # at the class's own indentation
    assert [(s.op, dict(s.keys)) for s in found.steps][:1] == [("set_bases", {"scope": scope, "from": old, "to": new})]
    assert [s.op for s in found.steps[1:]] == (["replace"] if body else []), found.steps
    ops = [SetBases(scope, old, new)]
    if body:
        ops.append(Replace(scope, "x = 1\n", "x = 2\n"))
    check(before, tuple(ops), after)  # the bytes GNU patch gives for the diff, and back


@pytest.mark.wheel
def test_tall_class_header_changes_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)
