"""add_element / remove_element on a display passed to a call, not bound to a name
(`parser.add_argument("--x", choices=["a", "b"])`; a registry call given a list of archs): the
call named as set_keyword names it (`call:`, with `within:`/`occurrence:` among calls of one
callee), the display by its keyword (`keyword:`) or position (`argument:`).

Generated: call shape (plain, method on a name, a chained attribute, among other arguments, one
argument per line) x display kind (list, tuple, set) x argument (keyword, first or second
positional) x change (added last, after the first, before the first; taken away first, middle,
last), through the engine byte for byte and back (check); the refusals (which call among
several, no such argument, not a display) say what to write; and loaded from YAML with its keys
checked at their line."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.errors import RadpatchError
from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops.set_element import SetElement
from tests.lib.generated import sample
from tests.lib.registry import entry_head, write_entry
from tests.lib.rewrites import check, refusal

KINDS = {"list": "[]", "tuple": "()", "set": "{}"}
CALLS = ("reg", "parser.add_argument", "self.registry.add", "tall")
ARGUMENTS = ("keyword", "first", "second")
CHANGES = (("add", None, None), ("add", "'a'", None), ("add", None, "'a'"), ("remove", 0), ("remove", 1), ("remove", 2))


def display(kind: str, elements: list[str]) -> str:
    opening, closing = KINDS[kind]
    if kind == "tuple" and len(elements) == 1:
        return f"({elements[0]},)"
    return opening + ", ".join(elements) + closing


def source(shape: str, kind: str, argument: str, elements: list[str]) -> str:
    callee = "register" if shape == "tall" else shape
    d = display(kind, elements)
    args = {"keyword": ["'--x'", f"choices={d}"], "first": [d, "'--x'"], "second": ["'--x'", d, "k=1"]}[argument]
    if shape == "tall":
        inner = "".join(f"        {a},\n" for a in args)
        call = f"{callee}(\n{inner}    )"
    else:
        call = f"{callee}({', '.join(args)})"
    other = f"    {callee}('--y', 0, choices=None)\n"
    return f"import os\n\n\ndef f(self, parser):\n{other}    {call}\n    return os\n"


def op(shape: str, argument: str, element: str, **kw: object) -> SetElement:
    callee = "register" if shape == "tall" else shape
    where: dict[str, object] = {"keyword": "choices"} if argument == "keyword" else {}
    if argument != "keyword":
        where["argument"] = 1 if argument == "first" else 2
    return SetElement("f", None, element, call=callee, **where, occurrence=2, **kw)  # type: ignore[arg-type]


CASES = sample(list(itertools.product(CALLS, KINDS, ARGUMENTS, CHANGES)))


@pytest.mark.parametrize(("shape", "kind", "argument", "change"), CASES)
def test_an_element_of_a_display_passed_to_a_call(shape: str, kind: str, argument: str, change: tuple) -> None:
    now = ["'a'", "'b'", "'c'"]
    before = source(shape, kind, argument, now)
    if change[0] == "add":
        _, after_, before_ = change
        new = ["'a'", "'n'", "'b'", "'c'"] if after_ else ["'n'", *now] if before_ else [*now, "'n'"]
        rewrite = op(shape, argument, "'n'", after=after_, before=before_)
    else:
        at = change[1]
        new = [e for i, e in enumerate(now) if i != at]
        place = {0: {"before": "'b'"}, 1: {"after": "'a'"}, 2: {}}[at]
        rewrite = op(shape, argument, now[at], remove=True, **place)
    check(before, rewrite, source(shape, kind, argument, new))


def test_the_call_among_several_is_picked_or_the_refusal_names_them() -> None:
    src = "def f(p):\n    p.add_argument('--x', choices=['a'])\n    p.add_argument('--y', choices=['b'])\n"
    said = refusal(src, SetElement("f", None, "'c'", call="p.add_argument", keyword="choices"))
    assert "`choices=` of a call to `p.add_argument` matches 2 times in f (ambiguous): lines 2, 3" in said
    check(
        src,
        SetElement("f", None, "'c'", call="p.add_argument", keyword="choices", occurrence=2),
        src.replace("['b']", "['b', 'c']"),
    )


@pytest.mark.parametrize(
    ("rewrite", "words"),
    [
        (SetElement("f", None, "'c'", call="g", keyword="choices"), "the call(s) to `g` (line 2) pass no `choices=`"),
        (SetElement("f", None, "'c'", call="g", keyword="k"), "passes `k=` 1, not `{...}`, `[...]` or `(...)`"),
        (
            SetElement("f", None, "'c'", call="g", argument=3),
            "the call(s) to `g` (line 2) pass no positional argument 3",
        ),
        (SetElement("f", None, "'c'", call="h", keyword="k"), "it has no call to `h`"),
        (SetElement("f", None, "'a'", call="g", argument=1), "holds the element 'a' already"),
    ],
)
def test_refusals_say_what_and_where(rewrite: SetElement, words: str) -> None:
    assert words in refusal("def f():\n    g(['a'], (1,), k=1)\n", rewrite)


HEAD = entry_head("add a choice", "toypkg", {"reg": "toypkg.registry"})


def test_loaded_from_yaml(tmp_path: Path) -> None:
    body = (
        "  - add_element:\n      scope: f\n      call: parser.add_argument\n      keyword: choices\n"
        "      element: '\"c\"'\n      occurrence: 2\n"
    )
    loaded = load_patch(write_entry(tmp_path, "e", HEAD + body, dedent=False)).rewrites[0].op
    assert loaded == SetElement("f", None, '"c"', call="parser.add_argument", keyword="choices", occurrence=2)
    assert loaded.describe() == 'add "c" to choices= of a call to parser.add_argument (occurrence 2) in f'


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ("      call: g\n", "give one of `keyword:`"),
        ("      call: g\n      keyword: k\n      argument: 1\n", "give one of `keyword:`"),
        ("      name: X\n      keyword: k\n", "`keyword:` goes with `call:`"),
        ("      name: X\n      occurrence: 2\n", "`occurrence:` goes with `call:`"),
        ("      name: X\n      call: g\n      keyword: k\n", "give exactly one of 'name' or 'call'"),
        ("      call: g\n      argument: 0\n", "'0' is not an argument's position"),
    ],
)
def test_bad_keys_are_refused_at_their_line(tmp_path: Path, keys: str, words: str) -> None:
    body = f"  - add_element:\n      scope: f\n      element: '1'\n{keys}"
    with pytest.raises(RadpatchError) as err:
        load_patch(write_entry(tmp_path, "e", HEAD + body, dedent=False))
    assert words in str(err.value)
    assert "e.yaml:" in str(err.value)


def test_within_is_a_block_header_not_the_statement_the_rewrite_changes() -> None:
    src = (
        'def f(p, xs):\n    for x in xs:\n        p.add_argument("--x", choices=["a"])\n'
        '    p.add_argument("--y", choices=["b"])\n'
    )
    by_header = SetElement("f", None, '"c"', call="p.add_argument", keyword="choices", within="for x in xs:")
    check(src, by_header, src.replace('["a"]', '["a", "c"]'))
    by_statement = SetElement(
        "f", None, '"c"', call="p.add_argument", keyword="choices", within='p.add_argument("--y", choices=["b"])'
    )
    said = refusal(src, by_statement)
    assert "takes a `within:` that is an enclosing block's header" in said
