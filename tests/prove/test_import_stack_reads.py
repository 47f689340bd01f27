"""A module taking a name, at import time, from a module of its package that is still running when it
runs (att21 pass 4): `ps/__init__.py` imports `ps.a`, which imports `ps.mod` before it binds X; the
patch makes `ps/mod.py` take X from `ps.a`. `import ps.mod` runs the `__init__` first, so `ps.mod` runs
while `ps.a` is paused above X: ImportError (AttributeError for `ps.a.X`, whose `ps.a` the package gets
only after `ps.a` has run), and the whole package no longer imports. The parent package's own case is
tests/prove/test_partial_package.py.

Generated: package shapes (which module imports which, in what order, the name bound before or after
the import) times how the patch takes the name. Each patched package is really imported in a
subprocess: the proof must refuse exactly those that fail."""

from __future__ import annotations

import itertools
import sys
import sysconfig
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import names_check, refusal
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample

# shape: files of package `ps` (besides mod.py), and the module whose name X the patch takes
SHAPES: dict[str, tuple[dict[str, str], str]] = {
    "init-a-mod": ({"__init__.py": "from . import a\n", "a.py": "from . import mod\nX = 1\n"}, "a"),
    "init-absolute": ({"__init__.py": "import ps.a\n", "a.py": "import ps.mod\nX = 1\n"}, "a"),
    "init-from-name": ({"__init__.py": "from .a import X\n", "a.py": "from .mod import f\nX = 1\n"}, "a"),
    "bound-before": ({"__init__.py": "from . import a\n", "a.py": "X = 1\nfrom . import mod\n"}, "a"),
    "two-deep-a": (
        {"__init__.py": "from . import a\n", "a.py": "from . import b\nX = 1\n", "b.py": "from . import mod\nX = 2\n"},
        "a",
    ),
    "two-deep-b": (
        {"__init__.py": "from . import a\n", "a.py": "from . import b\nX = 1\n", "b.py": "from . import mod\nX = 2\n"},
        "b",
    ),
    "sibling-first": (  # b ran to its end before a imports mod: b is not running any more
        {"__init__.py": "from . import b\nfrom . import a\n", "a.py": "from . import mod\nX = 1\n", "b.py": "X = 2\n"},
        "b",
    ),
    "init-no-import": ({"__init__.py": "", "a.py": "from . import mod\nX = 1\n"}, "a"),
    "import-in-function": (
        {"__init__.py": "from . import a\n", "a.py": "def load():\n    from . import mod\n\n\nX = 1\n"},
        "a",
    ),
    "subpackage": (
        {"__init__.py": "from . import sub\n", "sub/__init__.py": "from .. import mod\nX = 1\n"},
        "sub",
    ),
}

TAKES = {  # how the patched ps/mod.py takes X from module {m} (ps.{m})
    "from-absolute": "from ps.{m} import X\n",
    "from-relative": "from .{m} import X\n",
    "attribute": "import ps.{m}\nY = ps.{m}.X\n",
    "attribute-as": "import ps.{m} as _m\nY = _m.X\n",
    "module-from-package": "from ps import {m}\nY = {m}.X\n",
    "module-relative": "from . import {m}\nY = {m}.X\n",
    "in-function": "def later():\n    from ps.{m} import X\n    return X\n",
}

ORIGINAL = "def f():\n    return 1\n"


def build(root: Path, shape: str, take: str | None) -> Path:
    files, m = SHAPES[shape]
    pkg = root / "ps"
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    mod = pkg / "mod.py"
    mod.write_text((TAKES[take].format(m=m) if take else "") + ORIGINAL)
    return mod


def fails(root: Path) -> bool:
    """Whether `import ps.mod` fails, or calling the function `later` the patch may add does."""
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import ps.mod as m; getattr(m, 'later', int)()"
    done = fresh_run(sys.executable, code, (), ("-I", "-B"))
    assert done.returncode == 0 or "ImportError" in done.stderr or "AttributeError" in done.stderr, done.stderr
    return done.returncode != 0


# generated families: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py); the
# family has both outcomes (test_both_outcomes_are_generated)
CASES = sample(itertools.product(SHAPES, TAKES))


@pytest.mark.parametrize(("shape", "take"), CASES, ids=[f"{s}-{t}" for s, t in CASES])
def test_a_name_from_a_module_still_running_is_refused(shape: str, take: str, tmp_path: Path) -> None:
    root = tmp_path / "site"
    env = PythonEnv(sys.executable, (root, Path(sysconfig.get_paths()["stdlib"])), root, sys.version_info[:2])
    mod = build(root, shape, None)
    before = mod.read_bytes()
    assert not fails(root)
    build(root, shape, take)
    after = mod.read_bytes()
    truth = fails(root)
    mod.write_bytes(before)  # the proof reads the package as installed, before the patch is written
    refused = names_check.names_refusal(before, after, str(mod), env, "ps.mod")
    assert (refused is not None) == truth, (shape, take, refused)
    if refused is not None:
        m = SHAPES[shape][1]
        running = f"is taken from module ps.{m} while it is still running (it imports ps.mod at ps/"
        attribute = f"is taken from package ps as its attribute, which it gets only after module ps.{m} has run"
        assert running in refused.why or attribute in refused.why, refused.why
        assert refused.hint == refusal.PARTIAL_PACKAGE_HINT


def test_both_outcomes_are_generated(tmp_path: Path) -> None:
    """Over the whole family, not this run's sample (a slice of 1 in 64 may hold one outcome only)."""
    outcomes = set()
    for i, (shape, take) in enumerate(itertools.product(SHAPES, TAKES)):
        root = tmp_path / str(i)
        build(root, shape, take)
        outcomes.add(fails(root))
        if outcomes == {True, False}:
            break
    assert outcomes == {True, False}


# a submodule read through its package's attribute while the package's __init__ is still running and
# imports that submodule only below the statement that reaches the patched module (the package scan
# counts the __init__'s imports as done; at the time this module runs they are not)
ORDERS = {  # ps/__init__.py and other files
    "mod-then-sub": {"__init__.py": "from . import mod\nfrom . import sub\n"},
    "sub-then-mod": {"__init__.py": "from . import sub\nfrom . import mod\n"},
    "through-other": {"__init__.py": "from . import other\nfrom . import sub\n", "other.py": "from . import mod\n"},
    "other-imports-sub-first": {
        "__init__.py": "from . import other\nfrom . import mod\n",
        "other.py": "from . import sub\n",
    },
    "sub-in-a-function": {"__init__.py": "from . import mod\n\n\ndef load():\n    from . import sub\n"},
    "no-import": {"__init__.py": ""},
}
READS = {
    "attribute": "import ps\nY = ps.sub.X\n",
    "submodule-only": "import ps\nY = ps.sub\n",
    "imports-it-itself": "import ps\nimport ps.sub\nY = ps.sub.X\n",
    "in-function": "import ps\n\n\ndef later():\n    return ps.sub.X\n",
}
ORDER_CASES = sample(itertools.product(ORDERS, READS))


@pytest.mark.parametrize(("order", "read"), ORDER_CASES, ids=[f"{o}-{r}" for o, r in ORDER_CASES])
def test_a_submodule_its_running_package_imports_later_is_refused(order: str, read: str, tmp_path: Path) -> None:
    root = tmp_path / "site"
    env = PythonEnv(sys.executable, (root, Path(sysconfig.get_paths()["stdlib"])), root, sys.version_info[:2])
    for rel, text in {**ORDERS[order], "sub.py": "X = 1\n"}.items():
        (root / "ps" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "ps" / rel).write_text(text)
    mod = root / "ps" / "mod.py"
    mod.write_text(ORIGINAL)
    before = mod.read_bytes()
    assert not fails(root)
    mod.write_text(READS[read] + ORIGINAL)
    after = mod.read_bytes()
    truth = fails(root)
    mod.write_bytes(before)
    refused = names_check.names_refusal(before, after, str(mod), env, "ps.mod")
    assert (refused is not None) == truth, (order, read, refused)
    if refused is not None and order not in ("no-import", "sub-in-a-function"):  # those: nothing imports ps.sub
        assert "is taken from package ps as its attribute, which it does not have yet" in refused.why, refused.why
