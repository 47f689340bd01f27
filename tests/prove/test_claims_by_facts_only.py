"""Bound-on-some-paths claims judged by path facts only (flow40, issue 21: F6), each a generated family
whose oracle runs the patched function on every combination of its arguments: a wrong patch (some
call raises NameError/UnboundLocalError) is always refused.

- F6 part 2: a flag set before the statement that may raise in a try body (`try: ok = True; v =
  int(x)` / `except ValueError: pass` / `if ok: return v`) was accepted as if set after it. The flag is a
  fact only from the statements after the last one that may raise (the handler keeps what the path
  knew before the try of every name the body stores up to there).
- Test parts the walk cannot read (a call, a subscript: `if a and g(b): v = 1` / `if a: return v`) tell
  no fact, so the claim holds wherever its readable part does not rule it out; an attribute path
  (`o.c`) is read as a name is (path_facts.subject: the same value until its first name is rebound or
  the path is stored to).
- Nested and/or (`if (a and b) or c: v = 1` / `if a: return v`): nothing beyond what the facts of each
  branch say (a false `and`, a true `or` tell nothing of their operands).
The rule these were accepted by, a later test or exit reading a name the claim's join read taken as
correlated with it, is gone (claims.Claims.join); a correct read it accepted is accepted only where the
facts tell it (the repeated test, a flag set on every path that binds)."""

from __future__ import annotations

import itertools

import pytest

from tests.lib.blocks import indent
from tests.lib.branch_constructs import refused
from tests.lib.generated import sample

HEAD = "def g(y):\n    return y\n\n\nclass O:\n    def __init__(self, c):\n        self.c = c\n\n\n"
SIGNATURE = "def f(a, b, c, o, xs, x):\n"
ARGS = [(a, b, c, x) for a, b, c in itertools.product((0, 1), repeat=3) for x in ("1", "0", "z", None)]


def runs_unbound(source: str) -> bool:
    namespace: dict[str, object] = {}
    exec(compile(source, "generated.py", "exec"), namespace)
    for a, b, c, x in ARGS:
        try:
            namespace["f"](a, b, c, namespace["O"](c), [b], x)  # type: ignore[operator]
        except NameError:  # UnboundLocalError is one
            return True
        except (ValueError, TypeError, ArithmeticError):
            continue
    return False


def judged(body: str) -> tuple[bool, bool]:
    """(refused, the oracle: some call reads a name unbound)."""
    after = HEAD + SIGNATURE + indent(body, "    ")
    found = refused(HEAD + SIGNATURE + "    pass\n", after)
    if found:
        assert "is bound on some paths only" in found[0].describe(), found[0].describe()
    return bool(found), runs_unbound(after)


# F6 part 2: where the flag is set in the try body
RAISING = {"int": "v = int(x)", "call-then-bind": "n = int(x)\n{pad}v = n", "divide": "v = 10 // int(x)"}
FLAGS = {"before": "{pad}ok = True\n{stmt}\n", "after": "{stmt}\n{pad}ok = True\n", "between": ""}
HANDLERS = {"pass": "pass", "reset": "ok = False", "return": "return 0"}
READS = {
    "in-if": "if ok:\n    return v\nreturn 0\n",
    "exit": "if not ok:\n    return 0\nreturn v\n",
}


def try_body(raising: str, flag: str) -> str:
    pad = "    "
    stmt = pad + RAISING[raising].format(pad=pad)
    if flag == "between":  # between two statements that may raise: after the first only
        return f"{pad}n = int(x)\n{pad}ok = True\n{pad}v = 10 // n\n"
    return FLAGS[flag].format(pad=pad, stmt=stmt)


TRIES = sample(itertools.product(RAISING, FLAGS, HANDLERS, READS))


@pytest.mark.parametrize(("raising", "flag", "handler", "read"), TRIES, ids=["-".join(c) for c in TRIES])
def test_a_flag_in_a_try_body_is_a_fact_only_after_the_last_statement_that_may_raise(
    raising: str, flag: str, handler: str, read: str
) -> None:
    handled = f"except (ValueError, ZeroDivisionError):\n    {HANDLERS[handler]}\n"
    body = f"ok = False\ntry:\n{try_body(raising, flag)}{handled}" + READS[read]
    found, unbound = judged(body)
    assert found == unbound, body


# test parts the walk cannot read, and nested and/or
ATOMS = ("a", "b", "c")
PARTS = {"call": "g(b)", "attribute": "o.c", "subscript": "xs[0]"}


def later_tests() -> list[str]:
    out = {*ATOMS, *(f"not {x}" for x in ATOMS)}
    for x, y in itertools.permutations(ATOMS, 2):
        out |= {f"{x} and {y}", f"{x} or {y}", f"not ({x} or {y})"}
    for x, y, z in itertools.permutations(ATOMS, 3):
        out |= {f"({x} and {y}) or {z}", f"({x} or {y}) and {z}", f"not ({x} and {y}) or {z}"}
    return sorted(out)


LATER = later_tests()
CLAIMS = [*LATER, *(f.format(p) for p in PARTS.values() for f in ("a and {}", "{} and a", "(a and {}) or c"))]
SHAPES = {
    "in": "if {claim}:\n    v = 1\nif {read}:\n    return v\nreturn 0\n",
    "exit": "if {claim}:\n    v = 1\nif not ({read}):\n    return 0\nreturn v\n",
}
CASES = sample(itertools.product(CLAIMS, LATER, SHAPES))


@pytest.mark.parametrize(("claim", "read", "shape"), CASES, ids=["|".join(c) for c in CASES])
def test_a_claim_is_not_read_beyond_what_its_facts_tell(claim: str, read: str, shape: str) -> None:
    """Refused wherever the oracle finds an unbound read; accepted exactly where the claim and the later
    test are conjunctions of readable tests (what a path's facts hold; an `or`, a negated `and` or an
    unreadable part may leave a correct read refused)."""
    found, unbound = judged(SHAPES[shape].format(claim=claim, read=read))
    assert found or not unbound, (claim, read, shape)
    if claim in LATER and all(" or " not in t and "(" not in t for t in (claim, read)):
        assert found == unbound, (claim, read, shape)


REPEATED = sample(itertools.product(PARTS, SHAPES))


@pytest.mark.parametrize(("part", "shape"), REPEATED, ids=["-".join(c) for c in REPEATED])
def test_a_repeated_test_tells_its_facts_only_where_it_is_readable(part: str, shape: str) -> None:
    """`if a and o.c: v = 1` / `if a and o.c: return v`: the attribute path is read as the same value;
    a call or a subscript is not taken to give the same value twice (correct code, refused)."""
    test = f"a and {PARTS[part]}"
    found, unbound = judged(SHAPES[shape].format(claim=test, read=test))
    assert not unbound
    assert found == (part != "attribute"), (part, shape)
