"""A patch that takes a module-level name away while another module of the installed package gets it by
`from pp.mod import *` is refused, naming the importer's file:line (issue 21: deleting `def helper`
passed while `from toy10.a import *` / `V = helper()` raised NameError on import).

Generated: how the importer star-imports (absolute, relative) and reads the name (at import time, in a
called function, not at all, rebound by itself, rebound from itself, shadowed by a parameter), what
`__all__` the module has (none, listing the name, listing another name only; as a literal or built),
which name (public, underscore) and what the patch does (delete, rename keeping an alias, leave it). The
oracle imports the patched package in a fresh interpreter and calls `use()`: the proof refuses exactly
the patches that make that fail.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from radpatch.prove import names_check
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample
from tests.lib.package_imports import site_env, write_package

ORIGINAL = "ALL\n\ndef NAME():\n    return 1\n\n\ndef other():\n    return 2\n"
ALLS = {
    "none": "",
    "lists-it": "__all__ = ['NAME', 'other']",
    "lists-other": "__all__ = ['other']",
    "built-lists-it": "__all__ = ['NAME'] + ['other']",  # no literal: att46 #6
    "built-lists-other": "__all__ = ['other'] + []",
}
STARS = {"absolute": "from pp.mod import *", "relative": "from .mod import *"}
READS = {  # pp/other.py after its star import
    "import-time": "V = REF()\n\n\ndef use():\n    return V\n",
    "in-function": "def use():\n    return REF()\n",
    "no-read": "def use():\n    return other()\n",
    "rebound": "def NAME():\n    return 3\n\n\ndef use():\n    return NAME()\n",
    "parameter": "def use(NAME=len):\n    return NAME([])\n",
    "rebound-from-itself": "NAME = (lambda f: f)(REF)\n\n\ndef use():\n    return NAME()\n",  # reads it first
}
CHANGES = {
    "delete": lambda src, name: src.replace(f"def {name}():\n    return 1\n", ""),
    "rename-keeping-alias": lambda src, name: src.replace(f"def {name}(", f"def {name}2(") + f"\n{name} = {name}2\n",
    "unchanged": lambda src, name: src.replace("return 2", "return 4"),
}
NAMES = ["helper", "_helper"]


def fails(root: Path) -> bool:
    """Whether importing the package as it is under `root` and calling pp.other.use() fails."""
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import pp.mod, pp.other; pp.other.use()"
    done = fresh_run(sys.executable, code, (), ("-I", "-B"))
    assert done.returncode == 0 or any(e in done.stderr for e in ("NameError", "ImportError", "AttributeError"))
    return done.returncode != 0


ALL_CASES = list(itertools.product(STARS, READS, ALLS, NAMES, CHANGES))
CASES = sample(ALL_CASES)


@pytest.mark.parametrize(("star", "read", "all_", "name", "change"), CASES, ids=["-".join(c) for c in CASES])
def test_a_name_a_star_importer_reads_is_not_taken_away(
    star: str, read: str, all_: str, name: str, change: str, tmp_path: Path
) -> None:
    root = tmp_path / "site"
    original = ORIGINAL.replace("ALL", ALLS[all_]).replace("NAME", name)
    taken = all_ in ("lists-it", "built-lists-it") or (all_ == "none" and not name.startswith("_"))
    ref = name if taken else f"mod.{name}"  # a name the star import does not take is read through the module
    importer = ("from . import mod  # noqa\n" if star == "relative" else "import pp.mod as mod  # noqa\n") + STARS[star]
    importer += "\n\n" + READS[read].replace("REF", ref).replace("NAME", name)
    mod = write_package(root, {"__init__": "", "other": importer, "mod": original})
    assert not fails(root)
    before = mod.read_bytes()
    mod.write_text(CHANGES[change](original, name))
    truth = fails(root)
    after = mod.read_bytes()
    mod.write_bytes(before)
    refused = names_check.names_refusal(before, after, str(mod), site_env(root), "pp.mod")
    assert (refused is not None) == truth, (star, read, all_, name, change, refused)
    if refused is not None:
        assert f"`{name}` (line " in refused.why and "pp/other.py:" in refused.why, refused.why


def test_both_outcomes_are_generated() -> None:
    assert any(c[1] == "import-time" and c[2] == "none" and c[3] == "helper" and c[4] == "delete" for c in ALL_CASES)
    assert any(c[1] == "rebound" or c[4] == "unchanged" for c in ALL_CASES)


PASSED_ON = {  # pp/other.py, taking the name from pp, whose __init__ star-imports pp.mod
    "from-package": "from pp import NAME\n\n\ndef use():\n    return NAME()\n",
    "package-attribute": "import pp\n\n\ndef use():\n    return pp.NAME()\n",
    "star-of-package": "from pp import *\n\nV = NAME()\n\n\ndef use():\n    return V\n",
    "unrelated": "from pp import other\n\n\ndef use():\n    return other()\n",
}
INITS = {"star": "from .mod import *\n", "star-and-own": "from .mod import *\n\n\ndef NAME():\n    return 5\n"}
PASSED = sample(itertools.product(PASSED_ON, INITS, ["none", "lists-it"], CHANGES))


@pytest.mark.parametrize(("read", "init", "all_", "change"), PASSED, ids=["-".join(c) for c in PASSED])
def test_a_name_a_star_importer_passes_on_is_not_taken_away(
    read: str, init: str, all_: str, change: str, tmp_path: Path
) -> None:
    """`pp/__init__.py` does `from .mod import *`: what it takes, its own importers take from it."""
    root = tmp_path / "site"
    original = ORIGINAL.replace("ALL", ALLS[all_]).replace("NAME", "helper")
    modules = {"__init__": INITS[init].replace("NAME", "helper"), "other": PASSED_ON[read].replace("NAME", "helper")}
    mod = write_package(root, {**modules, "mod": original})
    assert not fails(root)
    before = mod.read_bytes()
    mod.write_text(CHANGES[change](original, "helper"))
    truth = fails(root)
    after = mod.read_bytes()
    mod.write_bytes(before)
    refused = names_check.names_refusal(before, after, str(mod), site_env(root), "pp.mod")
    assert (refused is not None) == truth, (read, init, all_, change, refused)
    if refused is not None:
        assert "`helper` (line " in refused.why and "pp/" in refused.why, refused.why
