"""contextlib.suppress however it reaches the `with` (att41 #2): `with M: n = int(a); v = 1` then
`return v` was applied for a="s" (UnboundLocalError) where M was a local alias of suppress, a
manager held in a variable, functools.partial of it, getattr(contextlib, "suppress"), a subclass
of it, or a class whose `__exit__` is a lambda returning True: only the direct spellings were known.

Generated: the spelling x where the alias is made (the module, the function) x the read after the
`with` (plain, or none). Controls: nullcontext spelled the same ways, which swallows nothing, stays
accepted. A manager from elsewhere (`torch.no_grad()`) is still taken as not swallowing (swallowing
module doc). The oracle runs f on "s" and "1": the names step refuses exactly where one raises."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import f_raises_name_error

HEADER = "import contextlib\nimport functools\n\n\n"
SPELLINGS = {  # name -> (the statement making it, the manager expression); {m} is suppress or nullcontext
    "alias": ("sp = contextlib.{m}\n", "sp({e})"),
    "held": ("cm = contextlib.{m}({e})\n", "cm"),
    "partial": ("pm = functools.partial(contextlib.{m}, {e})\n", "pm()"),
    "partial-inline": ("", "functools.partial(contextlib.{m}, {e})()"),
    "getattr": ("", 'getattr(contextlib, "{m}")({e})'),
    "subclass": ("class Q(contextlib.{m}):\n    pass\n", "Q({e})"),
    "alias-of-alias": ("sp = contextlib.{m}\nsq = sp\n", "sq({e})"),
}
LAMBDA_EXIT = "class L:\n    def __enter__(self):\n        return self\n\n    __exit__ = lambda self, *e: {r}\n"
MANAGERS = {"suppress": "ValueError", "nullcontext": ""}


def function(spelling: str, where: str, manager: str, read: str) -> str:
    if spelling == "lambda-exit":
        make, expr = LAMBDA_EXIT.format(r="True" if manager == "suppress" else "None"), "L()"
    else:
        make, expr = SPELLINGS[spelling]
        make, expr = make.format(m=manager, e=MANAGERS[manager]), expr.format(m=manager, e=MANAGERS[manager])
    body = f"with {expr}:\n    n = int(a)\n    v = 1\n{read}return -1\n"
    if where == "function":
        return HEADER + "def f(a):\n" + indent(make + body, "    ")
    return HEADER + make + "\n\ndef f(a):\n" + indent(body, "    ")


def runs_unbound(source: str) -> bool:
    return f_raises_name_error(source, [("s",), ("1",)], (ValueError,))


CASES = sample(list(itertools.product([*SPELLINGS, "lambda-exit"], ("module", "function"), MANAGERS)))


@pytest.mark.parametrize(("spelling", "where", "manager"), CASES, ids=["-".join(c) for c in CASES])
def test_suppress_is_known_however_it_is_spelled(spelling: str, where: str, manager: str) -> None:
    after = function(spelling, where, manager, "return v\n")
    before = function(spelling, where, manager, "")
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == runs_unbound(after), (after, [p.describe() for p in found])
