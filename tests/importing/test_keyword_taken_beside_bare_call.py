"""Issue 20 (kw45): a keyword taken from one of several calls to a callee while another call to it
passes none was imported as one wider `replace` (of the call's statement, or `replace_decorator`/
`set_default` in a definition's header): taken away, the call looks like the one that never passed
the keyword, and the inverse could not tell which call gets it back. set_keyword's
`call_occurrence:` (the call's number among every call to the callee, in source order) tells it;
and in a header with two calls to one callee, a value changed or a keyword added is picked by
`occurrence:` (counted within the header) or `call_occurrence:`, no longer the wider rewrite.

Generated: where the calls are (a function's body, the module, a function's decorators, its
parameters' defaults) x how many calls to `h` (2, 3) x what each passes (`k=1`, nothing, `k=9`) x
which call changes x the change (`k=1` taken away, its value changed, `k=7` added to a call passing
none; in a body, `k=1` taken from every call passing it, one step each) x the calls' other keyword
(none, `m=2` after `k`). As data (a set_keyword per call, no wider rewrite, no note; a keyword taken
away beside a call passing none picked by its number), run by the engine (the after file's bytes,
and back to the installed ones: check); a batch through `radpatch import` on a pip-installed wheel,
apply, `status --check` and revert, against GNU `patch -p1`, byte for byte.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check

PLACES = ("function", "module", "decorators", "defaults")
PASSES = {"pass": "k=1", "bare": "", "other": "k=9"}
CHANGED = {"five": "k=5", "seven": "k=7"}  # a call as the change leaves it
CHANGES = ("take", "value", "add", "take-every")
TAILS = ("", "m=2")
HEAD = "def h(*args, **kwargs):\n    return lambda x: x\n\n\n"


def _call(j: int, state: str, tail: str) -> str:
    return "h(" + ", ".join(a for a in (str(j), {**PASSES, **CHANGED}[state], tail) if a) + ")"


def module(place: str, states: tuple[str, ...], tail: str) -> str:
    calls = [_call(j, s, tail) for j, s in enumerate(states)]
    if place == "function":
        return HEAD + "def f():\n" + "".join(f"    x{j} = {c}\n" for j, c in enumerate(calls)) + "    return x0\n"
    if place == "module":
        return HEAD + "".join(f"{c}\n" for c in calls)
    if place == "decorators":
        return HEAD + "".join(f"@{c}\n" for c in calls) + "def f(a):\n    return a\n"
    params = ", ".join(f"a{j}={c}" for j, c in enumerate(calls))
    return HEAD + f"def f({params}):\n    return a0\n"


def _cases() -> list[tuple[str, tuple[str, ...], int, str, str]]:
    out = []
    for place, n, change, tail in itertools.product(PLACES, (2, 3), CHANGES, TAILS):
        for states in itertools.product(PASSES, repeat=n):
            for i, s in enumerate(states):
                if s != ("bare" if change == "add" else "pass"):
                    continue
                if change == "take-every" and (states.count("pass") < 2 or i != states.index("pass")):
                    continue  # `k=1` taken from every call passing it (two or three), said once
                if change == "take-every" and place in ("decorators", "defaults"):
                    continue  # two calls of one header changed: the wider rewrite still (not said here)
                others = states[:i] + states[i + 1 :]
                # the class: another call passing none beside the keyword taken away (a value or an
                # added keyword: beside another call to `h`, which a header did not allow)
                if change == "take" and "bare" not in others:
                    continue
                out.append((place, states, i, change, tail))
    return out


CASES = sample(_cases())


def case(place: str, states: tuple[str, ...], i: int, change: str, tail: str) -> tuple[str, str]:
    now = {"take": "bare", "value": "five", "add": "seven", "take-every": "bare"}[change]
    before = module(place, states, tail)
    if change == "take-every":
        return before, module(place, tuple("bare" if s == "pass" else s for s in states), tail)
    after = module(place, (*states[:i], now, *states[i + 1 :]), tail)
    return before, after


def _op(keys: dict[str, object]) -> SetKeyword:
    def text(k: str) -> str | None:
        return None if k not in keys else str(keys[k])

    def number(k: str) -> int | None:
        return None if k not in keys else int(str(keys[k]))

    return SetKeyword(
        str(keys["scope"]),
        str(keys["call"]),
        str(keys["keyword"]),
        from_=text("from"),
        to=text("to"),
        after=text("after"),
        before=text("before"),
        occurrence=number("occurrence"),
        header=text("header"),
        call_occurrence=number("call_occurrence"),
    )


@pytest.mark.parametrize(("place", "states", "i", "change", "tail"), CASES)
def test_one_set_keyword_picks_the_call(place: str, states: tuple[str, ...], i: int, change: str, tail: str) -> None:
    before, after = case(place, states, i, change, tail)
    got = rewrites(before, after)
    taken = [j for j, s in enumerate(states) if s == "pass"] if change == "take-every" else [i]
    assert [s.op for s in got.steps] == ["set_keyword"] * len(taken), got
    assert not got.fallbacks, got
    keys = [dict(s.keys) for s in got.steps]
    assert {k.get("header") for k in keys} == {place if place in ("decorators", "defaults") else None}, keys
    if change == "take":  # beside a call passing none: picked by its number among the calls to `h`
        assert [(k.get("call_occurrence"), k.get("occurrence")) for k in keys] == [(i + 1, None)], keys
    # taken from every call passing it: each by `occurrence:` where its inverse tells the call apart
    # by the calls passing it around it, else by its number (the engine's round trip says whether it can)
    check(before, tuple(_op(k) for k in keys), after)  # the after file's bytes, and back to the installed ones


@pytest.mark.wheel
def test_each_import_applies_as_gnu_patch_gives(tmp_path: Path) -> None:
    batch = CASES[::16]
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in batch], batch)
