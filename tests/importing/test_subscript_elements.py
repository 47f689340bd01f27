"""Issue 20 (att20 F1): a diff that changes the elements of a subscript written without parentheses
(`Literal["auto", ..., "tensorizer"]` gaining `"serverless_llm"`, ServerlessLLM's patch of vLLM
0.11.2's model_loader/__init__.py; `g[a, b]` -> `g[a, c]`) imported the elements' tuple as the
expression to replace. That tuple is no expression of its own (libcst holds a subscript's elements
as a list), so apply refused the entry: a one-line `find: a, b` was "part of `g[a, b]` but not an
expression of its own", a multi-line one (`"a",` / `"b",`) read as two statements, "not found".
The replace is of the subscript now. Generated: where the subscript stands x what changes x its
layout, each imported, applied as GNU patch gives, checked and reverted."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch, imported_as_gnu_patch_gives

PLACES = {  # where the subscript stands: the module's text around `@` (the subscript)
    "module-assignment": "from typing import Literal\n\nFormats = @\n",
    "return": "def pick(g, a, b, c):\n    return @\n",
    "call-argument": "def pick(g, a, b, c):\n    return len(@)\n",
    "keyword-argument": "def pick(f, g, a, b, c):\n    return f(kind=@)\n",
    "method": "class Loader:\n    def pick(self, g, a, b, c):\n        x = @\n        return x\n",
}
NAMES = {  # the subscripted value and its elements before the change, per place
    "module-assignment": ("Literal", ['"auto"', '"dummy"', '"pt"']),
    "return": ("g", ["a", "b"]),
    "call-argument": ("g", ["a", "b"]),
    "keyword-argument": ("g", ["a", "b"]),
    "method": ("g", ["a", "b"]),
}
EDITS = ("added", "removed", "changed")
LAYOUTS = ("one-line", "one-per-line")


def _subscript(value: str, elements: list[str], layout: str, indent: str) -> str:
    if layout == "one-line":
        return f"{value}[{', '.join(elements)}]"
    rows = "".join(f"{indent}    {e},\n" for e in elements)
    return f"{value}[\n{rows}{indent}]"


def _edited(elements: list[str], edit: str) -> list[str]:
    if edit == "added":
        return [*elements, '"serverless_llm"' if elements[0].startswith('"') else "c"]
    if edit == "removed":
        return elements[:-1]
    return [*elements[:-1], '"npcache"' if elements[0].startswith('"') else "b + 1"]


def case(place: str, edit: str, layout: str) -> tuple[str, str]:
    around = PLACES[place]
    line = next(ln for ln in around.splitlines() if "@" in ln)
    indent = line[: len(line) - len(line.lstrip())]
    value, elements = NAMES[place]
    before = around.replace("@", _subscript(value, elements, layout, indent))
    after = around.replace("@", _subscript(value, _edited(elements, edit), layout, indent))
    return before, after


CASES = sample(list(itertools.product(sorted(PLACES), EDITS, LAYOUTS)))


def _finds(before: str, after: str) -> list[str]:
    found = rewrites(before, after)
    out = []
    for s in found.steps:
        keys = dict(s.keys)
        out += [str(keys[k]) for k in ("find", "from") if k in keys]
    return out


@pytest.mark.parametrize(("place", "edit", "layout"), CASES)
def test_the_find_is_one_expression_never_the_subscripts_element_list(place: str, edit: str, layout: str) -> None:
    """As data: every `find` (or `from`) the import writes parses as one expression, and is no bare
    tuple of the subscript's elements."""
    before, after = case(place, edit, layout)
    finds = _finds(before, after)
    assert finds, (before, after)
    for text in finds:
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            tree = None
        assert tree is not None and not isinstance(tree.body, ast.Tuple), (text, before, after)


@pytest.mark.wheel
def test_subscript_element_edits_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    """Against the oracle: each case imported by its own `radpatch import`, applied by the engine,
    AST-equal to GNU patch's result, `status --check` 0, reverted to the installed bytes."""
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)


@pytest.mark.wheel
def test_serverless_llm_load_formats_shape(tmp_path: Path) -> None:
    """The real patch's shape: a module-level `Literal[...]` one element a line, an element added last."""
    before = 'from typing import Literal\n\nLoadFormats = Literal[\n    "auto",\n    "tensorizer",\n]\n_X = {}\n'
    after = before.replace('    "tensorizer",\n', '    "tensorizer",\n    "serverless_llm",\n')
    entry = imported_as_gnu_patch_gives(tmp_path, before, after)
    assert "serverless_llm" in str(entry["rewrites"])
