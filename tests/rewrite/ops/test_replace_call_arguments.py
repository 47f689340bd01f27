"""A `replace` of a call whose `with` adds or drops an argument before the last one (issue 20: what
the importer writes for `h(a, k0=1, **kw,)` -> `h(a, **kw,)`). The merge kept the find's layout by
changing the list at its end only: the argument in the middle was rewritten into the next one,
and in a call with one argument per line and a trailing comma radpatch stopped with an internal
error (AssertionError in rewrite.commas.pop). Now the argument is put in or taken out where the
`with` has it, in the call's layout.

Generated: argument lists x layouts (one line; one per line with and without a trailing comma) x
each argument dropped, and a new one put at each index; through plan.plan (the reverse proof),
AST-equal to the `with` in place, the other arguments' lines kept, undone AST-equal.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from radpatch.prove import plan
from radpatch.rewrite import runner
from radpatch.rewrite.ops.replace import Replace
from tests.lib.generated import sample
from tests.lib.rewrites import patch_of

ARGS = (("a", "k0=1", "**kw"), ("a", "b", "k0=1", "k1=2"), ("*xs", "k0=1", "k1=(2, 3)", "**kw"))
LAYOUTS = ("line", "lines", "lines-bare")


def call(args: tuple[str, ...], layout: str, indent: str = "    ") -> str:
    if layout == "line":
        return f"h({', '.join(args)})"
    if layout == "lines":
        return "h(\n" + "".join(f"{indent}    {a},\n" for a in args) + f"{indent})"
    return "h(\n" + ",\n".join(f"{indent}    {a}" for a in args) + f"\n{indent})"


def module(args: tuple[str, ...], layout: str) -> str:
    return f"def f(a, b, xs, kw):\n    y = {call(args, layout)}\n    return y\n"


def _cases() -> list[tuple[tuple[str, ...], str, str, int]]:
    out = []
    for args in ARGS:
        for layout in LAYOUTS:
            out += [(args, layout, "drop", i) for i in range(len(args))]
            out += [(args, layout, "put", i) for i in range(len(args) + 1)]
    return out


@pytest.mark.parametrize(("args", "layout", "change", "at"), sample(_cases()))
def test_an_argument_dropped_or_put_anywhere_keeps_the_others(
    args: tuple[str, ...], layout: str, change: str, at: int
) -> None:
    new = (*args[:at], *args[at + 1 :]) if change == "drop" else (*args[:at], "new=7", *args[at:])
    try:
        ast.parse(call(new, "line"))
    except SyntaxError:
        return  # `h(**kw, *xs)`-like orders Python refuses
    op = Replace("f", call(args, layout, ""), call(new, layout, ""))
    patch = patch_of(op)
    source = module(args, layout)
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), source.encode()).after.decode()
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(module(new, layout))), after
    kept = [line.rstrip(",") for line in source.splitlines() if line.strip().rstrip(",") in new]
    assert all(line in [row.rstrip(",") for row in after.splitlines()] for line in kept), after
    undone = runner.backward(patch, patch.rewrites, after.encode(), "mod.py")
    assert ast.dump(ast.parse(undone)) == ast.dump(ast.parse(source))
