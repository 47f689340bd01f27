"""Bound-on-some-paths, the classes the last adversarial pass of issue 21 found (flow39), each a
generated family whose oracle runs the patched function on every combination of its arguments:
refused exactly where some call raises NameError/UnboundLocalError.

- F5: a read inside a later branch, a try body or its else, a `while True:` or `for` body was not
  checked (`if a: v = 1` / `if not a: return v` was applied). A flag assigned a test (`d = b and a`)
  tells that test's facts where it is tested: vLLM 0.33.0's `_aiter_ops` (`dequant_k_out = return_kv
  and is_fp8_cache` / `if is_fp8_cache: fp8_dtype = ...` / `if dequant_k_out: ... fp8_dtype`) stays
  accepted; `d = b or a` does not tell a.
- F6: a claim whose test's false branch tells no fact (`if a and b: v = 1`) was cleared by any exit
  on a name its test reads (`if not a: return 0` / `return v`: wrong where a and not b). The claim now
  keeps its test's facts where it was bound, when they say all the test does (path_facts.exact), and
  is cleared only where a path tells them all.
- A walrus in an if's test (`if a and (m := f()):`) binds where the test came out so (each operand of a
  true `and` ran: vLLM 0.33.0's core_client `(engine := ...)`), not in the other branch nor after.
- A name bound again in a branch that ends its path (`if b: v = 2; return v`) no longer clears the
  claim for the paths that fall through (`return v` after it was applied).
- F7: a walrus in a comprehension binds on some paths only (no item, an `if` that drops it).
- F8: a `with` whose manager may swallow: contextlib.suppress under any alias, ExitStack, a class of
  the module whose `__exit__` returns true, a `@contextmanager` whose yield is in a try with a handler.
- F9: `finally: break` / `continue` / `return` swallows what the body raises.
- Order tests (`n > 0`, `n >= 1`, `n < 1`) are path facts: `n > 0` tells `n == 0` false and `n` true
  (vLLM's `if num_decodes == 0 and num_prefills == 0:` ... `if num_prefills > 0:`).
- False refusals: `while (b := f()):` then b, `assert` as a path fact, `if not xs: return` before a
  `for x in xs:` that binds."""

from __future__ import annotations

import itertools
import re

import pytest

from tests.lib.blocks import indent
from tests.lib.branch_constructs import refused
from tests.lib.generated import sample

ARGS = list(itertools.product((-1, 0, 1, 2), (0, 1), ([], [1], [2, 3]), ("1", "z", None)))
HEAD = "import contextlib\nfrom contextlib import suppress as quiet\nimport contextlib as cl\n\n\n"


def runs_unbound(source: str) -> bool:
    namespace: dict[str, object] = {}
    exec(compile(source, "generated.py", "exec"), namespace)
    for a, b, xs, x in ARGS:
        try:
            namespace["f"](a, b, list(xs), x)  # type: ignore[operator]
        except NameError:  # UnboundLocalError is one
            return True
        except (ValueError, TypeError, AttributeError, AssertionError):
            continue
    return False


def function(body: str, head: str = HEAD) -> str:
    return head + "def f(a, b, xs, x):\n" + indent(body, "    ")


def check(body: str, head: str = HEAD) -> None:
    after = function(body, head)
    found = refused(function("pass\n", head), after)
    assert bool(found) == runs_unbound(after), (after, found)
    if found:
        assert "is bound on some paths only" in found[0].describe(), found[0].describe()


CLAIMS = {  # the claim, and its test (true where v is bound)
    "if": ("if a:\n    v = 1\n", "a"),
    "if-not-none": ("m = None\nif a:\n    m = a\nif m is not None:\n    v = 1\n", "m is not None"),
    "if-equals": ("if a == 1:\n    v = 1\n", "a == 1"),
    "flag": ("ok = False\nif a:\n    ok = True\n    v = 1\n", "ok"),
    "if-and": ("if a and b:\n    v = 1\n", "a and b"),
    "if-not-or": ("if not (a or b):\n    v = 1\n", "not (a or b)"),
    "if-greater": ("if a > 0:\n    v = 1\n", "a > 0"),
    "if-at-least": ("if a >= 1:\n    v = 1\n", "a >= 1"),
}
READS = {
    "in-if-same": "if {t}:\n    return v\nreturn 0\n",
    "in-if-twin": "if not ({t}):\n    return v\nreturn 0\n",
    "in-if-other": "if b:\n    return v\nreturn 0\n",
    "in-elif": "if b:\n    return 0\nelif {t}:\n    return v\nreturn 0\n",
    "in-nested-if": "if b:\n    if {t}:\n        return v\nreturn 0\n",
    "in-try": "try:\n    return v\nexcept ValueError:\n    return 0\n",
    "in-try-else": "try:\n    int(x)\nexcept ValueError:\n    pass\nelse:\n    return v\nreturn 0\n",
    "in-while-true": "while True:\n    return v\n",
    "in-for": "for y in xs:\n    return v\nreturn 0\n",
    "derived-and": "d = b and ({t})\nif d:\n    return v\nreturn 0\n",
    "derived-and-not": "d = not ({t}) and b\nif d:\n    return v\nreturn 0\n",
    "derived-or": "d = b or ({t})\nif d:\n    return v\nreturn 0\n",
    "derived-rebound": "d = b and ({t})\nd = b\nif d:\n    return v\nreturn 0\n",
    "rebound-in-exit": "if b:\n    v = 2\n    return v\nreturn v\n",
    "in-if-zero": "if a == 0:\n    return v\nreturn 0\n",
    "in-if-two": "if a == 2:\n    return v\nreturn 0\n",
    "in-if-truth": "if a:\n    return v\nreturn 0\n",
    "exit-below-one": "if a < 1:\n    return 0\nreturn v\n",
    "exit-twin": "if not ({t}):\n    return 0\nreturn v\n",
    "exit-on-a": "if not a:\n    return 0\nreturn v\n",
    "assert": "assert {t}\nreturn v\n",
    "assert-other": "assert b\nreturn v\n",
}
# on a itself: for claims whose test reads a (a's value reaches m only through `m = a`, which the walk does not follow)
ON_A = ("in-if-zero", "in-if-two", "in-if-truth", "exit-below-one", "exit-on-a")
LATER = sample(
    [(c, r) for c, r in itertools.product(CLAIMS, READS) if r not in ON_A or re.search(r"\ba\b", CLAIMS[c][1])]
)


@pytest.mark.parametrize(("claim", "read"), LATER, ids=["-".join(c) for c in LATER])
def test_a_read_after_a_claim_is_judged_on_every_path_through_its_join(claim: str, read: str) -> None:
    code, test = CLAIMS[claim]
    check(code + READS[read].format(t=test))


def test_the_aiter_ops_shape_stays_accepted() -> None:
    """vLLM 0.33.0 `_aiter_ops.do_qk_norm_rope_kvcache_update`, reduced: the flag implies the test."""
    body = (
        "is_fp8_cache = x.startswith('1')\ndequant_k_out = a and is_fp8_cache\nout = 0\nif is_fp8_cache:\n"
        "    fp8_dtype = 8\nif dequant_k_out:\n    out = fp8_dtype\nif dequant_k_out:\n    return (out, fp8_dtype)\n"
        "return out\n"
    )
    assert not runs_unbound(function(body))
    check(body)


WALRUS = {  # a walrus in a comprehension, and what reads it
    "any": "found = any((v := y) for y in xs)\nreturn v\n",
    "list": "[v := y for y in xs]\nreturn v\n",
    "list-if": "[(v := y) for y in [1, 2] if y > a + 1]\nreturn v\n",
    "bound-before": "v = 0\n[v := y for y in xs]\nreturn v\n",
    "if-and-read-in": "if a and (m := b):\n    return m\nreturn 0\n",
    "if-and-read-after": "if a and (m := b):\n    return m\nreturn m\n",
    "if-or-read-in": "if a or (m := b):\n    return m\nreturn 0\n",
    "if-not-or-read-in": "if not (a or (m := b)):\n    return m\nreturn 0\n",
    "if-and-last-read-in": "if len(xs) == 1 and (y := xs[0]) > 1 and (m := b):\n    return m + y\nreturn 0\n",
}
MANAGERS = {
    "suppress-alias": "quiet(ValueError)",
    "module-alias": "cl.suppress(ValueError)",
    "suppress": "contextlib.suppress(ValueError)",
    "exit-stack": "contextlib.ExitStack() as st",
    "own-class": "Quiet()",
    "own-generator": "quietly()",
    "own-generator-finally": "tidy()",
    "nullcontext": "contextlib.nullcontext()",
}
OWN = (
    "class Quiet:\n    def __enter__(self):\n        return self\n\n"
    "    def __exit__(self, *exc):\n        return True\n\n\n"
    "@contextlib.contextmanager\ndef quietly():\n    try:\n        yield\n    except ValueError:\n        pass\n\n\n"
    "@contextlib.contextmanager\ndef tidy():\n    try:\n        yield\n    finally:\n        pass\n\n\n"
)
FINALLY = {
    "break": "while True:\n    try:\n        v = int(x)\n    finally:\n        {end}\n    break\nreturn v\n",
    "for-break": "for _ in [0]:\n    try:\n        v = int(x)\n    except TypeError:\n        v = 0\n    finally:\n"
    "        {end}\nreturn v\n",
    "if-break": "while True:\n    try:\n        v = int(x)\n    finally:\n        if a:\n            {end}\n    break\n"
    "return v\n",
    "handled": "while True:\n    try:\n        v = int(x)\n    except ValueError:\n        v = 0\n    finally:\n"
    "        {end}\n    break\nreturn v\n",
}
ACCEPTED = {  # correct code the walk refused
    "while-walrus": "it = iter(xs)\nwhile (v := next(it, None)) is not None:\n    pass\nreturn v\n",
    "assert-not-none": "m = None\nif a:\n    m = a\n    v = 1\nassert m is not None\nreturn v\n",
    "guarded-for": "if not xs:\n    return 0\nfor y in xs:\n    v = y\nreturn v\n",
    "guarded-for-wrong-way": "if xs:\n    return 0\nfor y in xs:\n    v = y\nreturn v\n",
}
SHAPES = sample(
    [("walrus", k) for k in WALRUS]
    + [("with", k) for k in MANAGERS]
    + [("finally", f"{k}:{end}") for k in FINALLY for end in ("break", "pass")]
    + [("finally", "for-break:continue"), ("finally", "for-break:return 0")]
    + [("accepted", k) for k in ACCEPTED]
)


@pytest.mark.parametrize(("kind", "shape"), SHAPES, ids=["-".join(c) for c in SHAPES])
def test_a_binding_that_may_not_run_is_claimed(kind: str, shape: str) -> None:
    if kind == "walrus":
        check(WALRUS[shape])
    elif kind == "with":
        enter = "    st.enter_context(quiet(ValueError))\n" if " as st" in MANAGERS[shape] else ""
        check(f"with {MANAGERS[shape]}:\n{enter}    v = int(x)\nreturn v\n", HEAD + OWN)
    elif kind == "finally":
        name, end = shape.split(":")
        check(FINALLY[name].format(end=end))
    else:
        check(ACCEPTED[shape])
