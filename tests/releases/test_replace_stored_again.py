"""A `replace`'s new code is carried by a release only where nothing may store the replaced name
again (issue 23, att23b F2): `object.__setattr__`/`setattr` with its name, a helper of another
module of the package handed the object, an inherited method, a decorator imported from another
module of the package that stores it (followed as radpatch.releases.imported_decorators follows it) or that
cannot be read (radpatch.releases.replaced, as proof calls it with carried.carries).

Generated: a decorator on the scope x a statement after the new code. The reference is the
release's package, imported and run: it carries the change exactly when `C().timeout` follows the
environment as the patched base does (every variant either stores the name again or leaves it)."""

from __future__ import annotations

import importlib
import itertools
import sys
import textwrap
from pathlib import Path

import pytest

from radpatch.prove.star_exports import ModuleSource
from radpatch.releases.carried import carries
from radpatch.releases.compared import Compared
from radpatch.releases.replaced import undone
from tests.lib.generated import sample

HELPERS = """\
def reset(obj):
    obj.timeout = 30


def touch_other(obj):
    obj.other = 1


def defaults(f):
    def w(self):
        f(self)
        self.timeout = 30
    return w


def keep(f):
    def w(self):
        f(self)
    return w


class Base:
    def again(self):
        self.timeout = 30
"""
OLD, NEW = "self.timeout = 30", 'self.timeout = int(os.environ.get("T", "30"))'
DECOS = [None, "defaults", "keep", "local_defaults"]
AFTERS = [
    None,
    "len(str(self.a))",
    'object.__setattr__(self, "timeout", 30)',
    'object.__setattr__(self, "other", 30)',
    'setattr(self, "timeout", 30)',
    "reset(self)",
    "self.again()",
    "vars(self).update(timeout=30)",
]
LOCAL = """

def local_defaults(f):
    def w(self):
        f(self)
        self.timeout = 30
    return w
"""


def _core(line: str, deco: str | None, after: str | None) -> str:
    body = ["self.a = 1", line, *([after] if after else [])]
    return (
        "import os\nfrom .helpers import reset, defaults, keep, Base\n"
        + (LOCAL if deco == "local_defaults" else "")
        + "\n\nclass C(Base):\n"
        + (f"    @{deco}\n" if deco else "")
        + "    def __init__(self):\n"
        + textwrap.indent("\n".join(body), "        ")
        + "\n"
    )


def _runs_like_the_patch(root: Path, pkg: str, core: str, monkeypatch: pytest.MonkeyPatch) -> bool:
    (root / pkg).mkdir()
    (root / pkg / "__init__.py").write_text("")
    (root / pkg / "helpers.py").write_text(HELPERS)
    (root / pkg / "core.py").write_text(core)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("T", "45")
    try:
        return bool(importlib.import_module(f"{pkg}.core").C().timeout == 45)
    finally:
        for m in [m for m in sys.modules if m == pkg or m.startswith(pkg + ".")]:
            del sys.modules[m]


CASES = list(itertools.product(DECOS, AFTERS))


@pytest.mark.parametrize(("deco", "after"), sample(CASES))
def test_not_in_effect_exactly_where_the_release_loses_the_new_value(
    deco: str | None, after: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """replaced.undone alone decides a release that reads as patched (radpatch's own layout): exact.
    With carried.carries (upstream's layout) the answer may be more careful (a new decorator is
    never carried there), never less."""
    before, patched, release = _core(OLD, None, None).encode(), _core(NEW, None, None).encode(), _core(NEW, deco, after)
    me, sources = ("tpkg.core", False), (ModuleSource("tpkg.helpers", False, HELPERS.encode()),)
    in_effect = _runs_like_the_patch(tmp_path, f"rpt_{CASES.index((deco, after))}", release, monkeypatch)
    c = Compared(before, patched, release.encode(), me, sources)
    assert undone(c) is not in_effect, release
    if carries(c) and not undone(c):
        assert in_effect, release


def test_the_reference_is_not_one_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {
        _runs_like_the_patch(tmp_path, f"rpt_all_{i}", _core(NEW, d, a), monkeypatch) for i, (d, a) in enumerate(CASES)
    }
    assert answers == {True, False}


def test_a_decorator_that_cannot_be_read_is_not_carried() -> None:
    before, patched = _core(OLD, None, None).encode(), _core(NEW, None, None).encode()
    release = _core(NEW, "keep", None).encode()
    assert undone(Compared(before, patched, release, ("tpkg.core", False), ()))  # helpers not read
    helpers = (ModuleSource("tpkg.helpers", False, HELPERS.encode()),)
    assert not undone(Compared(before, patched, release, ("tpkg.core", False), helpers))


def test_a_helper_whose_body_is_not_read_is_not_carried_when_handed_the_object() -> None:
    before, patched = _core(OLD, None, None).encode(), _core(NEW, None, None).encode()
    release = _core(NEW, None, "touch_other(self)").encode()  # harmless when run, but not read
    assert undone(Compared(before, patched, release, ("tpkg.core", False), ()))
