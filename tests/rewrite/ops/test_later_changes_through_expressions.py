"""The value reached through an expression that may give it back (`CFG or {}`, `CFG if c else {}`) and then
stored into or changed by a method (att61 F4): `(CFG or {})["timeout"] = 1` undid the set_item, which applied;
the walk climbed the `or` and then took the subscript for a read. Now a store, a delete or a changing method
there is an escape, refused by line; an item read or a reading method stays a read.

Generated: the container edits and set_keyword of tests/lib/escape_edits x the expression x a statement that
undoes the edit or changes something else, or only reads. The oracle imports the original and the patched
module in a fresh interpreter (tests/lib/later_values)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from tests.lib.escape_edits import EDITS, verdict
from tests.lib.generated import sample
from tests.lib.rewrites import patch_of

SHAPES = {"or": "({n} or None)", "if-else": "({n} if len('x') else None)"}
EDITED = ("set_item", "add_element list", "add_element set", "remove_element set", "set_keyword")
READS = {"set_item": 'X = {v}["retries"]', "add_element list": "X = {v}[0]", "set_keyword": "X = {v}.other"}
KEYS = ("undo", "twin", "read")
CASES = sample([(e, s, k) for e in EDITED for s in SHAPES for k in KEYS if k != "read" or e in READS])


@pytest.mark.parametrize(("edit", "shape", "key"), CASES, ids=["-".join(c) for c in CASES])
def test_a_change_through_an_expression_giving_the_value_back_is_read(
    tmp_path: Path, edit: str, shape: str, key: str
) -> None:
    e = EDITS[edit]
    through = SHAPES[shape].format(n=e.name)
    statement = {"undo": e.undo, "twin": e.twin, "read": READS.get(edit, "")}[key].format(v=through)
    later = f"try:\n    {statement}\nexcept Exception:\n    pass\n"
    refused, took, before = verdict(tmp_path, e, later)
    assert took is not None, before
    if key == "read":
        assert took and refused is None, f"refused, but the statement only reads: {refused}\n{before}"
    elif not took:
        assert refused is not None, f"applied, but the module ends without the edit:\n{before}"


_SELF = "import sys\nsys.path.insert(0, sys.argv[1])\nimport mod\nprint(repr(getattr(mod, sys.argv[2])))\n"


@pytest.mark.parametrize("edit", EDITED)
@pytest.mark.parametrize("key", ["undo", "twin"])
def test_the_value_imported_from_the_module_itself_is_the_value(tmp_path: Path, edit: str, key: str) -> None:
    """att61 F10: `from mod import CFG as C2` in module `mod` (maybe another module's CFG: taken as the value
    either way); a change through C2 applied unseen. The oracle imports the module by its own name."""
    e = EDITS[edit]
    later = f"from mod import {e.name} as C2\n\ntry:\n    {(e.undo if key == 'undo' else e.twin).format(v='C2')}\n"
    later += "except Exception:\n    pass\n"
    patch = patch_of(e.op)
    text = e.top + "\n\n" + later
    try:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), text.encode())
        refused = False
    except RefusedError:
        refused = True
    alone = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), e.top.encode()).after.decode()
    seen = []
    for n, source in enumerate((text, text.replace(e.top, alone, 1))):
        (tmp_path / str(n)).mkdir()
        (tmp_path / str(n) / "mod.py").write_text(source)
        done = subprocess.run([sys.executable, "-I", "-c", _SELF, str(tmp_path / str(n)), e.name], capture_output=True)
        assert done.returncode == 0, done.stderr
        seen.append(done.stdout)
    if seen[0] == seen[1]:  # the edit did not take effect
        assert refused, f"applied, but the module ends without the edit:\n{text}"
