"""The walks keep each node's children (issue 22, the fast tier's time: libcst's `children` rebuilds
the node on every call; rewrite.tree keeps them for the last few trees walked) and a rewrite's scope
keeps the last few small texts' trees (rewrite.ops.common.parse_top): what they find must not change.

Generated: module (one of radpatch's own, two small vLLM files) x walk (every node, the blocks, the
expressions of a kind, the statement slots; after the other walks of the same tree) x how many other
trees are walked in between (none: answered from the kept children; more than are kept: emptied and
filled again). The oracle for every node is libcst's own visitor (its pre-order, nested definitions
entered only as nodes); for the others, the same walk on a tree parsed afresh from the same text,
compared by code."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import libcst as cst
import pytest

from radpatch.rewrite import tree
from radpatch.rewrite.ops.common import parse_top
from tests.lib import REPO
from tests.lib.generated import sample

FILES = [
    "radpatch/rewrite/tree.py",
    "tests/fixtures/vllm/0.33.0/vllm/reasoning/__init__.py",
    "tests/fixtures/vllm/0.33.0/vllm/tool_parsers/step3_tool_parser.py",
]
WALKS: dict[str, Callable[[tree.Path_], Iterator[object]]] = {
    "every node": lambda p: tree.walk(p, lambda n: True),
    "blocks": tree.blocks,
    "calls": lambda p: tree.nodes_of(p, cst.Call),
    "names": lambda p: tree.nodes_of(p, cst.Name),
    "strings": lambda p: tree.nodes_of(p, cst.SimpleString),
    "slots": lambda p: ((b, i) for b, i in tree.statement_slots(p)),
}
BETWEEN = (0, 1, 9)  # other trees walked between two walks of one tree (9: more than are kept)
CASES = sample([(f, w, b) for f in FILES for w in WALKS for b in BETWEEN])


class _Preorder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.seen: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.seen.append(node)
        return not isinstance(node, tree.DEFS)


def _code(module: cst.Module, found: object, walk: str) -> str:
    """A walk's answer as text: each path's last node's code (its type and depth for every node; the
    visitor checks their identity), or each slot's statement and index."""
    if isinstance(found, tuple) and len(found) == 2 and isinstance(found[1], int):
        block, i = found
        return f"{i}:{module.code_for_node(tree.block_body(block[-1])[i])}"
    assert isinstance(found, tuple)
    if walk == "every node":
        return f"{len(found)}:{type(found[-1]).__name__}"
    return module.code_for_node(found[-1])


def _scopes(module: cst.Module) -> list[tree.Path_]:
    """The module and each of its top-level definitions, as paths."""
    return [(module,), *((module, s) for s in module.body if isinstance(s, tree.DEFS))]


@pytest.mark.parametrize(("file", "walk", "between"), CASES)
def test_walks_with_children_kept_find_what_a_fresh_tree_does(file: str, walk: str, between: int) -> None:
    text = Path(REPO, file).read_text(encoding="utf-8")
    module = cst.parse_module(text)
    others = [cst.parse_module(f"def f{i}(a):\n    return g(a, {i})\n") for i in range(between)]
    fresh_module = cst.parse_module(text)
    for scope, fresh_scope in zip(_scopes(module), _scopes(fresh_module)):
        for each in WALKS.values():  # the other walks first: each keeps what it reads of the tree
            list(each(scope))
        first = [_code(module, x, walk) for x in WALKS[walk](scope)]
        for other in others:
            list(tree.walk((other,), lambda n: True))
        again = [_code(module, x, walk) for x in WALKS[walk](scope)]
        fresh = [_code(fresh_module, x, walk) for x in WALKS[walk](fresh_scope)]
        assert first == again == fresh, (file, module.code_for_node(scope[-1])[:80])
    if walk == "every node":  # the order and identity of every node, against libcst's own visitor
        oracle = _Preorder()
        module.visit(oracle)
        assert [p[-1] for p in tree.walk((module,), lambda n: True)] == oracle.seen[1:]


@pytest.mark.parametrize("file", FILES)
def test_a_kept_tree_is_the_tree_its_text_parses_to(file: str) -> None:
    text = Path(REPO, file).read_text(encoding="utf-8")
    for piece in (text, *(f"def f{i}():\n    return {i}\n" for i in range(6)), text):
        kept = parse_top(piece)
        assert kept.code == piece and kept.deep_equals(cst.parse_module(piece))
