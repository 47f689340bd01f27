"""Adoption of a created module that a stacked entry changes: the install carries, by hand, the
module `n` creates as `s` (requires: [n]) changes it. `apply n s` adopts both (recorded, not
written): `n`'s link from no file to `n`'s module, `s`'s from there to the file as it is; status
reads both applied and recorded; revert takes `s` off, then deletes the module. Found by the
state model (tests/state/test_model.py::TestCreatedModules): the run was refused, and then `s`'s
link was recorded as created from no file."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from tests.lib.site import Site

N = textwrap.dedent("""\
    summary: s
    description: creates stk.made
    distribution: stk
    supported: ">=1.0,<2"
    modules:
      made: stk.made
    rewrites:
      - {id: create, file: made, create_module: {content: made.py}}
    """)
S = textwrap.dedent("""\
    summary: s
    description: changes stk.made
    distribution: stk
    supported: ">=1.0,<2"
    requires: [n]
    modules:
      made: stk.made
    rewrites:
      - {id: r, file: made, replace: {scope: h, find: v * 2, with: v * 20}}
    """)
MADE = "def h(v):\n    return v * 2\n"
CHANGED = "def h(v):\n    return v * 20  # by hand\n"


def test_a_hand_made_module_carrying_a_stack_is_adopted_by_both_entries(
    site: Site, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    site.install("stk", "1.0", {"stk/__init__.py": "", "stk/core.py": "X = 1\n"})
    write_registry("n", N, {"made.py": MADE})
    reg = write_registry("s", S)
    made = site.root / "stk" / "made.py"
    made.write_text(CHANGED)

    def states() -> dict[str, tuple[str, bool]]:
        out = json.loads(radpatch("--registry", str(reg), "status", "--json", "n", "s").out)
        return {s["patch"]: (s["state"], s["applied_registry_digest"] is not None) for s in out}

    r = radpatch("--registry", str(reg), "apply", "n", "s")
    assert r.code == 0, r.err
    assert "adopted" in r.out, r.out
    assert made.read_text() == CHANGED  # recorded, not written
    assert states() == {"n": ("applied", True), "s": ("applied", True)}
    assert radpatch("--registry", str(reg), "status", "--check", "n", "s").code == 0
    assert radpatch("--registry", str(reg), "revert", "s").code == 0
    assert made.read_text() == MADE
    assert states() == {"n": ("applied", True), "s": ("not-applied", False)}
    r = radpatch("--registry", str(reg), "revert", "n")
    assert r.code == 0, r.err
    # someone else made the module: revert leaves it, as s left it (docs/state.md, who owns a created module)
    assert "left in place (it was there when radpatch recorded it: radpatch did not write it)" in r.out, r.out
    assert made.read_text() == MADE
    assert states() == {"n": ("applied", False), "s": ("not-applied", False)}
