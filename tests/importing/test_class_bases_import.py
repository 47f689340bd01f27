"""A class's bases or class keywords changed (`class A(B):` -> `class A(B, C):`, `metaclass=` added
or taken away, kw38, issue 20) imported as a `replace` of the whole class: now one `set_bases`
(the header written as a call of the class's name, `from: A(B)`, `to: A(B, C)`), and the body's own
changes as their own steps, so the entry survives upstream edits of the class body.

Generated: the header before and after (no parentheses, one base, two, a metaclass, a base and a
keyword) x module level or nested in a class x a decorator or not x a trailing comment x the body
changed too or not. As data, one set_bases step (and no replace of the class); the steps run by
the engine give the bytes GNU patch gives for the diff and undo to the installed bytes; and the
batch through `radpatch import`, apply, `status --check` and revert against GNU patch."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_bases import SetBases
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check

HEADERS = ("A", "A(B)", "A(B, C)", "A(B, metaclass=M)")
PAIRS = [(x, y) for x, y in itertools.product(HEADERS, HEADERS) if x != y]
DRESS = ((False, False), (True, False), (False, True))  # (decorated, a comment on the header line)
CASES = sample([(p, n, d, c, b) for p, n, (d, c), b in itertools.product(PAIRS, (False, True), DRESS, (False, True))])


def module(header: str, nested: bool, decorated: bool, comment: bool, body: str) -> str:
    pad = "    " if nested else ""
    head = "def keep(c):\n    return c\n\n\n" + "".join(f"class {n}:\n    pass\n\n\n" for n in ("M(type)", "B", "C"))
    outer = "class K:\n    y = 0\n\n" if nested else ""
    deco = f"{pad}@keep\n" if decorated else ""
    note = "  # the class" if comment else ""
    return (
        head
        + outer
        + deco
        + f"{pad}class {header}:{note}\n{pad}    x = {body}\n\n{pad}    def f(self):\n{pad}        return self.x\n"
    )


def case(pair: tuple[str, str], nested: bool, decorated: bool, comment: bool, body: bool) -> tuple[str, str]:
    old, new = pair
    return (
        module(old, nested, decorated, comment, "1"),
        module(new, nested, decorated, comment, "2" if body else "1"),
    )


@pytest.mark.parametrize(("pair", "nested", "decorated", "comment", "body"), CASES)
def test_a_class_header_change_is_one_set_bases(
    pair: tuple[str, str], nested: bool, decorated: bool, comment: bool, body: bool
) -> None:
    before, after = case(pair, nested, decorated, comment, body)
    steps = rewrites(before, after).steps
    scope = "K.A" if nested else "A"
    assert [(s.op, dict(s.keys)) for s in steps][:1] == [
        ("set_bases", {"scope": scope, "from": pair[0], "to": pair[1]})
    ]
    assert [s.op for s in steps[1:]] == (["replace"] if body else []), steps
    ops = [SetBases(scope, pair[0], pair[1])]
    if body:
        keys = dict(steps[1].keys)
        assert keys["scope"] == scope and keys["find"] == "x = 1\n", keys
        ops.append(Replace(scope, "x = 1\n", "x = 2\n"))
    check(before, tuple(ops), after)  # the bytes GNU patch gives for the diff, and back


@pytest.mark.wheel
def test_class_header_changes_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)
