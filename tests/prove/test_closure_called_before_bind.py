"""A closure called before a name it reads is bound (att41 #3): `def g(): return v` / `r = g()` /
`v = 1` / `return r` was applied, and raised NameError every time: the closure's body is walked
once the function around it is complete, where v is bound, but it runs where it is called.

Generated: where the call sits (a statement, an assignment, an if's test, an argument; att43 #3: through an
alias `h = g`, in a comprehension, g passed to a call that calls it, `functools.partial(g)()`) x how the
name is bound after it (an assignment, a for target, a with target, an import) x whether the
call comes before or after that binding x what g does with the name (reads it, reads it in a
nested function it does not call, takes it as a parameter; the same as a lambda bound to g, and one
rebound before the call: the last review note, `g = lambda: v` / `r = g()` / `v = 1` was applied), and the
name bound on some paths only before the call (att43 #1: `if a: v = 1` / `g()` was applied) or under the same
test as the call. The oracle runs the function for a = 0 and 1: the names step refuses exactly where it raises
NameError."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample

CALLS = {
    "statement": "g()\n",
    "assign": "r = g()\n",
    "if-test": "if g() is None:\n    r = 0\n",
    "argument": "r = str(g())\n",
    # att43 #3: called another way than `g()`
    "alias": "h = g\nr = h()\n",
    "comprehension": "r = [g() for _ in [0]]\n",
    "passed to a call": "r = next(iter(g, 5))\n",
    "partial": "import functools\nr = functools.partial(g)()\n",
}
BINDS = {
    "assign": "v = 1\n",
    "for": "for v in [1]:\n    pass\n",
    "with": "with open(__file__) as v:\n    pass\n",
    "import": "import os as v\n",
}
GS = {
    "reads": "def g():\n    return v\n",
    "nested": "def g():\n    def h():\n        return v\n    return h\n",
    "param": "def g(v=0):\n    return v\n",
    "lambda": "g = lambda: v\n",
    "lambda-nested": "g = lambda: (lambda: v)\n",
    "lambda-param": "g = lambda v=0: v\n",
    "lambda-rebound": "g = lambda: v\ng = str\n",
}


def function(call: str, bind: str, order: str, g: str, read: str) -> str:
    first, second = (CALLS[call], BINDS[bind]) if order == "before" else (BINDS[bind], CALLS[call])
    if order == "some paths":  # bound under an if, then called (att43 #1: NameError where a is 0)
        first, second = "if a:\n" + indent(BINDS[bind], "    "), CALLS[call]
    elif order == "same test":  # bound and called under the same test: never unbound at the call
        first, second = "if a:\n" + indent(BINDS[bind], "    "), "if a:\n" + indent(CALLS[call], "    ")
    body = f"r = 0\n{GS[g]}{first}{second}return {read}\n"
    return "def f(a):\n" + indent(body, "    ")


def raises_name_error(source: str) -> bool:
    namespace: dict[str, object] = {"__file__": __file__}
    exec(compile(source, "generated.py", "exec"), namespace)
    for a in (0, 1):
        try:
            namespace["f"](a)  # type: ignore[operator]
        except NameError:
            return True
    return False


CASES = sample(list(itertools.product(CALLS, BINDS, ("before", "after", "some paths", "same test"), GS)))


@pytest.mark.parametrize(("call", "bind", "order", "g"), CASES, ids=["-".join(c) for c in CASES])
def test_a_closure_called_before_a_name_it_reads_is_bound_is_refused(call: str, bind: str, order: str, g: str) -> None:
    after = function(call, bind, order, g, "r")
    before = "def f(a):\n    return 0\n"
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == raises_name_error(after), (after, [p.describe() for p in found])


# att43 #2: the same at module level, where a call at import time runs the function before a module
# name it reads is bound (the module's import raises NameError). A module-level binding under `if A:`,
# A read from the environment; the oracle imports the module with A false and true.
MODULE_ORDERS = ("before", "after", "some paths", "same test")
MODULE_CASES = sample(list(itertools.product(CALLS, BINDS, MODULE_ORDERS, GS)))
HEAD = "import os\nA = os.environ.get('RP_A')\n"


def module(call: str, bind: str, order: str, g: str) -> str:
    text = function(call, bind, order, g, "r").replace("if a:", "if A:")
    body = "\n".join(line.removeprefix("    ") for line in text.splitlines()[1:-1])
    return f"{HEAD}{body}\n"


def import_raises_name_error(source: str) -> bool:
    for a in ("", "1"):
        code = source.replace(HEAD, f"import os\nA = {a!r}\n")
        try:
            exec(compile(code, "generated.py", "exec"), {"__file__": __file__})
        except NameError:
            return True
    return False


@pytest.mark.parametrize(("call", "bind", "order", "g"), MODULE_CASES, ids=["-".join(c) for c in MODULE_CASES])
def test_a_function_called_at_import_before_a_module_name_it_reads_is_refused(
    call: str, bind: str, order: str, g: str
) -> None:
    after = module(call, bind, order, g)
    found = introduced(HEAD.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == import_raises_name_error(after), (after, [p.describe() for p in found])


# A function made where the names it reads are already bound on every path (`if a: v = 1; g = lambda: v`),
# called after the join where `v` is bound on some paths only: the g that runs there read v bound when it was
# made, so the call is sound (vLLM's ubatch_utils passes such a lambda to a call). The oracle runs a = 0, 1.
MADE_CASES = sample(list(itertools.product(CALLS, BINDS, [g for g in GS if not g.endswith("rebound")])))


@pytest.mark.parametrize(("call", "bind", "g"), MADE_CASES, ids=["-".join(c) for c in MADE_CASES])
def test_a_function_made_where_what_it_reads_is_bound_may_be_called_after_the_join(
    call: str, bind: str, g: str
) -> None:
    branch = BINDS[bind] + GS[g]
    body = f"r = 0\ng = lambda *_: 0\nif a:\n{indent(branch, '    ')}{CALLS[call]}return r\n"
    after = "def f(a):\n" + indent(body, "    ")
    found = introduced(b"def f(a):\n    return 0\n", after.encode())
    assert found is not None, after
    assert not raises_name_error(after), after
    assert not found, (after, [p.describe() for p in found])
