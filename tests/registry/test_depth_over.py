"""registry.code.depth_over, which every registry load runs on each payload and each piece of code, says
exactly whether a tree nests deeper than the limit: generated trees (chains of terms, nested
brackets, calls, blocks and definitions, real modules) at limits around their depth, against the
depth counted by plain recursion."""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
import types

import pytest

from radpatch.registry import code
from radpatch.registry.code import depth_over
from radpatch.rewrite import matching, source
from tests.lib.generated import sample


def depth(node: ast.AST) -> int:
    """The reference: nodes on the longest path from `node` down, counted by recursion."""
    return 1 + max((depth(child) for child in ast.iter_child_nodes(node)), default=0)


def block(n: int) -> str:
    lines = [f"{'    ' * i}if x{i}:" for i in range(n)]
    return "\n".join(lines) + "\n" + "    " * n + "pass\n"


SHAPES = {
    "chain": lambda n: "x = " + "1 + " * n + "1\n",
    "brackets": lambda n: "x = " + "[" * n + "1" + "]" * n + "\n",
    "calls": lambda n: "x = " + "f(" * n + "1" + ")" * n + "\n",
    "attributes": lambda n: "x = a" + ".b" * n + "\n",
    "blocks": block,
    "defs": lambda n: "".join(f"{'    ' * i}def f{i}():\n" for i in range(n)) + "    " * n + "pass\n",
    "empty": lambda n: "",
}
SIZES = (0, 1, 7, 30, 60, 90)
CASES = sample(itertools.product(SHAPES, SIZES))


@pytest.mark.parametrize(("shape", "size"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_over_exactly_when_the_tree_is_deeper_than_the_limit(shape: str, size: int) -> None:
    tree = ast.parse(SHAPES[shape](size))
    deep = depth(tree)
    for limit in {0, 1, 2, deep - 1, deep, deep + 1, code.MAX_DEPTH}:
        if limit >= 0:
            assert depth_over(tree, limit) == (deep > limit), (shape, size, limit, deep)


@pytest.mark.parametrize("module", [source, matching, textwrap], ids=lambda m: m.__name__)
def test_real_modules_at_every_limit_around_their_depth(module: types.ModuleType) -> None:
    tree = ast.parse(inspect.getsource(module))
    deep = depth(tree)
    assert deep > 5
    for limit in range(deep - 3, deep + 3):
        assert depth_over(tree, limit) == (deep > limit)
