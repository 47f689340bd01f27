"""A def the patch changes, rebound through an alias of the module's namespace or of the module made
INSIDE a function the module runs at import (issue 21, later2 #1): `def setup(): _g = globals();
_g["f"] = g` / `setup()`, `_s = sys.modules[__name__]; _s.f = g` in the body, also one call deeper
(`def a(): b()`), and `import pkg.mod as _me` in the body. Only the module's own aliases counted;
these were accepted while the module ran g. The alias handed on (`def a(): _g = globals(); b(_g)`)
is refused as a namespace passed to a call is, whatever b does (radpatch cannot tell: MAY).

Generated: the alias forms of tests/prove/test_rebinding_aliases.py (the walrus forms: in a
function they bind a local: kept, the oracle's no-refusal cases; with `_keep(f)` the local is read
before it is bound, and the module does not import: left out) x the value (replaces f,
or keeps it running) x how the function is reached (called at once, two levels, three levels, the
alias handed on as an argument, defined but never called). Every module is imported original and
patched (tests/prove/test_rebinding_aliases.run): refused exactly when the change does not show."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.rebinding_forms import FORMS, HEAD, VALUES, refusals, run

REACH = {
    "called": "def setup():\n{body}\nsetup()",
    "two levels": "def b():\n{body}\ndef a():\n    b()\na()",
    "three levels": "def c():\n{body}\ndef b():\n    c()\ndef a():\n    b()\na()",
    "never called": "def setup():\n{body}",
}
HANDED = {  # the alias made in one function, the store in the one it calls
    "namespace handed on": "def b(ns):\n    ns['f'] = {v}\ndef a():\n    _g = globals()\n    b(_g)\na()",
    "module handed on": "def b(m):\n    m.f = {v}\ndef a():\n    _s = sys.modules[__name__]\n    b(_s)\na()",
}
CASES = sample(
    [(f, v, r) for f, v, r in itertools.product(FORMS, VALUES, REACH) if not f.startswith("walrus") or v == "replaces"]
    + [(h, v, "handed") for h, v in itertools.product(HANDED, VALUES)]
)


def module(form: str, value: str, reach: str, pkg: str) -> str:
    if reach == "handed":
        tail = HANDED[form].format(v=VALUES[value])
    else:
        body = indent(FORMS[form].format(v=VALUES[value]).replace("PKG", pkg), "    ").rstrip("\n")
        tail = REACH[reach].format(body=body)
    return HEAD.format(cond=True) + tail + "\n"


@pytest.mark.parametrize(("form", "value", "reach"), CASES, ids=[f"{f}-{v}-{r}" for f, v, r in CASES])
def test_refused_exactly_when_the_change_does_not_run(tmp_path: Path, form: str, value: str, reach: str) -> None:
    before = module(form, value, reach, "PKG_NAME")
    after = before.replace("    return 1\n", "    return 100\n")
    assert run(tmp_path, before) != 100
    shows = run(tmp_path, after) == 100
    before = module(form, value, reach, "rp_me")
    found = refusals(before, before.replace("    return 1\n", "    return 100\n"), "rp_me")
    if reach == "handed" and found:  # a namespace or the module passed to a call: refused unread (MAY)
        assert "cannot tell" in found[0] or not shows, found
        return
    assert bool(found) == (not shows), (form, value, reach, shows, found)
