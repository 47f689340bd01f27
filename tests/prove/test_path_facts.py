"""Bound-on-some-paths follows what simple tests tell on each path (names/path_facts, flow38):
correct fill-in code the walk refused, and exits it accepted whichever way their test went.

- `ok = True` / `try: v = int(s)` / `except ValueError: ok = False` / `if not ok: v = 0` / `return v`,
  `if m is not None: v = m` / `if m is None: v = 0`, `if x: v = 1` / `if not x: v = 2`, `return x and v`
  were refused: each path has v bound. The claim now keeps the facts of the paths that leave v unbound,
  and a branch whose test contradicts them is not one of those paths.
- `failed = False` / `try: v = int(s)` / `except ValueError: failed = True` / `if not failed: return 0`
  / `return v` was accepted (the exit was tied to the claim's names, whichever way its test went): it
  ends the paths that have v, not the ones that lack it.

Generated: the claim (a try that sets a flag either way, `is not None`, truth, `== c`) times what follows it (a
fill-in on the twin test or the same test, an exit on either or on an unrelated test, the tested name
rebound first, a read under `and`/`or`/a conditional expression). The oracle runs f for every x and s:
refused exactly where some call raises UnboundLocalError."""

from __future__ import annotations

import itertools

import pytest

from tests.lib.blocks import indent
from tests.lib.branch_constructs import refused
from tests.lib.generated import sample

XS = (None, 0, 1, 2)
SS = ("1", "z")
CLAIMS = {  # (the claim, the test true where v is bound, its twin, a rebinding of the tested name)
    "try-flag": ("ok = True\ntry:\n    v = int(s)\nexcept ValueError:\n    ok = False\n", "ok", "not ok", "ok = x"),
    "try-failed": (
        "failed = False\ntry:\n    v = int(s)\nexcept ValueError:\n    failed = True\n",
        "not failed",
        "failed",
        "failed = s == '1'",
    ),
    "try-flag-in-body": (
        "ok = False\ntry:\n    v = int(s)\n    ok = True\nexcept ValueError:\n    pass\n",
        "ok",
        "not ok",
        "ok = x",
    ),
    "is-not-none": ("m = x\nif m is not None:\n    v = m\n", "m is not None", "m is None", "m = s"),
    "truth": ("if x:\n    v = 1\n", "x", "not x", "x = s"),
    "equals": ("if x == 1:\n    v = 1\n", "x == 1", "x != 1", "x = 1 if s == 'z' else 2"),
}
FOLLOWS = {
    "fill-twin": "if {twin}:\n    v = 0\nreturn v\n",
    "fill-twin-else": "if {twin}:\n    v = 0\nelse:\n    pass\nreturn v\n",
    "fill-same": "if {test}:\n    v = 0\nreturn v\n",
    "exit-twin": "if {twin}:\n    return 0\nreturn v\n",
    "exit-twin-raises": "if {twin}:\n    raise ValueError(s)\nreturn v\n",
    "exit-same": "if {test}:\n    return 0\nreturn v\n",
    "exit-unrelated": "if x == 2:\n    return 0\nreturn v\n",
    "rebound-fill-twin": "{rebind}\nif {twin}:\n    v = 0\nreturn v\n",
    "read-in-branch-same": "if {test}:\n    return v\nreturn 0\n",
    "read-and": "return ({test}) and v\n",
    "read-or": "return ({twin}) or v\n",
    "read-or-same": "return ({test}) or v\n",
    "read-ifexp": "return v if {test} else 0\n",
    "read-ifexp-twin": "return v if {twin} else 0\n",
}


def function(body: str) -> str:
    return "def f(x, s):\n" + indent(body, "    ")


def runs_unbound(source: str) -> bool:
    namespace: dict[str, object] = {}
    exec(compile(source, "generated.py", "exec"), namespace)
    for x, s in itertools.product(XS, SS):
        try:
            namespace["f"](x, s)  # type: ignore[operator]
        except NameError:  # UnboundLocalError is one
            return True
        except ValueError:
            continue
    return False


CASES = sample(itertools.product(CLAIMS, FOLLOWS))


@pytest.mark.parametrize(("claim", "follows"), CASES, ids=["-".join(c) for c in CASES])
def test_a_claim_is_judged_by_the_facts_of_its_paths(claim: str, follows: str) -> None:
    code, test, twin, rebind = CLAIMS[claim]
    before = function(code)
    after = function(code + FOLLOWS[follows].format(test=test, twin=twin, rebind=rebind))
    found = refused(before, after)
    assert bool(found) == runs_unbound(after), (after, found)
    if found:
        assert "is bound on some paths only" in found[0].describe(), found[0].describe()


GUARDS = {  # a test earlier on the path decides the branch: the other is not taken there
    "raise-is-none": "if x is None:\n    raise ValueError(s)\nif x is not None:\n    v = 1\nreturn v\n",
    "return-falsy": "if not x:\n    return 0\nif x:\n    v = 1\nreturn v\n",
    "raise-unequal": "if x != 1:\n    raise ValueError(s)\nif x == 1:\n    v = 1\nreturn v\n",
    "constant": "ok = False\nif s == '1':\n    ok = True\n    v = 1\nif ok:\n    return v\nreturn 0\n",
    "guard-then-rebound": "if x is None:\n    raise ValueError(s)\nx = None if s == 'z' else 1\nif x is not None:\n"
    "    v = 1\nreturn v\n",
    "guard-other-name": "if s is None:\n    raise ValueError(s)\nif x is not None:\n    v = 1\nreturn v\n",
    "rebound-in-loop": "if x is None:\n    raise ValueError(s)\nfor _ in [0]:\n    x = None\nif x is not None:\n"
    "    v = 1\nreturn v\n",
    "sibling-claim": "if x:\n    if s == '1':\n        v = 1\nelse:\n    if s == '1':\n        pass\n    else:\n"
    "        v = 2\nreturn v\n",
    "sibling-claim-twin": "if x:\n    if s == '1':\n        v = 1\nelse:\n    if s == '1':\n        v = 3\n"
    "    else:\n        v = 2\nif x:\n    if s != '1':\n        v = 4\nreturn v\n",
    "not-none-then-truthy": "if x is not None:\n    v = 1\nif x:\n    return v\nreturn 0\n",
    "raise-or": "if x is None or s == 'z':\n    raise ValueError(s)\nif s != 'z':\n    v = 1\nreturn v\n",
}


@pytest.mark.parametrize("guard", list(GUARDS))
def test_a_branch_an_earlier_test_decides_is_not_taken(guard: str) -> None:
    after = function(GUARDS[guard])
    found = refused(function("pass\n"), after)
    assert bool(found) == runs_unbound(after), (after, found)


def test_a_local_a_nested_function_rebinds_tells_no_fact() -> None:
    """Control: `nonlocal x` in a helper called between the tests: the facts of x are not the walk's."""
    body = "def spoil():\n    nonlocal x\n    x = not x\n\nif x:\n    v = 1\nspoil()\nif not x:\n    v = 2\nreturn v\n"
    after = function(body)
    assert runs_unbound(after)
    assert refused(function("pass\n"), after)
