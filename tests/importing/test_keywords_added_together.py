"""Issue 20: several keyword arguments added to one call, or taken from it, import as one
`set_keyword` per keyword, not a `replace` of the whole call (pegaflow's vLLM 0.13.0 patch gave
eleven calls `enable_deferred_release=` and `enable_coalescing=` each; every one was a replace
carrying the call's other arguments, which breaks on any upstream edit of them).

Added to a call picked by `occurrence:` (another call to the callee in the scope lacks them too),
each keyword is its own counted set_keyword as well: apply follows the call through the earlier
steps' edits of its line (rewrite.line_map), so the wider replace is gone there. Taken from it, by
`call_occurrence:` (its number among the calls to the callee, kw45), so the wider replace is gone
there too.

Generated: calls with positional arguments, keywords, `**kwargs`, on one line or one argument per
line, with or without another call to the callee in the scope x two or three keywords added at the
end, in the middle, first or spread, or taken away. As data (the steps the importer chooses: every
one set_keyword, the call's other arguments not in the entry), and against the oracle: each case's
GNU diff imported, applied by the real engine, AST-equal to what GNU patch gives, `status --check`
0, reverted to the installed bytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.importing import call_of_h as call

SHAPES = (
    ("a",),
    ("a", "b"),
    ("a", "k0=1"),
    ("a", "k0=1", "k1=2"),
    ("a", "k0=1", "**kw"),
)
OTHERS = ("", "    z = h(b, k0=5)\n")
NEW = ("n1=7", "n2=f(8)", "n3=[9]")
CHANGES = ("add-2-end", "add-3-end", "add-2-first", "add-2-spread", "take-2", "take-all")


def module(args: tuple[str, ...], layout: str, other: str) -> str:
    return (
        "def h(*args, **kwargs):\n    return args, kwargs\n\n\n"
        "def f(a, b, kw):\n    first = 0\n"
        f"{other}    y = {call(args, layout)}\n    return y\n"
    )


def changed(args: tuple[str, ...], change: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(before, after) arguments of the call, None where the shape has no such change."""
    named = [i for i, a in enumerate(args) if "=" in a]
    end = named[-1] + 1 if named else next((i for i, a in enumerate(args) if a.startswith("**")), len(args))
    if change.startswith("add-") and change.endswith("-end"):
        n = int(change.split("-")[1])
        return args, (*args[:end], *NEW[:n], *args[end:])
    if change == "add-2-first":
        return (args, (*args[: named[0]], *NEW[:2], *args[named[0] :])) if named else None
    if change == "add-2-spread":
        return (args, (*args[: named[0]], NEW[0], *args[named[0] : end], NEW[1], *args[end:])) if named else None
    full = (*args[:end], *NEW[:2], *args[end:])  # take away from a call that passes two more
    if change == "take-2":
        return full, args
    return (full, tuple(a for a in full if "=" not in a)) if len([a for a in full if "=" in a]) >= 2 else None


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
    got = changed(args, change)
    assert got is not None
    return module(got[0], layout, other), module(got[1], layout, other)


@pytest.mark.parametrize(("args", "layout", "other", "change"), CASES)
def test_each_keyword_is_its_own_set_keyword_step(args: tuple[str, ...], layout: str, other: str, change: str) -> None:
    before, after = case(args, layout, other, change)
    got = rewrites(before, after)
    assert {s.op for s in got.steps} == {"set_keyword"} and len(got.steps) >= 2, got
    assert not got.fallbacks, got
    if other and change.startswith("take"):
        # taken, as for one keyword (test_keyword_added_import.narrow): the other call lacks the keywords
        # taken away, so each step picks the call by its number among the calls to `h` (kw45)
        # (k0, which the other call passes with another value, needs no pick)
        picks = {dict(s.keys)["keyword"]: dict(s.keys).get("call_occurrence") for s in got.steps}
        assert picks == {k: None if k == "k0" else 2 for k in picks}, got.steps
        return
    # added beside another call lacking them too: each set_keyword picks the call by its occurrence
    # (the second of the scope's calls to `h`; apply follows it through the earlier steps' edits)
    assert {dict(s.keys).get("occurrence") for s in got.steps} == ({2} if other else {None}), got.steps
    kept = [a for a in args if a not in NEW and "=" not in a]  # the call's own positional arguments
    for s in got.steps:
        said = " ".join(str(v) for _, v in s.keys)
        assert "h(" not in said and not any(f"{k}," in said for k in kept), said


@pytest.mark.wheel
def test_each_import_applies_as_gnu_patch_gives(tmp_path: Path) -> None:
    cases = [case(*c) for c in CASES]
    assert_each_imported_as_gnu_patch(tmp_path, cases, CASES)
