"""A def the patch changes may be rebound later at module level by a form that does not name it
as plainly as `f = ...`: an assignment expression (`if (f := g):`, `while (f := g) is None:`, one
in a comprehension), a store through an alias of the module's namespace (`_g = globals()` then
`_g["f"] = g` or `_g.update(f=g)`), or through an alias of the module itself (`_self =
sys.modules[__name__]`, `sys.modules.get(__name__)`, `import pkg.mod as _me`, `from . import mod`).

Generated: each form, with a value that replaces `f` (`g`) or keeps its code running (`_keep(f)`,
which returns f), unconditionally or under `if COND:`. Every module is written as a real package
module and imported, original and patched, for each COND; the placement proofs must refuse exactly
the patches whose change, on some run, does not show in what `f()` returns.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.rebinding_forms import FORMS, HEAD, VALUES, WRAPS, module, refusals, run

CASES = sample(itertools.product(FORMS, VALUES, WRAPS))


@pytest.mark.parametrize(("form", "value", "wrap"), CASES)
def test_refused_exactly_when_the_change_does_not_run(tmp_path: Path, form: str, value: str, wrap: str) -> None:
    shows = []
    for cond in (True, False) if wrap == "if-cond" else (True,):
        before = module(form, value, wrap, cond, "PKG_NAME")
        after = before.replace("    return 1\n", "    return 100\n")
        assert run(tmp_path, before) != 100
        shows.append(run(tmp_path, after) == 100)
    before = module(form, value, wrap, True, "rp_me")
    found = refusals(before, before.replace("    return 1\n", "    return 100\n"), "rp_me")
    assert bool(found) == (not all(shows)), (form, value, wrap, shows, found)


def test_an_import_of_another_module_is_no_alias() -> None:
    """`import other.mod as _o; _o.f = g` stores on another module: the patched f still runs here."""
    before = HEAD.format(cond=True) + "import json as _o\n_o.f = g\n"
    assert refusals(before, before.replace("    return 1\n", "    return 100\n"), "rp_me") == []
