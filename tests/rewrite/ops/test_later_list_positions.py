"""A list's later changes by position, where the edited element is provably not the one changed
(issue 21, later2 #2): `FLAGS = ["a", "b"]`, add_element "c", then `FLAGS[0] = "z"`, `del FLAGS[0]`,
`FLAGS.pop(0)` were refused (a position "may" be the added element) though the module kept the
edit; the last measure was 25 over-refusals in 877 cases of test_later_changes.

Now, where every later statement naming the list is a plain top-level statement of the scope that
changes it by literals, radpatch replays them on the list before and after the edit
(rewrite.list_replay) and refuses exactly where the two end equal, the edited one raises, or a
removed element comes back. Generated: the edit (added last, added after "a", "b" taken away) x one
or two such statements (by index, from the end, a slice, pop, insert, remove, sort, a read) x the
scope (the module, a class body); and the same statement where it cannot be replayed (under an
`if`, through another name): refused whenever the edit is undone, and allowed to refuse otherwise
(MAY). The oracle (tests/lib/later_values) imports the original and the patched module."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.set_element import SetElement
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

EDITS = {
    "add last": {"element": '"c"'},
    "add after a": {"element": '"c"', "after": '"a"'},
    "remove b": {"element": '"b"', "remove": True},
}
STEPS = [
    'FLAGS[0] = "z"',
    'FLAGS[1] = "z"',
    'FLAGS[2] = "z"',
    'FLAGS[-1] = "z"',
    'FLAGS[1] = "b"',
    "del FLAGS[0]",
    "del FLAGS[1]",
    "del FLAGS[-1]",
    "FLAGS.pop()",
    "FLAGS.pop(0)",
    'FLAGS[:1] = ["c"]',
    'FLAGS.insert(0, "z")',
    'FLAGS.remove("a")',
    "FLAGS.sort()",
    'x = FLAGS.index("a")',
    "FLAGS.pop(-1)",
    'FLAGS[-1:] = ["z"]',
    'FLAGS.append("c")',
]
WRAPS = {"plain": "{s}", "under an if": "if True:\n    {s}", "through another name": "A = FLAGS\n{t}"}
SCOPES = ("<module>", "K")


def _op(edit: str, scope: str) -> Operation:
    return SetElement(scope=scope, name="FLAGS", **EDITS[edit])  # type: ignore[arg-type]


def module(later: list[str], scope: str) -> str:
    text = 'FLAGS = ["a", "b"]\n' + "".join(s + "\n" for s in later)
    return text if scope == "<module>" else "class K:\n" + indent(text, "    ")


def later_of(steps: tuple[str, ...], wrap: str) -> list[str]:
    return [WRAPS[wrap].format(s=s, t=s.replace("FLAGS", "A")) for s in steps]


CASES = sample(
    [(e, (s,), w, sc) for e in EDITS for s in STEPS for w in WRAPS for sc in SCOPES]
    + [(e, p, "plain", sc) for e in EDITS for p in itertools.permutations(STEPS[:12:2], 2) for sc in SCOPES]
)


@pytest.mark.parametrize(
    ("edit", "steps", "wrap", "scope"), CASES, ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)]
)
def test_refused_exactly_where_the_positions_undo_the_edit(
    tmp_path: Path, edit: str, steps: tuple[str, ...], wrap: str, scope: str
) -> None:
    later = later_of(steps, wrap)
    before = module(later, scope)
    patch = patch_of(_op(edit, scope))
    try:
        after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after.decode()
        refused = None
    except RefusedError as exc:
        refused = exc.message
        bare = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), module([], scope).encode()).after.decode()
        after = before.replace(module([], scope), bare, 1)
    removed, added = ('"b"', None) if edit == "remove b" else (None, '"c"')
    took = took_effect(tmp_path, before, after, "FLAGS", removed, added)
    if took is None:
        return  # the original does not import
    if not took:
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"
    elif wrap == "plain":
        assert refused is None, f"refused, but the edit takes effect: {refused}\n{before}"
