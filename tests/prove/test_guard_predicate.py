"""One TYPE_CHECKING guard predicate for every reader: the names walker (a name imported only under
the guard is typing-only), the reachability proof (code added under the guard never runs) and the
live-definition proof (a `def` or a store under the guard replaces nothing).

Generated: how the module spells TYPE_CHECKING (bare, `as` alias, `typing.TYPE_CHECKING`, an
alias of the module, an assigned alias, a local `TYPE_CHECKING = False`, `from typing import *`)
times how the test wraps it (`G`, `G and X`, `X and G`, `not G` with the code in the `else`, `G is True`, `G == True`,
`G is not False`, `False != G`, `bool(G)`, `G is False`, `G is not True`, and `or`/`and` with a
constant: `G or False`, `False or G`, `G and True`, `not G or False`...). Each module is run first, to
learn which branch is dead at run time; every reader must then agree with that run.
"""

from __future__ import annotations

import ast
import itertools

import pytest

from radpatch.prove import placement
from radpatch.prove.names import TYPING_ONLY, introduced
from tests.lib.generated import sample
from tests.lib.reach import unreachable

SPELLINGS = {
    "bare": ("from typing import TYPE_CHECKING\n", "TYPE_CHECKING"),
    "as-alias": ("from typing import TYPE_CHECKING as TC\n", "TC"),
    "attribute": ("import typing\n", "typing.TYPE_CHECKING"),
    "module-alias": ("import typing as t\n", "t.TYPE_CHECKING"),
    "assigned": ("import typing\nTC = typing.TYPE_CHECKING\n", "TC"),
    "local-false": ("TYPE_CHECKING = False\n", "TYPE_CHECKING"),
    "star": ("from typing import *\n", "TYPE_CHECKING"),
}
WRAPS = {  # (test, whether the dead code sits in the else)
    "plain": ("{g}", False),
    "and-after": ("{g} and X", False),
    "and-before": ("X and {g}", False),
    "not": ("not {g}", True),
    "not-or": ("not {g} or X", True),
    "is-true": ("{g} is True", False),
    "eq-true": ("{g} == True", False),
    "is-not-false": ("{g} is not False", False),
    "ne-false-reversed": ("False != {g}", False),
    "bool": ("bool({g})", False),
    "is-false": ("{g} is False", True),
    "is-not-true": ("{g} is not True", True),
    "or-false": ("{g} or False", False),
    "false-or": ("False or {g}", False),
    "or-zero-paren": ("({g} or 0)", False),
    "and-true": ("{g} and True", False),
    "true-and": ("True and {g}", False),
    "not-or-false": ("not {g} or False", True),
    "not-and-true": ("not {g} and 1", True),
}
CASES = sample(itertools.product(SPELLINGS, WRAPS))


def guarded(spelling: str, wrap: str, dead: str, live: str = "pass\n") -> str:
    """A module header and an `if` whose dead branch holds `dead` (one statement per line)."""
    head, g = SPELLINGS[spelling]
    test, in_else = WRAPS[wrap]
    ind = "".join("    " + line + "\n" for line in dead.splitlines())
    other = "".join("    " + line + "\n" for line in live.splitlines())
    branches = f"{other}else:\n{ind}" if in_else else f"{ind}else:\n{other}"
    return f"{head}X = True\nif {test.format(g=g)}:\n{branches}"


def dead_at_run_time(spelling: str, wrap: str) -> bool:
    """Run the module: is the branch `guarded` puts dead code in really never taken?"""
    ns: dict[str, object] = {}
    exec(compile(guarded(spelling, wrap, "_ran = True", "_ran = False"), "<guard>", "exec"), ns)  # noqa: S102
    return ns["_ran"] is False


@pytest.mark.parametrize(("spelling", "wrap"), CASES)
def test_names_reader_sees_the_guard(spelling: str, wrap: str) -> None:
    assert dead_at_run_time(spelling, wrap)
    before = guarded(spelling, wrap, "from decimal import Decimal") + "\n\ndef f(x):\n    return x\n"
    after = before.replace("return x\n", "return Decimal(x)\n")
    found = introduced(before, after, "m.py")
    assert [p.kind for p in found if p.name == "Decimal"] == [TYPING_ONLY], (before, found)


@pytest.mark.parametrize(("spelling", "wrap"), CASES)
def test_reachability_reader_sees_the_guard(spelling: str, wrap: str) -> None:
    assert dead_at_run_time(spelling, wrap)
    before = guarded(spelling, wrap, "from decimal import Decimal")
    after = guarded(spelling, wrap, "from decimal import Decimal\nX_EXTRA = 2")
    found = unreachable(before, after)
    assert len(found) == 1 and "never runs" in found[0], (after, found)
    # the import itself (for type checkers) is what the block is for: adding one passes
    assert unreachable(before, guarded(spelling, wrap, "from decimal import Decimal\nimport json")) == []


def _live(before: str, after: str) -> list[str]:
    return placement.dead_changes(
        placement.placement(ast.parse(before), before), placement.placement(ast.parse(after), after)
    )


@pytest.mark.parametrize(("spelling", "wrap"), CASES)
@pytest.mark.parametrize("later", ["def f():\n    return 'stub'", "f = None", "from decimal import f"])
def test_live_reader_sees_the_guard(spelling: str, wrap: str, later: str) -> None:
    """A redefinition under the guard never runs, so the patched `def f` above it is the live one."""
    assert dead_at_run_time(spelling, wrap)
    before = "def f():\n    return 1\n\n" + guarded(spelling, wrap, later)
    after = before.replace("return 1", "return 2")
    assert _live(before, after) == [], after
    # the same redefinition outside the guard does replace it: the reader is not blind
    live_too = before + later + "\n"
    assert _live(live_too, live_too.replace("return 1", "return 2")) != []


@pytest.mark.parametrize(("spelling", "wrap"), CASES)
def test_stores_under_the_guard_replace_nothing(spelling: str, wrap: str) -> None:
    """`C.f = ...` under the guard (module_statements' reader) never runs: C.f stays the patched one."""
    assert dead_at_run_time(spelling, wrap)
    before = "class C:\n    def f(self):\n        return 1\n\n" + guarded(spelling, wrap, "C.f = None")
    after = before.replace("return 1", "return 2")
    assert _live(before, after) == [], after
