"""att60 F07: an entry creates a module where a file is already, with other code: the release's own
module (its RECORD lists it), or a file nobody installed. apply refused it as drifted with the hint
"someone else changed the file; put the files back to the installed bytes (radpatch restore ...)",
though nobody changed anything and restoring changes nothing. The hint now says what is true:
nothing is to put back; the entry is what to change (or the stray file what to delete)."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from tests.lib.site import Site

N = textwrap.dedent("""\
    summary: n
    description: creates stk.made
    distribution: stk
    supported: ">=1.0,<2"
    modules:
      made: stk.made
    rewrites:
      - {id: create, file: made, create_module: {content: made.py}}
    """)
MADE = "def h(v):\n    return v * 2\n"


@pytest.mark.parametrize("listed", [True, False])
def test_a_file_in_the_way_of_a_created_module_is_not_blamed_on_someone(
    site: Site, write_registry: Any, radpatch: Any, listed: bool
) -> None:
    files = {"stk/__init__.py": "", "stk/core.py": "X = 1\n"}
    site.install("stk", "1.0", files | ({"stk/made.py": "Y = 2\n"} if listed else {}))
    made = site.root / "stk" / "made.py"
    if not listed:
        made.write_text("Y = 2\n")
    reg = write_registry("n", N, {"made.py": MADE})
    r = radpatch("--registry", str(reg), "apply", "n")
    assert r.code == 1, r.err
    assert "someone else changed" not in r.err and "radpatch restore" not in r.err, r.err
    # (a file nobody installed is refused by apply's adoption: "remove stk/made.py", as before)
    if listed:
        first, hint = r.err.strip().splitlines()[-2:]
        assert "drifted" in first and "its RECORD lists it" in first, r.err
        assert "nothing is to put back" in hint and "change the entry" in hint, r.err
    assert made.read_text() == "Y = 2\n"
