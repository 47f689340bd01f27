"""`within:` names a clause (att56 F10): `elif x:`, `else:`, `except E:`, `except* E:`, `finally:`, a
`try:` body and `case P:` narrow a rewrite to the copy in that clause alone, as `if x:` / `for ...:`
name a whole statement (with its clauses). Generated: for each construct, a function with one copy
of a statement at its top and one in every clause; for each clause anchor and each operation that
takes `within:` (a statement's and an expression's `replace`, `set_keyword`, `insert_after`,
`delete`, `add_element`, `set_item`), the rewrite lands on that clause's copy alone, and its inverse
gives the installed bytes back; an anchor that names several clauses (a whole statement, a clause
spelled twice) is refused as ambiguous. A clause's header that is not Python is a load error with
its key path."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
import yaml

from radpatch.errors import RefusedError, RegistryError
from radpatch.prove import plan
from radpatch.registry.loader import load_bytes
from radpatch.rewrite import runner
from tests.lib.generated import sample

COPY = 'out.append(g(1, flag=True, tags=[1, 2], opts={"a": 1}))'
# a construct: its lines ("@" is a copy, "#" a statement after it), and each anchor with the copy it
# picks (0 the function's top copy, 1 the next ...), None: refused (several copies there, or none)
CONSTRUCTS: dict[str, tuple[list[str], dict[str, int | None]]] = {
    "if": (
        ["if cfg.fast:", "    @", "elif cfg.safe:", "    @", "elif cfg.slow:", "    @", "else:", "    @"],
        {"elif cfg.safe:": 2, "elif cfg.slow:": 3, "else:": 4, "if cfg.slow:": None, "if cfg.fast:": None},
    ),
    "try": (
        ["try:", "    @", "except KeyError:", "    @", "except (ValueError, TypeError) as e:", "    @"]
        + ["else:", "    @", "finally:", "    @"],
        {"try:": 1, "except KeyError:": 2, "except (ValueError, TypeError) as e:": 3, "else:": 4, "finally:": 5},
    ),
    "for": (["for x in items:", "    @", "else:", "    @"], {"else:": 2, "for x in items:": None}),
    "while": (["while cfg.n:", "    @", "    break", "else:", "    @"], {"else:": 2, "while cfg.n:": None}),
    "match": (
        [
            "match cfg:",
            '    case "a":',
            "        @",
            '    case ["b", x] if x:',
            "        @",
            "    case _:",
            "        @",
        ],
        {'case "a":': 1, 'case ["b", x] if x:': 2, "case _:": 3, 'case ["b", x]:': None, "match cfg:": None},
    ),
    "async": (
        ["async for x in items:", "    @", "else:", "    @", "async with cfg:", "    @"],
        {"else:": 2, "async with cfg:": 3, "async for x in items:": None, "for x in items:": None},
    ),
    "nested": (
        ["if cfg.fast:", "    @", "elif cfg.safe:", "    try:", "        @", "    except KeyError:", "        @"],
        {"try:": 2, "except KeyError:": 3, "elif cfg.safe:": None},
    ),
    "twice": (["if cfg.fast:", "    @", "else:", "    @", "if cfg.slow:", "    @", "else:", "    @"], {"else:": None}),
    # a clause nested in a clause of the same kind (att57 F5): the key names both
    "else in else": (
        ["for x in items:", "    @", "else:", "    @", "    while cfg.n:", "        @", "    else:", "        @"],
        {"else:": None, "while cfg.n:": None, "for x in items:": None},
    ),
    "finally in finally": (
        ["try:", "    @", "finally:", "    try:", "        @", "    finally:", "        @"],
        {"finally:": None, "try:": None},
    ),
    "except in except": (
        ["try:", "    @", "except KeyError:", "    @", "    try:", "        @", "    except KeyError:", "        @"],
        {"except KeyError:": None, "try:": None},
    ),
    "try in try": (
        ["try:", "    @", "    try:", "        @", "    except ValueError:", "        @", "except KeyError:", "    @"],
        {"try:": None, "except ValueError:": 3, "except KeyError:": 4},
    ),
    "case in case": (
        ["match cfg:", "    case 1:", "        @", "        match out:", "            case 1:", "                @"]
        + ["            case _:", "                @", "    case _:", "        @"],
        {"case 1:": None, "case _:": None, "match out:": None},
    ),
}
# `within:` with `occurrence:` in the nested constructs: the copy it picks (as above), None: refused,
# as the matches lie in clauses (or statements) the key names nested in one another; side by side
# (a `try:` body and one in its `finally:`, two `else:` clauses) the count runs across them
COUNTED: dict[str, dict[tuple[str, int], int | None]] = {
    "else in else": {
        **{("else:", n): None for n in (1, 2, 3)},
        **{("while cfg.n:", 1): 3, ("while cfg.n:", 2): 4, ("for x in items:", 3): 3, ("for x in items:", 4): 4},
    },
    "finally in finally": {("finally:", 1): None, ("finally:", 2): None, ("try:", 2): 2},
    "except in except": {("except KeyError:", 1): None, ("except KeyError:", 3): None, ("try:", 1): 1},
    "try in try": {("try:", 1): None, ("try:", 2): None},
    "case in case": {
        **{("case 1:", 1): None, ("case 1:", 2): None, ("case _:", 2): 4},
        **{("match out:", 1): 2, ("match out:", 2): 3, ("match cfg:", 3): 3},
    },
    "twice": {("else:", 1): 2, ("else:", 2): 4, ("if cfg.slow:", 2): 4},
}
if sys.version_info >= (3, 11):
    CONSTRUCTS["try*"] = (
        ["try:", "    @", "except* KeyError:", "    @", "except* ValueError:", "    @"],
        {"except* KeyError:": 2, "except* ValueError:": 3, "try:": 1, "except KeyError:": None},
    )
CALL = {"scope": "f", "call": "g"}
OPS: dict[str, tuple[dict[str, object], tuple[str, str]]] = {
    "replace": ({"replace": {"scope": "f", "find": COPY, "with": COPY.replace("g(1", "g(2")}}, ("g(1", "g(2")),
    "expression": (
        {"replace": {"scope": "f", "find": COPY[11:-1], "with": COPY[11:-1].replace("g(1", "g(3")}},
        ("g(1", "g(3"),
    ),
    "set_keyword": (
        {"set_keyword": {**CALL, "keyword": "flag", "from": "True", "to": "False"}},
        ("flag=True", "flag=False"),
    ),
    "insert_after": (
        {"insert_after": {"scope": "f", "find": COPY, "code": "out.append(0)"}},
        (COPY, COPY + "\n@out.append(0)"),
    ),
    "delete": ({"delete": {"scope": "f", "find": COPY}}, (COPY, "pass")),
    "add_element": ({"add_element": {**CALL, "keyword": "tags", "element": "3"}}, ("[1, 2]", "[1, 2, 3]")),
    "set_item": (
        {"set_item": {**CALL, "keyword": "opts", "key": '"a"', "from": "1", "value": "2"}},
        ('{"a": 1}', '{"a": 2}'),
    ),
}
CASES = sample([(c, a, o) for c, (_, anchors) in CONSTRUCTS.items() for a in anchors for o in OPS])


def module(construct: str, changed: int | None = None, edit: tuple[str, str] = ("", "")) -> str:
    """The function with its copies (the `changed`-th, from 0, edited by `edit`)."""
    lines = [
        "async def f(cfg, out, items):",
        "    @",
        *("    " + t for t in CONSTRUCTS[construct][0]),
        "    return out",
    ]
    out, n = [], 0
    for line in lines:
        indent = line[: len(line) - len(line.lstrip())]
        if line.strip() == "@":
            text = COPY.replace(*edit) if n == changed else COPY
            out += [indent + part.lstrip("@") for part in text.split("\n")]
            n += 1
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def entry(step: dict[str, object], within: str, occurrence: int | None = None) -> bytes:
    ((op, keys),) = step.items()
    assert isinstance(keys, dict)
    doc = {"summary": "s", "description": "d", "distribution": "toy", "supported": ">=0", "modules": {"m": "toy.m"}}
    counted = {"occurrence": occurrence} if occurrence is not None else {}
    return yaml.safe_dump({**doc, "rewrites": [{op: {**keys, "within": within, **counted}}]}, sort_keys=False).encode()


def _same(a: str, b: str) -> bool:
    return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))


@pytest.mark.parametrize(("construct", "anchor", "op"), CASES)
def test_a_clause_anchor_picks_the_copy_in_that_clause(tmp_path: Path, construct: str, anchor: str, op: str) -> None:
    step, edit = OPS[op]
    patch = load_bytes(tmp_path / "e.yaml", entry(step, anchor))
    before = module(construct).encode()
    picks = CONSTRUCTS[construct][1][anchor]
    if picks is None:
        with pytest.raises(RefusedError, match="ambiguous|but none within"):
            plan.plan(patch, patch.rewrites, "m", Path("m.py"), before)
        return
    change = plan.plan(patch, patch.rewrites, "m", Path("m.py"), before)
    assert _same(change.after.decode(), module(construct, picks, edit)), change.after.decode()
    assert runner.backward(patch, patch.rewrites, change.after, "m.py") == before


COUNTED_CASES = sample([(c, a, n, o) for c, picks in COUNTED.items() for a, n in picks for o in OPS])


@pytest.mark.parametrize(("construct", "anchor", "nth", "op"), COUNTED_CASES)
def test_a_count_within_a_key_naming_nested_clauses_is_refused(
    tmp_path: Path, construct: str, anchor: str, nth: int, op: str
) -> None:
    """att57 F5: `within: else:` with `occurrence: 2` where the key names an `else:` inside an
    `else:` (a `finally:` in a `finally:`, the same handler in a handler, a `try:` in a `try:` body,
    the same `case` in a case) counted across the clauses, and the next
    release's copy in the outer clause moved it onto another clause's copy. The count is refused
    there; one inside a single statement the key names (its owner's header) still picks its copy."""
    step, edit = OPS[op]
    patch = load_bytes(tmp_path / "e.yaml", entry(step, anchor, nth))
    before = module(construct).encode()
    picks = COUNTED[construct][(anchor, nth)]
    if picks is None:
        with pytest.raises(RefusedError, match="occurrence:` counts inside one of them only"):
            plan.plan(patch, patch.rewrites, "m", Path("m.py"), before)
        return
    change = plan.plan(patch, patch.rewrites, "m", Path("m.py"), before)
    assert _same(change.after.decode(), module(construct, picks, edit)), change.after.decode()
    assert runner.backward(patch, patch.rewrites, change.after, "m.py") == before


@pytest.mark.parametrize("within", ["elif:", "except KeyError", "case:", "else if x:", "finally: x"])
def test_a_clause_header_that_is_not_python_is_a_load_error_at_its_key(tmp_path: Path, within: str) -> None:
    data = entry(OPS["replace"][0], within)
    with pytest.raises(RegistryError) as info:
        load_bytes(tmp_path / "e.yaml", data)
    (problem,) = info.value.problems
    assert "rewrites[0].replace.within" in problem and "e.yaml:" in problem, problem
    assert "a clause's like `elif x:`" in problem, problem
