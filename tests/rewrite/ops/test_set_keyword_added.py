"""set_keyword without `from` (a keyword added to a call) or without `to` (taken away), issue 20.

Generated: calls of every argument shape (positional, keywords, `*args`, `**kwargs`, a keyword
after `**kwargs`) x layouts (one line, one argument per line with or without a trailing comma, a
comment on each argument's line) x what the rewrite does (add a keyword where a person puts it,
add it `after:` each keyword the call passes, take each keyword away). Each runs through plan.plan
as apply does (compile, names, the reverse proof); the patched module must be the call with the
keyword put there or gone, as `ast` says, and undoing it must give the file's bytes back.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.rewrite import runner
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.generated import sample
from tests.lib.rewrites import patch_of

SHAPES = (
    (),
    ("a",),
    ("a", "b"),
    ("*xs",),
    ("a", "*xs"),
    ("k0=1",),
    ("a", "k0=1"),
    ("a", "k0=1", "k1=(2, 3)"),
    ("**kw",),
    ("a", "**kw"),
    ("a", "k0=1", "**kw"),
    ("*xs", "k0=1", "**kw"),
    ("a", "**kw", "k0=1"),
    ("x for x in xs",),
)
LAYOUTS = ("line", "lines", "lines-bare", "comments")


def module(args: tuple[str, ...], layout: str, other: str = "") -> str:
    if layout == "line" or not args:
        call = f"h({', '.join(args)})"
    elif layout == "lines":
        call = "h(\n" + "".join(f"        {a},\n" for a in args) + "    )"
    elif layout == "lines-bare":
        call = "h(\n" + ",\n".join(f"        {a}" for a in args) + "\n    )"
    else:
        call = "h(\n" + "".join(f"        {a},  # note {n}\n" for n, a in enumerate(args)) + "    )"
    return (
        "def h(*args, **kwargs):\n    return args, kwargs\n\n\n"
        f"def f(a, b, xs, kw):\n    y = {call}\n{other}    return y\n"
    )


def _call(tree: ast.Module) -> ast.Call:
    f = tree.body[1]
    assert isinstance(f, ast.FunctionDef) and isinstance(f.body[0], ast.Assign)
    call = f.body[0].value
    assert isinstance(call, ast.Call)
    return call


def expected(source: str, op: SetKeyword) -> str:
    """The module as `ast` says the rewrite leaves it: the keyword put where the docs say, or gone."""
    tree = ast.parse(source)
    kws = _call(tree).keywords
    if op.to is None:
        kws[:] = [k for k in kws if k.arg != op.keyword]
    else:
        named = [i for i, k in enumerate(kws) if k.arg is not None]
        if op.after is not None:
            at = next(i + 1 for i in named if kws[i].arg == op.after)
        elif op.before is not None:
            at = next(i for i in named if kws[i].arg == op.before)
        elif named:
            at = named[-1] + 1
        else:
            at = next((i for i, k in enumerate(kws) if k.arg is None), len(kws))
        kws.insert(at, ast.keyword(op.keyword, ast.parse(op.to, mode="eval").body))
    return ast.dump(tree)


def run(source: str, op: SetKeyword) -> str:
    """The patched module as apply plans it; undone, the file's bytes again where the rewrite adds
    the keyword (it wrote the layout), AST-equal where it took one away (apply keeps the bytes)."""
    patch = patch_of(op)
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), source.encode()).after
    undone = runner.backward(patch, patch.rewrites, after, "mod.py")
    if op.from_ is None:
        assert undone == source.encode()
    else:
        assert ast.dump(ast.parse(undone)) == ast.dump(ast.parse(source))
    return after.decode()


def _cases() -> list[tuple[tuple[str, ...], str, str, str | None]]:
    out: list[tuple[tuple[str, ...], str, str, str | None]] = []
    for args in SHAPES:
        names = [a.split("=")[0] for a in args if "=" in a and not a.startswith("*")]
        for layout in LAYOUTS:
            if " for " in "".join(args) and layout in ("lines", "comments"):
                continue  # `h(x for x in xs,)` does not parse
            out.append((args, layout, "add", None))
            out += [(args, layout, "add", n) for n in names]
            out += [(args, layout, "add-before", n) for n in names]
            out += [(args, layout, "take", n) for n in names]
    return out


CASES = sample(_cases())


def _put_back(args: tuple[str, ...], keyword: str) -> tuple[bool, str | None, str | None]:
    """Whether the keyword taken away can be put back where it was (by the docs' rule, `after:` the
    keyword before it or `before:` the one after it), and the `after:` or `before:` that says so."""
    kws = [a.split("=")[0] if "=" in a and not a.startswith("*") else a for a in args if "=" in a or a.startswith("**")]
    at = kws.index(keyword)
    rest = kws[:at] + kws[at + 1 :]
    named = [i for i, k in enumerate(rest) if not k.startswith("**")]
    default = named[-1] + 1 if named else next((i for i, k in enumerate(rest) if k.startswith("**")), len(rest))
    if default == at:
        return True, None, None
    if at and not kws[at - 1].startswith("**"):
        return True, kws[at - 1], None
    if at + 1 < len(kws) and not kws[at + 1].startswith("**"):
        return True, None, kws[at + 1]
    return False, None, None


@pytest.mark.parametrize(("args", "layout", "mode", "keyword"), CASES)
def test_a_keyword_is_added_or_taken_away_where_a_person_would_and_undone(
    args: tuple[str, ...], layout: str, mode: str, keyword: str | None
) -> None:
    source = module(args, layout)
    if mode == "add":
        op = SetKeyword("f", "h", "new", None, "(7, 8)", after=keyword)
    elif mode == "add-before":
        op = SetKeyword("f", "h", "new", None, "(7, 8)", before=keyword)
    else:
        assert keyword is not None
        value = next(a.split("=", 1)[1] for a in args if a.startswith(f"{keyword}="))
        possible, after, before = _put_back(args, keyword)
        op = SetKeyword("f", "h", keyword, value, None, after=after, before=before)
        if not possible:
            with pytest.raises(RefusedError) as info:
                run(source, op)
            assert "would put it back elsewhere" in info.value.message and "`replace` the call" in info.value.hint
            return
    after = run(source, op)
    assert ast.dump(ast.parse(after)) == expected(source, op), after
    if layout != "line" and args:
        # one argument per line stays so: no blank line, every comment kept but the taken argument's
        assert all(line.strip() != "" for line in after.splitlines()[5:-2])
        assert after.count("# note") == source.count("# note") - (mode == "take" and layout == "comments")


def test_a_keyword_passed_already_is_no_match_and_the_refusal_says_to_give_from() -> None:
    source = module(("a", "new=1"), "line")
    with pytest.raises(RefusedError) as info:
        run(source, SetKeyword("f", "h", "new", None, "2"))
    assert "passes `new` already (line 6: `new=1`)" in info.value.message
    assert "give `from:`" in info.value.hint


def test_after_a_keyword_the_call_does_not_pass_is_refused_naming_it() -> None:
    with pytest.raises(RefusedError) as info:
        run(module(("a", "k0=1"), "line"), SetKeyword("f", "h", "new", None, "2", after="k9"))
    assert "passes no keyword argument `k9` (`after:`)" in info.value.message and "fix `after:`" in info.value.hint


def test_a_keyword_taken_from_the_middle_needs_after_and_the_refusal_names_it() -> None:
    source = module(("a", "k0=1", "k1=2", "k2=3"), "lines")
    with pytest.raises(RefusedError) as info:
        run(source, SetKeyword("f", "h", "k1", "2", None))
    assert "would put it back elsewhere" in info.value.message and "write `after: k0`" in info.value.hint
    with pytest.raises(RefusedError) as info:
        run(source, SetKeyword("f", "h", "k1", "2", None, after="k2"))
    assert "not after `k2=`" in info.value.message
    after = run(source, SetKeyword("f", "h", "k1", "2", None, after="k0"))
    assert after.splitlines()[5:10] == ["    y = h(", "        a,", "        k0=1,", "        k2=3,", "    )"]


NESTED = "    z = h(h(a), h(b, k0=1), k0=2)\n"


@pytest.mark.parametrize("nth", [1, 2])
def test_several_calls_in_scope_are_ambiguous_until_occurrence_picks_one_in_source_order(nth: int) -> None:
    """Calls nested in calls and in other statements count in source order (the outer call first)."""
    source = module(("a",), "line", NESTED)
    with pytest.raises(RefusedError) as info:
        run(source, SetKeyword("f", "h", "k0", None, "5"))
    assert "matches 2 times" in info.value.message and "lines 6, 7" in info.value.message
    after = run(source, SetKeyword("f", "h", "k0", None, "5", occurrence=nth))
    lines = after.splitlines()
    if nth == 1:
        assert lines[5] == "    y = h(a, k0=5)" and lines[6] == NESTED.rstrip()
    else:
        assert lines[5] == "    y = h(a)" and lines[6] == "    z = h(h(a, k0=5), h(b, k0=1), k0=2)"
    # `within:` a whole statement judges it as it was, also when the inverse looks for the result
    after = run(source, SetKeyword("f", "h", "k0", "1", None, within=NESTED.strip()))
    assert after.splitlines()[6] == "    z = h(h(a), h(b), k0=2)"
