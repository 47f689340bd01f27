"""A `with` whose manager may swallow what its body raises (contextlib.suppress however spelled, a
module's own swallowing manager) is walked as `try: ... except E: pass` is: its body stops only at a
statement that may raise, so a flag set after the last of them (`ok = True`) is set exactly where the
body ran to its end (att40b #9: `with contextlib.suppress(ValueError): v = int(a); ok = True` then
`if ok: return v` was refused, the same code as try/except accepted).

Generated: the manager (three spellings of suppress, a module's own swallowing class, and try/except
as the control) x the body's order (bind then flag, flag then bind, a raising call after both) x the
read (under the flag, under its negation, unguarded). The oracle runs f on an input that raises and
one that does not: the names step refuses exactly where one raises NameError (for a flag set before
the body's last raising statement: where a run raises, and as it does the try, BEFORE_A_RAISE)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

HEADER = (
    "import contextlib\nimport contextlib as cl\nfrom contextlib import suppress as quiet\n\n\n"
    "class Quiet:\n    def __enter__(self):\n        return self\n\n"
    "    def __exit__(self, *exc):\n        return exc[0] is ValueError\n\n\n"
)
MANAGERS = {
    "contextlib": "with contextlib.suppress(ValueError):\n{body}",
    "alias": "with cl.suppress(ValueError):\n{body}",
    "from-import": "with quiet(ValueError):\n{body}",
    "own-class": "with Quiet():\n{body}",
    "try": "try:\n{body}except ValueError:\n    pass\n",
}
BODIES = {
    "bind-flag": "v = int(a)\nok = True\n",
    "flag-bind": "ok = True\nv = int(a)\n",
    "bind-flag-call": "v = 1\nok = True\nint(a)\n",
    "bind-pass-flag": "v = int(a)\npass\nok = True\n",
    "two-flags": "w = int(a)\nv = w\nok = True\ndone = 1\n",
}
# the flag is set before the last statement that may raise: the walk, as for a try, takes the body to
# stop anywhere up to it (`v = 1` before `int(a)` may be unbound), a refusal of correct code; for these
# the family asks the same verdict as the try's, and a refusal wherever a run raises
BEFORE_A_RAISE = ("flag-bind", "bind-flag-call")
READS = {"flag": "if ok:\n    return v\n", "not-flag": "if not ok:\n    return v\n", "plain": "return v\n"}


def function(manager: str, body: str, read: str) -> str:
    block = MANAGERS[manager].format(body=indent(BODIES[body], "    "))
    return HEADER + "def f(a):\n" + indent("ok = False\n" + block + read + "return -1\n", "    ")


def runs_unbound(source: str) -> bool:
    return f_raises_name_error(source, [("1",), ("x",)])


CASES = sample(list(itertools.product(MANAGERS, BODIES, READS)))


@pytest.mark.parametrize(("manager", "body", "read"), CASES, ids=["-".join(c) for c in CASES])
def test_a_swallowing_with_is_judged_as_its_try_except(manager: str, body: str, read: str) -> None:
    after = function(manager, body, READS[read])
    before = function(manager, body, "")
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    if body not in BEFORE_A_RAISE:
        assert bool(found) == runs_unbound(after), (after, [p.describe() for p in found])
        return
    assert found or not runs_unbound(after), after
    control = function("try", body, READS[read])
    assert bool(found) == bool(introduced(function("try", body, "").encode(), control.encode())), after
