"""A name bound in some branches of an `if`/`match`/`try` only, then read after it, is refused as
bound on some paths only (att21c: a name bound in one `match` case arm and read after the match was
accepted as bound). Branches that all bind it, or whose other paths leave (raise, return), or a
match with an irrefutable case (`case _:`, a capture) that binds it, are accepted; so is a read inside
a later branch, whose test may be the one that bound it (`if a: y = 1` ... `if a: use(y)`).

Generated: the construct (match arms, with and without a wildcard, a guarded wildcard, an or-pattern,
an arm that raises; if/elif/else; try/except; nested) times the scope (a function, module level).
The oracle runs each module for every subject value and says whether a NameError or
UnboundLocalError can happen: the names step refuses exactly those."""

from __future__ import annotations

import itertools
import sys
import textwrap

import pytest

from tests.lib.blocks import indent
from tests.lib.branch_constructs import CONSTRUCTS, refused
from tests.lib.generated import sample

GUARDED_IMPORTS = {  # decided once per install, as a version test per target: not counted here
    "try-import-else": "try:\n    import os\nexcept ImportError:\n    pass\nelse:\n    y = os.sep\n",
    "try-import-handler": "try:\n    import os as y\nexcept ImportError:\n    pass\n",
}
SCOPES = ("function", "module")
SUBJECTS = (0, 1, 2)
COUNTS = (1, 2, 3)


def module(construct: str, scope: str, read: str) -> str:
    code = CONSTRUCTS[construct] + read
    if scope == "function":
        return "def f(x):\n" + indent(code, "    ")
    return "x = X\n" + code


def fails(source: str, scope: str) -> bool:
    """Does some subject value make the module (or f) raise NameError/UnboundLocalError?"""
    for value in SUBJECTS:
        namespace: dict[str, object] = {"X": value}
        try:
            exec(compile(source, "generated.py", "exec"), namespace)
            if scope == "function":
                namespace["f"](value)  # type: ignore[operator]
        except NameError:  # UnboundLocalError is one
            return True
        except ValueError:
            continue
    return False


CASES = sample(itertools.product(CONSTRUCTS, SCOPES))


@pytest.mark.parametrize(("construct", "scope"), CASES, ids=[f"{c}-{s}" for c, s in CASES])
def test_a_read_after_the_branches_is_refused_exactly_where_a_path_leaves_the_name_unbound(
    construct: str, scope: str
) -> None:
    read = "return y\n" if scope == "function" else "Y = y\n"
    before, after = module(construct, scope, ""), module(construct, scope, read)
    found = refused(before, after)
    assert bool(found) == fails(after, scope), (after, found)
    if found:
        assert "is bound on some paths only" in found[0].describe(), found[0].describe()


@pytest.mark.parametrize("construct", [c for c in CONSTRUCTS if c.startswith(("match", "if", "elif"))])
def test_a_read_inside_a_later_branch_is_accepted(construct: str) -> None:
    """Control: `if x == 1: y = 1` ... `if x == 1: use(y)` is correct code radpatch cannot refuse."""
    read = textwrap.dedent("""\
        if x == 1:
            return y
        return 0
        """)
    assert not refused(module(construct, "function", ""), module(construct, "function", read))


@pytest.mark.parametrize(
    "test", ["sys.version_info >= (3, 11)", "sys.version_info[:2] < (3, 99)", "PY_NEW", "not PY_NEW", "not __debug__"]
)
def test_a_test_on_the_python_version_is_not_a_branch_this_check_counts(test: str) -> None:
    """Control: a version test is constant on the target (placement and fallback_only decide it there);
    `__debug__` is constant for a run (tests/importing wraps statements in `if not __debug__: ... else:`)."""
    head = "import sys\nPY_NEW = sys.version_info >= (3, 11)\n"
    before = head + f"if {test}:\n    import json as y\n"
    assert not refused(before, before + "Y = y.dumps\n")


@pytest.mark.parametrize("construct", list(GUARDED_IMPORTS))
def test_a_guarded_import_is_not_a_branch_this_check_counts(construct: str) -> None:
    """Control: whether `try: import os` fails is the install's (fallback_only and placement's fallbacks)."""
    before = GUARDED_IMPORTS[construct]
    assert not refused(before, before + "Y = y\n")


def test_a_branch_fixed_for_a_run_inside_another_is_not_counted_at_the_outer_join() -> None:
    """Control (tests/importing's shape): `if not __debug__: ... else: y = 2` in the else of an if/else."""
    before = "def f(x):\n    if x:\n        y = 1\n    else:\n        if not __debug__:\n            pass\n"
    before += "        else:\n            y = 2\n"
    assert not refused(before, before + "    return y\n")


def flagged(construct: str) -> str:
    """The construct with a flag set beside each binding of `y` (`ok = True`), False before it (a
    capture pattern's too: with no flag set the exit always runs and the read is dead code)."""
    out = ["ok = False"]
    for line in CONSTRUCTS[construct].splitlines():
        out.append(line)
        margin = line[: len(line) - len(line.lstrip())]
        if line.lstrip().startswith("y = "):
            out.append(margin + "ok = True")
        elif " as y]:" in line:  # a capture pattern binds it: the flag opens the case's body
            out.append(margin + "    ok = True")
    return "\n".join(out) + "\n"


EXITS = {"function": "if not ok:\n    return 0\nreturn y\n", "module": "if not ok:\n    raise ValueError(x)\nY = y\n"}
FLAGGED = sample(itertools.product(CONSTRUCTS, SCOPES))


@pytest.mark.parametrize(("construct", "scope"), FLAGGED, ids=[f"{c}-{s}" for c, s in FLAGGED])
def test_a_path_a_flag_ends_before_the_read_is_not_claimed(construct: str, scope: str) -> None:
    """A branch that ends its path between the join and the read (`if not ok: return`) may end exactly
    the paths that left the name unbound, as in Django's CVE-2024-39329 fix of check_password
    (`except ValueError: fake_runtime = True` ... `if fake_runtime: return False` ... `hasher.algorithm`):
    correct code, which a walk that does not follow values must not refuse."""
    code = flagged(construct) + EXITS[scope]
    if scope == "function":
        before, after = "def f(x):\n" + indent(flagged(construct), "    "), "def f(x):\n" + indent(code, "    ")
    else:
        before, after = "x = X\n" + flagged(construct), "x = X\n" + code
    assert not fails(after, scope), after  # the oracle: the flag guards every path
    assert not refused(before, after), after


LOOPED = [  # constructs the oracle runs for every count x in COUNTS, read after the whole if
    "if x == 1:\n    y = 1\nelse:\n    for i in range(x):\n        y = i\n",
    "if x == 1:\n    y = 1\nelse:\n    while True:\n        y = x\n        break\n",
    "if x:\n    for i in [x]:\n        y = i\nelse:\n    y = 0\n",
]
SIBLINGS = [  # a nested if's partial binding, with the name bound in the outer if's other branch
    "if x:\n    if x == 1:\n        y = 1\nelse:\n    y = 2\n",
    "if x:\n    match x:\n        case 1:\n            y = 1\n        case _:\n            pass\nelse:\n    y = 2\n",
]


@pytest.mark.parametrize("construct", LOOPED)
def test_a_branch_that_binds_in_a_loop_does_not_count_as_unbinding(construct: str) -> None:
    """The omni-infer vLLM 0.9.0 series' AsyncLLM.generate: `output` bound in the if and in a for loop
    over range(n) in the else, n a count the if compares with 1 (`sampling_params.n`): correct code for
    every count, which the walk takes n for (names/loops); a non-empty literal, `while True:` left by a
    `break` after the binding. (range(n) over an n no test compares is tests/prove/test_loop_bindings'.)"""
    before = "def f(x):\n" + indent(construct, "    ")
    after = before + "    return y\n"
    for count in COUNTS:
        namespace: dict[str, object] = {}
        exec(compile(after, "generated.py", "exec"), namespace)
        namespace["f"](count)  # type: ignore[operator]
    assert not refused(before, after), after


@pytest.mark.parametrize("construct", SIBLINGS)
def test_a_binding_in_a_sibling_branch_keeps_the_nested_claim(construct: str) -> None:
    """`if x: (if x == 1: y = 1) else: y = 2` then `return y`: x == 2 leaves y unbound; the else's
    binding is on another path than the nested if's, and does not clear its claim."""
    before = "def f(x):\n" + indent(construct, "    ")
    after = before + "    return y\n"
    assert fails(after, "function"), after
    assert refused(before, after), after


ENDINGS = {  # a handler ending in a call that never returns (or may not: this module's own function)
    "sys.exit": "import sys\n", "exit": "", "typing.assert_never": "import typing\n",
    "_fail": "def _fail(s):\n    raise SystemExit(s)\n\n\n", "self._fail": "",
}  # fmt: skip


def _ending_module(callee: str) -> tuple[str, str]:
    head = ENDINGS[callee]
    body = "try:\n    y = int(s)\nexcept ValueError:\n    " + callee + "(s)\n"
    if callee == "self._fail":
        head += "class C:\n    def _fail(self, s):\n        raise SystemExit(s)\n\n    def f(self, s):\n"
        return head + indent(body, "        "), "        return y\n"
    return head + "def f(s):\n" + indent(body, "    "), "    return y\n"


@pytest.mark.parametrize("callee", list(ENDINGS))
def test_a_branch_ending_in_a_call_that_may_not_return_is_not_claimed(callee: str) -> None:
    """attack36 F13: `except ValueError: sys.exit("bad")` (or a helper of the module that always
    raises) then `return y` is correct code; it was refused as bound on some paths only. The oracle
    runs it for a good and a bad value: it returns or exits, never a NameError."""
    before, read = _ending_module(callee)
    after = before + read
    runs = callee != "typing.assert_never" or sys.version_info >= (3, 11)  # typing has it from 3.11
    for value in ("1", "x") if runs else ():
        namespace: dict[str, object] = {}
        exec(compile(after, "generated.py", "exec"), namespace)
        call = namespace["C"]().f if callee == "self._fail" else namespace["f"]  # type: ignore[operator]
        try:
            call(value)  # type: ignore[operator]
        except (SystemExit, AssertionError):  # assert_never raises AssertionError
            pass
    assert not refused(before, after), after


def test_a_branch_ending_in_a_builtin_call_still_is() -> None:
    """Control: `except ValueError: print("bad")` returns, and `return y` then raises UnboundLocalError."""
    before = "def f(s):\n    try:\n        y = int(s)\n    except ValueError:\n        print(s)\n"
    namespace: dict[str, object] = {}
    exec(compile(before + "    return y\n", "generated.py", "exec"), namespace)
    with pytest.raises(UnboundLocalError):
        namespace["f"]("x")  # type: ignore[operator]
    assert refused(before, before + "    return y\n")


HELPER_BODIES = {  # the module's own helper, called as the except branch's last statement
    "raises": ("raise SystemExit(s)\n", True),
    "raises-in-both-branches": ("if s:\n    raise SystemExit(s)\nelse:\n    raise ValueError(s)\n", True),
    "exits": ("import sys\nsys.exit(s)\n", True),
    "loops-forever": ("while True:\n    raise SystemExit(s)\n", True),
    "logs": ("print('bad', s)\n", False),
    "returns": ("return None\n", False),
    "raises-on-some-paths": ("if s == 'x':\n    return None\nraise SystemExit(s)\n", False),
    "try-swallows": ("try:\n    raise ValueError(s)\nexcept ValueError:\n    pass\n", False),
}
HELPER_CASES = sample(itertools.product(HELPER_BODIES, ("function", "method", "classmethod")))


@pytest.mark.parametrize(("body", "kind"), HELPER_CASES, ids=["-".join(c) for c in HELPER_CASES])
def test_a_branch_ending_in_the_modules_own_helper_is_judged_by_the_helpers_code(body: str, kind: str) -> None:
    """attack37: `except ValueError as e: self._note(e)` then `return y` was accepted because any call
    of the module's own might never return; it raises UnboundLocalError when `_note` returns. Now the
    helper's code decides: refused exactly when the oracle (the patched code run on a bad value) gets
    an UnboundLocalError."""
    code, _ = HELPER_BODIES[body]
    helper = "def _end(" + ("cls, " if kind == "classmethod" else "self, " if kind == "method" else "") + "s):\n"
    helper = ("@classmethod\n" if kind == "classmethod" else "") + helper + indent(code, "    ")
    call = {"function": "_end", "method": "self._end", "classmethod": "cls._end"}[kind]
    body_text = "try:\n    y = int(s)\nexcept ValueError:\n    " + call + "(s)\n"
    if kind == "function":
        before = helper + "\n\ndef f(s):\n" + indent(body_text, "    ")
        read = "    return y\n"
    else:
        first = "cls" if kind == "classmethod" else "self"
        deco = "    @classmethod\n" if kind == "classmethod" else ""
        before = (
            "class C:\n"
            + indent(helper, "    ")
            + "\n"
            + deco
            + f"    def f({first}, s):\n"
            + indent(body_text, "        ")
        )
        read = "        return y\n"
    after = before + read
    namespace: dict[str, object] = {}
    exec(compile(after, "generated.py", "exec"), namespace)
    target = namespace["f"] if kind == "function" else namespace["C"]().f  # type: ignore[operator]
    unbound = False
    try:
        target("x")  # type: ignore[operator]
    except UnboundLocalError:
        unbound = True
    except (SystemExit, ValueError):
        pass
    assert unbound == (not HELPER_BODIES[body][1])
    assert bool(refused(before, after)) == unbound, after
