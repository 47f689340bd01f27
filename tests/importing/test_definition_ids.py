"""Issue 20 (att20 F4): an imported `insert_definitions` (and its payload file) is named by the first
definition it adds, as a person names it, not by its anchor. ServerlessLLM's patch adds
`save_serverless_llm_state` after each class's `save_sharded_state`: the rewrite read
`id: define-EngineCore.save_sharded_state` (payload `define-EngineCore.save_sharded_state.py`),
which says the opposite of what it does. Generated: module or class (nested too) x the anchor
before or after x one or two definitions."""

from __future__ import annotations

import itertools

import pytest

from radpatch.importing import emit
from radpatch.importing.rewrites import rewrites

SCOPES = {  # the text around the definitions, `@` where they go, and the qualified prefix of their names
    "module": ("def first():\n    return 1\n@\n\ndef last():\n    return 2\n", ""),
    "class": (
        "class Engine:\n    def first(self):\n        return 1\n@\n    def last(self):\n        return 2\n",
        "Engine.",
    ),
    "nested-class": (
        "class Outer:\n    class Engine:\n        def first(self):\n            return 1\n@\n"
        "        def last(self):\n            return 2\n",
        "Outer.Engine.",
    ),
}
COUNTS = (1, 2)


def _added(scope: str, count: int) -> str:
    indent = {"module": "", "class": "    ", "nested-class": "        "}[scope]
    gap = "\n\n" if scope == "module" else "\n"
    self = "" if scope == "module" else "self"
    return "".join(f"{gap}{indent}def save_state_{k}({self}):\n{indent}    return {k}\n" for k in range(count))


@pytest.mark.parametrize(("scope", "count"), list(itertools.product(sorted(SCOPES), COUNTS)))
def test_insert_definitions_is_named_by_what_it_defines(scope: str, count: int) -> None:
    around, prefix = SCOPES[scope]
    before, after = around.replace("@", ""), around.replace("@", _added(scope, count))
    steps = [s for s in rewrites(before, after).steps if s.op == "insert_definitions"]
    assert len(steps) == 1, rewrites(before, after).steps
    assert emit._id(steps[0], {}, "m") == f"define-{prefix}save_state_0"
