"""A patched fallback whose try imports what the module set up before it (imp39, issue 21 I2): a
`sys.path.insert` of a vendored directory beside `__file__`, an environment variable the imported
module reads, an import of a sibling that inserts the path. The guarded-import check ran the try
alone (its imports, and only the bindings the body reads), so the import failed there, the
handler was judged to run, and a patch of a fallback that never runs on the install applied; or
the other way round. Now the module's top-level statements before the try run first, as Python
runs them (placement's `prefix`).

Generated: how the module sets up the import (sys.path, an environment variable, a setup module's
import) times whether the set-up import then succeeds (the vendored module there, the variable on)
or not. The oracle imports the patched package in a fresh subprocess of the target interpreter:
what applies runs its patched fallback; a refusal as "never runs" is checked against it
(tests/lib/fallback_entry.refused_or_runs)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.lib.fallback_entry import ENTRY, REWRITE, refused_or_runs
from tests.lib.generated import sample
from tests.lib.site import Site

CORE = """\
import os
import sys

{setup}

try:
    from {tried} import f
except ImportError:
    def f():
        return 1


def value():
    return f()
"""
VENDOR = 'os.path.join(os.path.dirname(os.path.abspath(__file__)), "_vendor")'
SETUP = {  # what the module runs before the try, what the try imports, and the files that make it succeed
    "sys-path": (
        f"sys.path.insert(0, {VENDOR})",
        "rpfb_fastlib",
        {"rpfb/_vendor/rpfb_fastlib.py": "def f():\n    return 0\n"},
    ),
    "environ": ('os.environ["RPFB_FAST"] = "{on}"', "rpfb.fast", {}),
    "setup-import": (
        "from rpfb import _setup",
        "rpfb_fastlib",
        {"rpfb/_vendor/rpfb_fastlib.py": "def f():\n    return 0\n"},
    ),
}
FILES = {
    "rpfb/__init__.py": "",
    "rpfb/fast.py": "import os\nif os.environ.get('RPFB_FAST') != '1':\n    raise ImportError('off')\n"
    "def f():\n    return 0\n",
    "rpfb/_setup.py": f"import os, sys\nsys.path.insert(0, {VENDOR})\n",
}


@pytest.mark.parametrize(("setup", "succeeds"), sample(itertools.product(SETUP, (True, False))))
def test_a_fallback_after_the_module_sets_up_its_import_is_judged_as_python_runs_it(
    setup: str, succeeds: bool, site: Site, write_registry: Any, radpatch: Any
) -> None:
    code, tried, vendored = SETUP[setup]
    text = CORE.format(setup=code.replace("{on}", "1" if succeeds else "0"), tried=tried)
    site.install("rpfb", "1.0", {**FILES, "rpfb/core.py": text, **(vendored if succeeds else {})})
    got, err = refused_or_runs(site, write_registry("fb", ENTRY.format(rewrite=REWRITE)), radpatch, text)
    assert got == (1 if succeeds else 0), err
    if got == 1:
        assert "so the patched fallback never runs" in err, err
