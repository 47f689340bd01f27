"""Code a patch puts after a statement control never gets past (return, raise, continue, break,
an if/else or try whose every path leaves, `while True:` without a break) never runs: refused.

Generated: terminators (a match with a `case _:`, a loop whose else leaves, a `with`, a constant
test among them) times inserted code (a def, an assignment, a class, an import, a call) times the
block it is in (a function body, a loop, an `if` or a `with` in it). Every patched
function is run under a line tracer for several arguments: the proof must refuse exactly the code
no run reaches, and accept (and the run reach) the code after statements that only sometimes leave.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.reach import lines_run, unreachable

# (the statements, whether control can get past them); {I} is the indentation of the block
ENDINGS = {
    "return": ("{I}return x\n", False),
    "raise": ("{I}raise ValueError(x)\n", False),
    "if-else-return": ("{I}if x:\n{I}    return 1\n{I}else:\n{I}    return 2\n", False),
    "if-return-else-raise": ("{I}if x:\n{I}    return 1\n{I}else:\n{I}    raise KeyError(x)\n", False),
    "try-return-except-raise": ("{I}try:\n{I}    return 1 / x\n{I}except ZeroDivisionError:\n{I}    raise\n", False),
    "try-finally-return": ("{I}try:\n{I}    x += 1\n{I}finally:\n{I}    return x\n", False),
    "while-true": ("{I}while True:\n{I}    x += 1\n{I}    if x > 3:\n{I}        return x\n", False),
    "with-return": ("{I}with contextlib.nullcontext():\n{I}    return x\n", False),
    "if-return": ("{I}if x:\n{I}    return 1\n", True),
    "try-return-except-pass": ("{I}try:\n{I}    return 1 / x\n{I}except ZeroDivisionError:\n{I}    pass\n", True),
    "while-true-break": ("{I}while True:\n{I}    break\n", True),
    "while-cond": ("{I}while x > 10:\n{I}    return x\n", True),
    "with-raise": ("{I}with contextlib.suppress(ValueError):\n{I}    raise ValueError(x)\n", True),
    "nothing": ("", True),
    # match, loops with an else, `with` and constant tests (att21 F4)
    "match-every-case-returns": (
        "{I}match x:\n{I}    case 1:\n{I}        return 1\n{I}    case _:\n{I}        return 2\n",
        False,
    ),
    "match-capture-raises": (
        "{I}match x:\n{I}    case 0:\n{I}        return 0\n{I}    case y:\n{I}        raise KeyError(y)\n",
        False,
    ),
    "match-or-wildcard": ("{I}match x:\n{I}    case 1 | _:\n{I}        return 1\n", False),
    "match-no-wildcard": (
        "{I}match x:\n{I}    case 1:\n{I}        return 1\n{I}    case 5:\n{I}        return 2\n",
        True,
    ),
    "match-guarded-wildcard": ("{I}match x:\n{I}    case _ if x > 3:\n{I}        return 1\n", True),
    "match-one-case-falls": (
        "{I}match x:\n{I}    case 1:\n{I}        return 1\n{I}    case _:\n{I}        pass\n",
        True,
    ),
    "for-else-raise": (
        "{I}for i in range(x):\n{I}    if i > 2:\n{I}        return i\n{I}else:\n{I}    raise ValueError(x)\n",
        False,
    ),
    "while-cond-else-return": ("{I}while x > 10:\n{I}    x -= 1\n{I}else:\n{I}    return x\n", False),
    "for-break-else-raise": (
        "{I}for i in range(x):\n{I}    if i > 2:\n{I}        break\n{I}else:\n{I}    raise ValueError(x)\n",
        True,
    ),
    "for-else-pass": ("{I}for i in range(x):\n{I}    return i\n{I}else:\n{I}    pass\n", True),
    "with-if-else-return": (
        "{I}with contextlib.nullcontext():\n{I}    if x:\n{I}        return 1\n{I}    else:\n{I}        return 2\n",
        False,
    ),
    "with-if-return-else-raise": (
        "{I}with contextlib.suppress(KeyError):\n{I}    if x:\n{I}        return 1\n"
        "{I}    else:\n{I}        raise KeyError(x)\n",
        True,
    ),
    "try-except-both-return": ("{I}try:\n{I}    return 1 / x\n{I}except ZeroDivisionError:\n{I}    return 0\n", False),
    "if-true-return": ("{I}if True:\n{I}    return x\n", False),
    "if-false-return": ("{I}if False:\n{I}    return x\n", True),
    # a break in a nested loop's else belongs to the outer loop; one in its body does not (att21c F9)
    "while-true-for-else-break": (
        "{I}while True:\n{I}    for i in range(x):\n{I}        pass\n{I}    else:\n{I}        break\n",
        True,
    ),
    "while-true-while-else-break": (
        "{I}while True:\n{I}    while x > 10:\n{I}        x -= 1\n{I}    else:\n{I}        break\n",
        True,
    ),
    "while-true-try-for-else-break": (
        "{I}while True:\n{I}    try:\n{I}        for i in range(x):\n{I}            pass\n"
        "{I}        else:\n{I}            break\n{I}    finally:\n{I}        pass\n",
        True,
    ),
    "while-true-nested-body-break": (
        "{I}while True:\n{I}    for i in range(3):\n{I}        break\n{I}    else:\n{I}        pass\n{I}    return x\n",
        False,
    ),
}
LOOP_ENDINGS = {"continue": ("{I}continue\n", False), "break": ("{I}break\n", False)}

INSERTED = {
    "def": "{I}def inner():\n{I}    return 1\n",
    "assignment": "{I}y = 2\n",
    "class": "{I}class Local:\n{I}    pass\n",
    "import": "{I}import os\n",
    "call": "{I}len([x])\n",
}


# the block the ending and the inserted code are in: the function's body, or a block in it that runs
BLOCKS = {
    "function": "",
    "loop": "    for i in range(3):\n",
    "if": "    if x is not None:\n",
    "with": "    with contextlib.nullcontext():\n",
}


def build(ending: str, inserted: str | None, block: str) -> tuple[str, int]:
    """The module, and the line the inserted code starts at."""
    text = {**ENDINGS, **LOOP_ENDINGS}[ending][0]
    head = "import contextlib\n\n\ndef f(x):\n"
    head += BLOCKS[block]
    indent = "        " if BLOCKS[block] else "    "
    head += text.format(I=indent) or indent + "pass\n"
    body = INSERTED[inserted].format(I=indent) if inserted else ""
    return head + body + "    return 0\n" * bool(BLOCKS[block]), len(head.splitlines()) + 1


def reached_lines(source: str) -> set[int]:
    namespace: dict[str, Any] = {"__name__": "generated"}
    exec(compile(source, "generated.py", "exec"), namespace)
    with lines_run("generated.py") as lines:
        for x in (0, 1, 5, 20):
            with contextlib.suppress(ValueError, KeyError, ZeroDivisionError):
                namespace["f"](x)
    return lines


CASES = sample(
    (e, i, b)
    for e, i, b in itertools.product([*ENDINGS, *LOOP_ENDINGS], INSERTED, BLOCKS)
    if e not in LOOP_ENDINGS or b == "loop"
)


@pytest.mark.parametrize(("ending", "inserted", "block"), CASES, ids=["-".join(c) for c in CASES])
def test_code_after_a_statement_control_never_gets_past_is_refused(ending: str, inserted: str, block: str) -> None:
    (before, _), (after, first) = build(ending, None, block), build(ending, inserted, block)
    runs = first in reached_lines(after)
    found = unreachable(before, after)
    falls = {**ENDINGS, **LOOP_ENDINGS}[ending][1]
    assert runs == falls, (after, first)
    assert bool(found) == (not runs), (after, found)
    if found:
        assert f"its code at line {first} " in found[0] and "never runs" in found[0], found


def test_code_the_original_already_had_after_a_return_does_not_count() -> None:
    before = "def f(x):\n    return x\n    y = 1\n"
    assert unreachable(before, before.replace("return x", "return x + 1")) == []
    # ... but changing that dead code is a change that never runs
    assert unreachable(before, before.replace("y = 1", "y = 2")) != []


EXITS = [(e, b) for e in [*ENDINGS, *LOOP_ENDINGS] for b in BLOCKS if not {**ENDINGS, **LOOP_ENDINGS}[e][1]]
EXITS = [(e, b) for e, b in EXITS if e not in LOOP_ENDINGS or b == "loop"]
EXITS_KEPT = sample((e, b, k) for (e, b), k in itertools.product(EXITS, INSERTED))


@pytest.mark.parametrize(("ending", "block", "kept"), EXITS_KEPT, ids=["-".join(c) for c in EXITS_KEPT])
def test_an_early_exit_the_patch_adds_before_the_originals_code_is_its_meaning(
    ending: str, block: str, kept: str
) -> None:
    """A Debian CVE backport adds a `raise` and leaves the install's next line behind it: the
    original's statement the exit now skips is what the patch means, not code it adds. Code the
    patch adds there, or an original statement it changes there, still never runs: refused."""
    indent = "        " if BLOCKS[block] else "    "
    original = INSERTED[kept].format(I=indent)
    head = "import contextlib\n\n\ndef f(x):\n" + BLOCKS[block]
    tail = "    return 0\n" * bool(BLOCKS[block])
    exit_ = {**ENDINGS, **LOOP_ENDINGS}[ending][0].format(I=indent)
    before = head + original + tail
    after = head + exit_ + original + tail
    first = len((head + exit_).splitlines()) + 1
    assert first not in reached_lines(after)  # the original's code no longer runs: the exit's meaning
    assert unreachable(before, after) == [], after
    added = head + exit_ + original + f"{indent}z = 3\n" + tail
    found = unreachable(before, added)
    assert len(found) == 1 and f"its code at line {first + len(original.splitlines())} " in found[0], found
    changed = (
        head
        + exit_
        + original.replace("1", "7")
        .replace("2", "8")
        .replace("os", "sys")
        .replace("Local", "Other")
        .replace("[x]", "[x, x]")
        + tail
    )
    assert changed != after and unreachable(before, changed) != [], changed
