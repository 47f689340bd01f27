"""Placement's shadowing rule and exclusive branches (att20 F1): a def or class the patch adds
under a name the module binds in a branch that never runs with the added one's (if/elif/else, a
try and its fallback handlers, match cases, a stable version guard and its negation) replaces
nothing, so it is no clash; one both may run with (in sequence, a loop's iterations, a try's body
and its else or finally, a test that calls or reads a rebound name) still is.

Generated: every shape x every kind of the existing binding x every kind of the added one."""

from __future__ import annotations

import ast
import itertools
import textwrap

import pytest

from radpatch.prove import placement
from tests.lib.generated import sample

HEADER = "import sys\ncond = 1\nother = 2\n\n\ndef flag():\n    return 1\n\n\n"

EXCLUSIVE = {
    "if-else": "if cond:\n    {A}\nelse:\n    {B}\n",
    "if-elif": "if cond:\n    {A}\nelif other:\n    {B}\n",
    "elif-else": "if cond:\n    pass\nelif other:\n    {A}\nelse:\n    {B}\n",
    "try-handler": "try:\n    {A}\nexcept ImportError:\n    {B}\n",
    "two-handlers": "try:\n    pass\nexcept ImportError:\n    {A}\nexcept OSError:\n    {B}\n",
    "handler-try-else": "try:\n    pass\nexcept ImportError:\n    {A}\nelse:\n    {B}\n",
    "version-guard": "if sys.version_info >= (3, 8):\n    {A}\nif sys.version_info < (3, 8):\n    {B}\n",
    "version-guard-not": "if sys.version_info >= (3, 8):\n    {A}\n\nif not sys.version_info >= (3, 8):\n    {B}\n",
    "platform-guard": "if sys.platform == 'win32':\n    {A}\nif sys.platform != 'win32':\n    {B}\n",
    "match-cases": "match cond:\n    case 1:\n        {A}\n    case _:\n        {B}\n",
}

BOTH_RUN = {
    "sequence": "{A}\n{B}\n",
    "if-then-after": "if cond:\n    {A}\n{B}\n",
    "try-body-else": "try:\n    {A}\nexcept ImportError:\n    pass\nelse:\n    {B}\n",
    "try-finally": "try:\n    {A}\nfinally:\n    {B}\n",
    "in-a-loop": "for cond in range(2):\n    if cond:\n        {A}\n    else:\n        {B}\n",
    "loop-else": "for i in ():\n    {A}\nelse:\n    {B}\n",
    "calling-guard": "if flag():\n    {A}\nif not flag():\n    {B}\n",
    "rebound-guard": "if cond >= 1:\n    {A}\nif cond < 1:\n    {B}\n",
    "other-guard": "if sys.version_info >= (3, 8):\n    {A}\nif sys.version_info < (3, 9):\n    {B}\n",
}

EXISTING = {
    "def": "def f():\n    return 1",
    "class": "class f:\n    pass",
    "import": "from os import sep as f",
    "assignment": "f = 1",
}
ADDED = {"def": "def f():\n    return 2", "class": "class f:\n    x = 2"}


def _fill(shape: str, a: str, b: str) -> str:
    def slot(text: str, key: str) -> str:
        line = next(x for x in shape.splitlines() if "{" + key + "}" in x)
        indent = line[: len(line) - len(line.lstrip())]
        return textwrap.indent(text, indent)[len(indent) :]

    return HEADER + shape.replace("{A}", slot(a, "A")).replace("{B}", slot(b, "B"))


def _found(shape: str, existing: str, added: str) -> list[str]:
    before, after = _fill(shape, existing, "pass"), _fill(shape, existing, added)
    return placement.shadowed(placement.placement(ast.parse(before)), placement.placement(ast.parse(after)))


@pytest.mark.parametrize(("shape", "existing", "added"), sample(itertools.product(EXCLUSIVE, EXISTING, ADDED)))
def test_a_definition_in_an_exclusive_branch_replaces_nothing(shape: str, existing: str, added: str) -> None:
    assert _found(EXCLUSIVE[shape], EXISTING[existing], ADDED[added]) == []


@pytest.mark.parametrize(("shape", "existing", "added"), sample(itertools.product(BOTH_RUN, EXISTING, ADDED)))
def test_a_definition_where_both_may_run_is_still_a_clash(shape: str, existing: str, added: str) -> None:
    (why,) = _found(BOTH_RUN[shape], EXISTING[existing], ADDED[added])
    assert f"{added} `f` it adds would share its name with the {existing} `f`" in why, why


def test_a_new_if_branch_before_an_if_else_that_always_rebinds_is_a_clash() -> None:
    """att20's r2: `if win32: def pick` added before `if version: def pick / else: def pick`; on
    win32 the if/else always runs after it and replaces it, so the added def never is the one called."""
    pick = "    def pick(x):\n        return x + 1\n"
    before = f"import sys\n\nif sys.version_info >= (3, 8):\n{pick}else:\n{pick}"
    after = f"import sys\n\nif sys.platform == 'win32':\n{pick}\n" + before[len("import sys\n\n") :]
    added_as_elif = before.replace("else:", f"elif sys.platform == 'win32':\n{pick}else:")
    (why,) = placement.shadowed(placement.placement(ast.parse(before)), placement.placement(ast.parse(after)))
    assert "lines 4 and 8 and 11" in why, why
    assert (
        placement.shadowed(placement.placement(ast.parse(before)), placement.placement(ast.parse(added_as_elif))) == []
    )
