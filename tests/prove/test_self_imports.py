"""A module that imports from itself while it is being imported: `from pkg.mod import x` in
pkg/mod.py before x is bound raises ImportError (a circular import), and any import of the whole
module from itself at import time is a cycle radpatch refuses.

Generated: import forms (absolute, relative, whole module, a name, star) times where the patch
puts them (module level before or after the name is bound, a class body, a function, under
`if TYPE_CHECKING:`), in a module and in a package's __init__. Every patched package is really
imported in a subprocess (and the function called): a from-import of a name is refused exactly
when that import fails; a whole-module self-import at import time is refused although it runs.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from radpatch.prove import names_check, refusal
from radpatch.prove.names import SELF_IMPORT, introduced
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample

FORMS = {  # form: (statement in pkg/mod.py, the whole module itself)
    "abs-late-name": ("from pkg.mod import LIMIT", False),
    "abs-early-name": ("from pkg.mod import EARLY", False),
    "rel-late-name": ("from .mod import LIMIT", False),
    "rel-early-name": ("from .mod import EARLY", False),
    "rel-two-names": ("from .mod import EARLY, LIMIT", False),
    "abs-aliased": ("from pkg.mod import LIMIT as _rp_limit", False),
    "star": ("from pkg.mod import *", True),
    "from-package": ("from pkg import mod", True),
    "from-dot": ("from . import mod", True),
    "import": ("import pkg.mod", True),
    "import-as": ("import pkg.mod as _rp_me", True),
    "other-module": ("from pkg.other import OTHER", False),
    "other-from-dot": ("from . import other", False),
    "other-import": ("import pkg.other", False),
}

PLACES = ("top", "class-body", "function", "type-checking")


def mod_source(statement: str | None, place: str) -> str:
    body = "from typing import TYPE_CHECKING\n\nEARLY = 1\n"
    if statement is not None:
        if place == "top":
            body += statement + "\n"
        elif place == "class-body":
            body += f"\n\nclass Holder:\n    {statement}\n"
        elif place == "type-checking":
            body += f"if TYPE_CHECKING:\n    {statement}\n"
    body += "\n\ndef use():\n"
    if statement is not None and place == "function":
        body += f"    {statement}\n"
    return body + "    return EARLY\n\n\nLIMIT = 2\n"


def imports_cleanly(tmp: Path, source: str) -> bool:
    pkg = tmp / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "other.py").write_text("OTHER = 3\n")
    (pkg / "mod.py").write_text(source)
    code = f"import sys; sys.path.insert(0, {str(tmp)!r}); import pkg.mod; pkg.mod.use()"
    done = fresh_run(sys.executable, code, (), ("-I", "-S"))
    assert done.returncode == 0 or "ImportError" in done.stderr, done.stderr
    return done.returncode == 0


# a generated family: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py)
CASES = sample((f, p) for f, p in itertools.product(FORMS, PLACES) if f != "star" or p in ("top", "type-checking"))


@pytest.mark.parametrize(("form", "place"), CASES, ids=[f"{f}-{p}" for f, p in CASES])
def test_a_self_import_is_refused_when_it_fails_or_imports_the_whole_module_at_import_time(
    form: str, place: str, tmp_path: Path
) -> None:
    statement, whole = FORMS[form]
    before, after = mod_source(None, place), mod_source(statement, place)
    assert imports_cleanly(tmp_path, before)
    found = [p for p in introduced(before, after, "pkg/mod.py", module="pkg.mod") if p.kind == SELF_IMPORT]
    runs = imports_cleanly(tmp_path, after)
    at_import_time = place in ("top", "class-body")
    assert bool(found) == (not runs or (whole and at_import_time)), (after, found, runs)
    if found:
        how = statement.rsplit(" import ", 1)[0] + " import " if statement.startswith("from") else statement
        assert f"(`{how.split(' as ')[0]}" in found[0].describe(), found[0].describe()
        assert "circular import" in found[0].describe()
    # the names step refuses the same modules, with the self-import hint
    refused = names_check.names_refusal(before.encode(), after.encode(), "pkg/mod.py", None, "pkg.mod")
    assert (refused is not None) == bool(found), (after, refused)
    if refused is not None:
        assert refused.step == "names" and refused.hint == refusal.SELF_IMPORT_HINT, refused
        assert refused.why.startswith("the patched pkg/mod.py would fail to import: "), refused.why


@pytest.mark.parametrize(
    "statement", ["import pkg", "from pkg import EARLY", "from . import EARLY", "from pkg import *"]
)
def test_a_packages_own_init(statement: str) -> None:
    """In pkg/__init__.py, `from . import x` may load the submodule pkg/x.py: only what cannot be a
    submodule is judged (the whole package, its star, nothing else)."""
    before = "EARLY = 1\n"
    after = before + statement + "\n"
    found = introduced(before, after, "pkg/__init__.py", module="pkg")
    assert [p.kind for p in found] == ([SELF_IMPORT] if statement in ("import pkg",) else [])


def test_without_the_modules_name_nothing_is_judged() -> None:
    after = mod_source("from pkg.mod import LIMIT", "top")
    assert introduced(mod_source(None, "top"), after, "pkg/mod.py") == []
