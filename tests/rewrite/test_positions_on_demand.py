"""Positions on demand (issue 22, the fast tier's time): a node's line costs a codegen pass of its module
(matching.starts), about half of the time of the twin-calls import family.

Generated: operation (set_item added, changed, taken away; set_element added, taken away; set_keyword
added, changed, taken away) x scope (the module, a function, a method) x layout (one line, one item a
line with comments, under a decorator and blank lines). An edit that succeeds, and its inverse, work out
no position at all; the refusal that names the line still names the right one (the oracle: Python's
`ast` line of the statement or call). And matching's position pass gives what libcst's own
MetadataWrapper.resolve(PositionProvider) gives (the oracle), on radpatch.rewrite's modules and these."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from radpatch.rewrite import matching
from radpatch.rewrite.matching import MatchFailure
from radpatch.rewrite.ops.set_element import SetElement
from radpatch.rewrite.ops.set_item import SetItem
from radpatch.rewrite.ops.set_keyword import SetKeyword
from radpatch.rewrite.source import Source
from tests.lib.blocks import indent
from tests.lib.generated import sample

LAYOUTS = {
    "one line": ("D = {'a': 1, 'b': 2}\nL = [1, 2]\nr = g(x, a=1)\n"),
    "one a line": (
        "D = {\n    'a': 1,  # first\n    'b': 2,\n}\n"
        "L = [\n    1,\n    # between\n    2,\n]\n"
        "r = g(\n    x,\n    a=1,\n)\n"
    ),
    "decorated": (
        "\n\n@decorate\ndef other():\n    pass\n\n\n"
        "D = {'a': 1, 'b': 2}  # the dict\n\nL = [1, 2]\n\n# the call\nr = g(x, a=1)\n"
    ),
}
SCOPES = {
    "<module>": lambda body: body,
    "f": lambda body: "def f():\n" + indent(body, "    "),
    "C.m": lambda body: "class C:\n    def m(self):\n" + indent(body, "        "),
}
OPS = {
    "set_item added": lambda s: SetItem(s, "D", "'c'", value="3"),
    "set_item changed": lambda s: SetItem(s, "D", "'a'", value="10", from_="1"),
    "set_item taken away": lambda s: SetItem(s, "D", "'b'", from_="2"),
    "set_element added": lambda s: SetElement(s, "L", "3"),
    "set_element taken away": lambda s: SetElement(s, "L", "2", remove=True),
    "set_keyword added": lambda s: SetKeyword(s, "g", "b", to="2"),
    "set_keyword changed": lambda s: SetKeyword(s, "g", "a", from_="1", to="5"),
    "set_keyword taken away": lambda s: SetKeyword(s, "g", "a", from_="1"),
}
# the refusals that name a line, and the line they name: the statement binding the display, or the call
REFUSALS = {
    "set_item key there": (lambda s: SetItem(s, "D", "'a'", value="3"), ast.Assign, "D"),
    "set_element element there": (lambda s: SetElement(s, "L", "1"), ast.Assign, "L"),
    "set_keyword after no such keyword": (lambda s: SetKeyword(s, "g", "b", to="2", after="nope"), ast.Call, "g"),
}

CASES = sample(itertools.product(OPS, SCOPES, LAYOUTS))
REFUSED = sample(itertools.product(REFUSALS, SCOPES, LAYOUTS))


def _source(scope: str, layout: str) -> str:
    return SCOPES[scope](LAYOUTS[layout])


@pytest.mark.parametrize(("op", "scope", "layout"), CASES)
def test_an_edit_that_succeeds_and_its_inverse_work_out_no_position(op: str, scope: str, layout: str) -> None:
    text = _source(scope, layout)
    operation = OPS[op](scope)
    matching._STARTS.clear()
    done = operation.forward(Source.parse(text))
    undone = operation.inverse(done)
    assert ast.dump(ast.parse(undone.text)) == ast.dump(ast.parse(text))
    assert done.text != text
    assert matching._STARTS == []  # no codegen pass for positions: no message showed a line


def _line(text: str, kind: type[ast.AST], name: str) -> int:
    """Python's own line of the statement binding `name`, or of the call to `name`."""
    for node in ast.walk(ast.parse(text)):
        if kind is ast.Assign and isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return node.lineno
        if kind is ast.Call and isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == name:
                return node.lineno
    raise AssertionError(f"no {kind.__name__} of {name} in the source")


@pytest.mark.parametrize(("refusal", "scope", "layout"), REFUSED)
def test_a_refusal_still_names_the_line(refusal: str, scope: str, layout: str) -> None:
    make, kind, name = REFUSALS[refusal]
    text = _source(scope, layout)
    with pytest.raises(MatchFailure) as refused:
        make(scope).forward(Source.parse(text))
    assert f"line {_line(text, kind, name)}" in str(refused.value)


OWN = sorted(Path(matching.__file__).parent.glob("*.py"))  # radpatch/rewrite: its few modules, each a second


def _texts() -> list[object]:
    root = Path(matching.__file__).parents[2]
    own = [str(p.relative_to(root)) for p in OWN]
    made = [f"{s} / {lay}" for s, lay in itertools.product(SCOPES, LAYOUTS)]
    return [pytest.param(w, id=w) for w in sample([*own, *made])]


@pytest.mark.parametrize("where", _texts())
def test_the_position_pass_gives_what_libcsts_resolve_gives(where: str) -> None:
    if " / " in where:
        text = _source(*where.split(" / "))
    else:
        text = (Path(matching.__file__).parents[2] / where).read_text(encoding="utf-8")
    module = cst.parse_module(text)
    want = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    got = matching._positions(module)
    assert dict(got) == dict(want), where
