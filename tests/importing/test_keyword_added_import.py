"""Issue 20: a keyword argument added to a call (`Foo(a, b=1)` -> `Foo(a, b=1, c=2)`) or taken
from it was imported as a `replace` of the whole call statement (6 of the 8 wide rewrites of a real
20-patch series, Emu3.5 for vLLM 0.11.0), which breaks on any upstream edit of the call's other
arguments. Now it is `set_keyword` without `from:` (added) or without `to:` (taken away), with
`after:` where the keyword does not go where the operation puts one, and `occurrence:` among the
calls it matches (a keyword taken away beside another call passing none: `call_occurrence:`, the
call's number among the calls to the callee, kw45).

Generated: calls with positional arguments, keywords, `*args`, `**kwargs`, a call nested in the
changed one, on one line or one argument per line, with or without other calls to the callee in
the scope x a keyword added last, added in the middle, taken from the end or from the middle. As
data (the steps the importer chooses), and against the oracle: each case's GNU diff imported,
applied by the real engine, AST-equal to what GNU patch gives, `status --check` 0, reverted; the
written entry uses set_keyword and does not carry the call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import call_of_h as call
from tests.lib.importing import imported_as_gnu_patch_give_each, imported_as_gnu_patch_gives

SHAPES = (
    ("a",),
    ("a", "b"),
    ("a", "k0=1"),
    ("a", "k0=1", "k1=2", "k2=3"),
    ("*xs", "k0=1"),
    ("a", "**kw"),
    ("a", "k0=1", "**kw"),
    ("h(a)", "k0=1"),
)
OTHERS = ("", "    z = h(b)\n", "    z = h(b, k0=5, new=0)\n")
CHANGES = ("add", "add-middle", "add-first", "take-last", "take-middle", "take-first")


def module(args: tuple[str, ...], layout: str, other: str) -> str:
    return (
        "def h(*args, **kwargs):\n    return args, kwargs\n\n\n"
        f"def f(a, b, xs, kw):\n    first = 0\n{other}    y = {call(args, layout)}\n    return y\n"
    )


def changed(args: tuple[str, ...], change: str) -> tuple[str, ...] | None:
    """The call's arguments after the change, None where the shape has no such place."""
    named = [i for i, a in enumerate(args) if "=" in a]
    if change == "add":
        at = named[-1] + 1 if named else next((i for i, a in enumerate(args) if a.startswith("**")), len(args))
        return (*args[:at], "new=7", *args[at:])
    if change == "add-middle":
        return (*args[:2], "new=7", *args[2:]) if len(named) >= 2 else None
    if change == "add-first":
        return (*args[: named[0]], "new=7", *args[named[0] :]) if len(named) >= 2 else None
    if change == "take-first":
        return (*args[: named[0]], *args[named[0] + 1 :]) if len(named) >= 2 else None
    if change == "take-last":
        return (*args[: named[-1]], *args[named[-1] + 1 :]) if named else None
    return (*args[: named[1]], *args[named[1] + 1 :]) if len(named) >= 3 else None


def _cases() -> list[tuple[tuple[str, ...], str, str, str]]:
    return [
        (args, layout, other, change)
        for args in SHAPES
        for layout in ("line", "lines")
        for other in OTHERS
        for change in CHANGES
        if changed(args, change) is not None
    ]


CASES = sample(_cases())


def case(args: tuple[str, ...], layout: str, other: str, change: str) -> tuple[str, str]:
    after = changed(args, change)
    assert after is not None
    return module(args, layout, other), module(after, layout, other)


def narrow(args: tuple[str, ...], other: str, change: str) -> bool:
    """Whether set_keyword says it without `call_occurrence:`: a keyword taken away is put back by
    the inverse on the one call passing no such keyword; beside another call lacking it in the
    scope, the call is picked by its number among the calls to `h` (kw45; it was the wider replace)."""
    if change.startswith("add"):
        return True
    named = [a for a in args if "=" in a]
    taken = named[-1] if change == "take-last" else named[1] if change == "take-middle" else named[0]
    name = taken.split("=")[0]
    lacking = (bool(other) and f"{name}=" not in other) or "h(a)" in args
    return not lacking


@pytest.mark.parametrize(("args", "layout", "other", "change"), CASES)
def test_the_keyword_is_one_set_keyword_step(args: tuple[str, ...], layout: str, other: str, change: str) -> None:
    before, after = case(args, layout, other, change)
    got = rewrites(before, after)
    assert [s.op for s in got.steps] == ["set_keyword"], got
    keys = dict(got.steps[0].keys)
    # beside another call lacking the keyword: the call's number among the calls to `h`
    assert keys.get("call_occurrence") == (None if narrow(args, other, change) else 1 + bool(other)), keys
    assert ("from" in keys) != change.startswith("add") and ("to" in keys) == change.startswith("add")
    assert ("after" in keys) == change.endswith("middle"), keys
    assert ("before" in keys) == change.endswith("first"), keys
    several = other == "    z = h(b)\n" or "h(a)" in args
    assert ("occurrence" in keys) == (change.startswith("add") and several), keys
    assert not got.fallbacks


@pytest.mark.wheel
def test_each_imported_keyword_applies_as_gnu_patch_gives_and_says_only_the_keyword(tmp_path: Path) -> None:
    cases = [case(*c) for c in CASES]
    entries = imported_as_gnu_patch_give_each(tmp_path, cases)
    failed = [i for i in range(len(cases)) if i not in entries]
    if failed:
        imported_as_gnu_patch_gives(tmp_path / "alone", *cases[failed[0]])
    assert not failed, [CASES[i] for i in failed]
    for i, (args, _layout, _other, _change) in enumerate(CASES):
        ops = [next(k for k in rw if k not in ("id", "file", "versions")) for rw in entries[i]["rewrites"]]  # type: ignore[attr-defined]
        assert ops == ["set_keyword"], (CASES[i], entries[i])
        written = repr(entries[i]["rewrites"])
        assert call(args, "line") not in written and "h(\\n" not in written, written
