"""What the bound-on-some-paths check missed after it was narrowed for two correct real patches
(attack36 F10-F12), each a generated family with an oracle that runs the patched function (or module)
on every subject: refused exactly where some path raises NameError/UnboundLocalError.

- F10: an exit between the join and the read cleared every claim (`if s: y = 1` / `if a: return 0` /
  `return y` was accepted). Now only an exit the claim's facts tell ends its unbound paths (its test,
  a flag its branches set: Django's `fake_runtime`) clears it (flow40: not one whose test merely reads
  the same names); the flagged family of test_branch_only_bindings keeps the Django shape accepted.
- F11: a read in a closure, lambda, comprehension or class body defined after the join (a closure
  reads when called: a later binding of the enclosing function clears the claim).
- F12: a walrus past the first operand of `and`/`or` or in a conditional expression's branch, a binding
  in `with contextlib.suppress(E)`, a `global` name bound in one branch only."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.branch_constructs import CONSTRUCTS, refused
from tests.lib.generated import sample

HEAD = (
    "import contextlib\nimport sys\nfrom contextlib import suppress\n\n\ndef _stop(a):\n    raise SystemExit(a)\n\n\n"
)
SUBJECTS = (0, 1, 2)
OTHERS = (0, 1, "x")  # `a`: a value the exit under test turns on, unrelated to the claim's


def runs_unbound(source: str, args: int) -> bool:
    """Does some subject (and `a`) make f raise NameError/UnboundLocalError, or the module at import?"""
    for x, a in itertools.product(SUBJECTS, OTHERS if args == 2 else (None,)):
        namespace: dict[str, object] = {"X": x, "A": a}
        try:
            exec(compile(source, "generated.py", "exec"), namespace)
            if args:
                namespace["f"](*((x, a) if args == 2 else (x,)))  # type: ignore[operator]
        except NameError:  # UnboundLocalError is one
            return True
        except (ValueError, ArithmeticError, SystemExit):
            continue
    return False


def function(body: str, args: str = "x, a") -> str:
    return HEAD + f"def f({args}):\n" + indent(body, "    ")


def check(before: str, after: str, args: int) -> None:
    found = refused(before, after)
    assert bool(found) == runs_unbound(after, args), (after, found)
    if found:
        assert "is bound on some paths only" in found[0].describe(), found[0].describe()


# F10: exits on a value the claim's join does not turn on
EXITS = {
    "if": "if a:\n    {end}\n",
    "if-not": "if not a:\n    {end}\n",
    "elif": "if a == 1:\n    {end}\nelif a == 'x':\n    pass\n",
    "try": "try:\n    int(a)\nexcept ValueError:\n    {end}\n",
    "match": "match a:\n    case 1:\n        {end}\n    case _:\n        pass\n",
    "while": "while a:\n    {end}\n",
    "for": "for _ in [a]:\n    if a:\n        {end}\n",
    "sys.exit": "if a:\n    sys.exit(0)\n",
    "own-call": "if a:\n    _stop(a)\n",
}
ENDS = ("return 0", "raise SystemExit(0)")
UNRELATED = sample(itertools.product(CONSTRUCTS, EXITS, ENDS))


@pytest.mark.parametrize(("construct", "exit_", "end"), UNRELATED, ids=["-".join(c) for c in UNRELATED])
def test_an_exit_on_an_unrelated_test_does_not_clear_the_claim(construct: str, exit_: str, end: str) -> None:
    """`if s: y = 1` / `if a: return 0` / `return y`: a = 0 with s false reads y unbound."""
    before = function(CONSTRUCTS[construct])
    after = function(CONSTRUCTS[construct] + EXITS[exit_].format(end=end) + "return y\n")
    check(before, after, 2)


RELATED = [  # (the claim, an exit whose test reads the claim's test or a flag its branch sets): correct code
    ("if x == 1:\n    y = 1\n", "if x != 1:\n    return 0\n"),
    ("if x == 1:\n    y = 1\n", "if not x == 1:\n    raise SystemExit(0)\n"),
    (
        "ok = False\ntry:\n    y = 10 // x\n    ok = True\nexcept ZeroDivisionError:\n    pass\n",
        "if not ok:\n    return 0\n",
    ),
    ("bad = x == 0\ntry:\n    y = 10 // x\nexcept ZeroDivisionError:\n    bad = True\n", "if bad:\n    return 0\n"),
    ("match x:\n    case 1:\n        y = 1\n    case _:\n        pass\n", "if x != 1:\n    _stop(x)\n"),
]


@pytest.mark.parametrize(("claim", "exit_"), RELATED)
def test_an_exit_on_the_claims_own_test_or_flag_clears_it(claim: str, exit_: str) -> None:
    """Control (Django's CVE-2024-39329 check_password shape and its kin)."""
    before, after = function(claim, "x"), function(claim + exit_ + "return y\n", "x")
    assert not runs_unbound(after, 1), after
    assert not refused(before, after), after


# F11: reads in scopes defined after the join
CLOSURES = {
    "lambda": "g = lambda: y\nreturn g()\n",
    "def": "def g():\n    return y\nreturn g()\n",
    "nested": "def g():\n    return lambda: y\nreturn g()()\n",
    "listcomp": "return [y for _ in range(1)]\n",
    "genexp": "return list(y for _ in range(1))\n",
    "dictcomp": "return {y: 0 for _ in range(1)}\n",
    "class": "class C:\n    z = y\nreturn C.z\n",
    "bound-later": "def g():\n    return y\ny = 5\nreturn g()\n",
    "in-branch": "if x == 1:\n    return (lambda: y)()\nreturn 0\n",
}
CLOSED = sample(itertools.product(CONSTRUCTS, CLOSURES))
# correct code whose correlation is a value's, out of the walk's reach: `10 // x` raises exactly where
# x == 0, so `if x == 1:` reads y bound; refused since flow40, as no later test is taken as correlated
# with a claim because it reads the same names (claims.Claims.join)
BEYOND = {("try-one", "in-branch")}


@pytest.mark.parametrize(("construct", "read"), CLOSED, ids=["-".join(c) for c in CLOSED])
def test_a_read_in_a_scope_defined_after_the_join_is_checked(construct: str, read: str) -> None:
    before = function(CONSTRUCTS[construct], "x")
    after = function(CONSTRUCTS[construct] + CLOSURES[read], "x")
    if (construct, read) in BEYOND:
        assert refused(before, after) and not runs_unbound(after, 1), after
        return
    check(before, after, 1)


MODULE_READS = {"listcomp": "Y = [y for _ in range(1)]\n", "genexp": "Y = list(y for _ in range(1))\n"}
MODULE = sample(itertools.product(CONSTRUCTS, MODULE_READS))


@pytest.mark.parametrize(("construct", "read"), MODULE, ids=["-".join(c) for c in MODULE])
def test_a_module_level_comprehension_is_checked(construct: str, read: str) -> None:
    before = HEAD + "x = X\n" + CONSTRUCTS[construct]
    check(before, before + MODULE_READS[read], 0)


# F12: bindings the walk took for unconditional
CONDITIONAL = {
    "and-walrus": "if x == 1 and (y := x):\n    pass\n",
    "or-walrus": "if x == 1 or (y := x):\n    pass\n",
    "chain-walrus": "z = x > 0 and x < 2 and (y := x)\n",
    "ifexp-walrus": "z = (y := x) if x == 1 else 0\n",
    "ifexp-both": "z = (y := x) if x == 1 else (y := 0)\n",
    "while-walrus": "while x == 1 and (y := x):\n    break\n",
    "elif-walrus": "if x == 0:\n    y = 0\nelif x == 1 and (y := x):\n    pass\n",
    "assert-walrus": "assert x < 9 or (y := x)\n",
    "first-walrus": "if (y := x) or x:\n    pass\n",
    "suppress": "with contextlib.suppress(ZeroDivisionError):\n    y = 10 // x\n",
    "suppress-bare": "with suppress(ZeroDivisionError):\n    y = 10 // x\n",
    "suppress-then-bound": "with suppress(ZeroDivisionError):\n    y = 10 // x\n    return y\ny = 0\n",
    "nullcontext": "with contextlib.nullcontext():\n    y = 10 // x\n",
    "global": "global y\nif x == 1:\n    y = 1\n",
    "global-else": "global y\nif x == 1:\n    y = 1\nelse:\n    y = 0\n",
}
READS = {"after": "return y\n", "closure": "return (lambda: y)()\n"}
BOUND = sample(itertools.product(CONDITIONAL, READS))


@pytest.mark.parametrize(("construct", "read"), BOUND, ids=["-".join(c) for c in BOUND])
def test_a_conditional_binding_in_an_expression_with_or_global_is_checked(construct: str, read: str) -> None:
    before = function(CONDITIONAL[construct], "x")
    check(before, function(CONDITIONAL[construct] + READS[read], "x"), 1)


def test_a_global_the_module_binds_is_not_claimed() -> None:
    """Control: `y = 0` at module level: the function's branch rebinds it, the read always finds one."""
    before = "y = 0\n\n\ndef f(x):\n    global y\n    if x == 1:\n        y = 1\n"
    after = before + "    return y\n"
    assert not runs_unbound(after, 1)
    assert not refused(before, after)


INSIDE = [  # reads inside the path that bound the name (or after an exit on the same test)
    "if x == 1 and (y := x):\n    return y\nreturn 0\n",
    "if not (x == 1 and (y := x)):\n    return 0\nreturn y\n",
    "z = (y := x) if x == 1 else 0\nif x == 1:\n    return y\nreturn 0\n",
    "with suppress(ZeroDivisionError):\n    y = 10 // x\n    return y\nreturn 0\n",
]


@pytest.mark.parametrize("code", INSIDE)
def test_a_read_on_the_path_that_bound_it_is_accepted(code: str) -> None:
    """Control: `if a and (y := f()): return y` is correct code."""
    after = function(code, "x")
    assert not runs_unbound(after, 1), after
    assert not refused(function("pass\n", "x"), after), after


AFTER_DEL = {
    "read": "del y\nreturn y\n",
    "closure": "del y\nreturn (lambda: y)()\n",
    "rebound": "del y\ny = 2\nreturn y\n",
}
DELETED = sample(itertools.product(CONSTRUCTS, AFTER_DEL))


@pytest.mark.parametrize(("construct", "read"), DELETED, ids=["-".join(c) for c in DELETED])
def test_a_del_of_a_name_bound_on_some_paths_is_judged_not_crashed_on(construct: str, read: str) -> None:
    """`if s: y = 1` / `del y` / `return y` crashed the walk (KeyError: the del forgot the name as
    bound, the claim stayed). The del reads y first: refused exactly where a path reads it unbound."""
    before = function(CONSTRUCTS[construct], "x")
    after = function(CONSTRUCTS[construct] + AFTER_DEL[read], "x")
    found = introduced(before.encode(), after.encode())
    assert found is not None
    assert bool(found) == runs_unbound(after, 1), (after, found)
