"""A `break` or `continue` in an `except` handler inside a loop leaves the loop with what the path
to the handler bound: not the try body's bindings (attack on issue 21, F3): `while True: try: item =
q.get_nowait() / except queue.Empty: break / break` then `return item` was applied and raised
UnboundLocalError on an empty queue; the break's path was said to bind what the try body binds,
a sibling branch closed before the handler whose join was still to come.

Generated: the loop (while True, a one-item literal, a pass per input) x what the handler does
(break, continue, pass, raise, bind then break) x what follows the try in the body (break, nothing)
x the read (after the loop, in the else). Oracle: the function run on good and bad input: the names
step refuses exactly where a run raises UnboundLocalError, but for a `for` loop's zero passes over
an iterable not known empty, which are not counted (prove/names/loops.py: a run with no input is
left out for the per-input loop)."""

from __future__ import annotations

import itertools

import pytest

from tests.lib.blocks import indent
from tests.lib.branch_constructs import refused
from tests.lib.generated import sample

LOOPS = {"while-true": "while True:\n", "literal": "for _ in [1]:\n", "per-input": "for a in xs:\n"}
HANDLERS = {
    "break": "break\n",
    "continue": "continue\n",
    "pass": "pass\n",
    "raise": "raise\n",
    "bind-break": "v = 0\nbreak\n",
}
AFTER = {"break": "break\n", "nothing": ""}
INPUTS = (["1"], ["x"], ["x", "2"], [])


def code(loop: str, handler: str, after: str) -> str:
    body = "try:\n    v = int(a)\nexcept ValueError:\n" + indent(HANDLERS[handler], "    ") + AFTER[after]
    if loop == "while-true" and after == "nothing":
        body += "break\n"  # a pass that surely ends (else the loop never does)
    if loop == "while-true":  # each pass takes the next input, then good ones: the loop ends
        body = "a = next(it, '1')\n" + body
    inner = LOOPS[loop] + indent(body, "    ")
    head = {"while-true": "it = iter(xs)\n", "literal": "a = xs[0] if xs else 'x'\n"}.get(loop, "")
    return "def f(xs):\n" + indent(head + inner + "return v\n", "    ")


def raises(text: str, loop: str) -> bool:
    space: dict[str, object] = {}
    exec(text, space)
    for xs in INPUTS if loop != "per-input" else [i for i in INPUTS if i]:
        try:
            space["f"](xs)  # type: ignore[operator]
        except UnboundLocalError:
            return True
        except ValueError:
            continue
    return False


CASES = sample(list(itertools.product(LOOPS, HANDLERS, AFTER)))


@pytest.mark.parametrize(("loop", "handler", "after"), CASES)
def test_a_handler_leaving_the_loop_carries_only_its_own_path(loop: str, handler: str, after: str) -> None:
    patched = code(loop, handler, after)
    before = patched.replace("    return v\n", "    return 0\n")
    assert bool(refused(before, patched)) == raises(patched, loop), patched
