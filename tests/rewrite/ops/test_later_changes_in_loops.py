"""A change above the binding that runs after it (issue 21, later53 item 3): in a module-level loop
that holds both, the statement above the binding runs again on the next pass, after the binding of
the pass before, unless every pass binds a fresh value after it. `for i in (1, 2): if i > 1:
CFG["timeout"] = 2` / `if i == 1: CFG = {...}` ended with 2 whatever set_item gave, and was applied.

Generated: the loop (`for`, `while` with its counter) x how the loop binds the name (every pass; the
first pass only; every pass but one a `continue` skips) x where the later statement is (above the
binding in the loop, below it, after the loop) x the statement (the edited key, another key, a
method on the edited key) x the edit (set_item changing a key, set_item taking one away). The
oracle (tests/lib/later_values) imports the original and the patched module and compares the
dict the name ends with: refused exactly where the two are equal, applied where they differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.rewrite.ops.set_item import SetItem
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

BIND = 'CFG = {"timeout": 1, "retries": 3}'
LOOPS = {"for": ("for i in (1, 2):\n", ""), "while": ("i = 0\nwhile i < 2:\n", "i += 1\n")}
BINDS = {
    "every pass": BIND + "\n",
    "first pass": "if i == 1:\n    " + BIND + "\n",
    "skipped by continue": "if i == 2:\n    continue\n" + BIND + "\n",
}
WHERE = ("above", "below", "after")
LATER = ('CFG["timeout"] = 2', 'CFG["retries"] = 4', "CFG.update(timeout=2)", 'CFG.pop("timeout")')
EDITS = {
    "change": (SetItem(scope="<module>", name="CFG", key='"timeout"', from_="1", value="10"), None),  # type: ignore[arg-type]
    "remove": (SetItem(scope="<module>", name="CFG", key='"retries"', from_="3"), '"retries"'),  # type: ignore[arg-type]
}


def module(loop: str, bind: str, where: str, later: str) -> str:
    head, step = LOOPS[loop]
    above = f"if i > 1:\n    {later}\n" if where == "above" else ""
    below = later + "\n" if where == "below" else ""
    body = step + above + BINDS[bind] + below
    return head + indent(body, "    ") + (later + "\n" if where == "after" else "")


CASES = sample([(lo, b, w, s, e) for lo in LOOPS for b in BINDS for w in WHERE for s in LATER for e in EDITS])


@pytest.mark.parametrize(("loop", "bind", "where", "later", "edit"), CASES)
def test_a_change_a_loop_runs_after_the_binding_is_read(
    tmp_path: Path, loop: str, bind: str, where: str, later: str, edit: str
) -> None:
    op, removed = EDITS[edit]
    before = module(loop, bind, where, later)
    patch = patch_of(op)
    try:
        after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after.decode()
        refused = None
    except RefusedError as exc:
        refused = exc.message
        alone = (
            BIND.replace('"timeout": 1', '"timeout": 10') if edit == "change" else BIND.replace(', "retries": 3', "")
        )
        after = before.replace(BIND, alone)
    took = took_effect(tmp_path, before, after, "CFG", removed)
    if took is None:
        return  # the original module does not import
    if not took:
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"
        assert "changes CFG after line" in refused, refused
    else:
        assert refused is None, f"{refused}\n{before}"
