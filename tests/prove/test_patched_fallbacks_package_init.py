"""A patched fallback in a module its package's `__init__` imports (vLLM's do: `vllm/__init__.py`
imports its modules), judged as Python runs the try: the package partly imported, whatever its
`__init__` bound before the import in place, the rest not yet (fb38 #1).

Generated: how the package's `__init__` reaches rpfb.core (directly, by a name, through a sibling,
or not at all) times what the try's body imports (a name of the package bound after the import of
rpfb.core, a sibling that reads one back, a name bound before it, a sibling that imports whole)
times the handler's catch. The oracle imports the patched package in a fresh subprocess of the
target interpreter: whatever applies runs its patched fallback, and a refusal as "never runs"
is checked against it (tests/lib/fallback_entry.refused_or_runs)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.lib.fallback_entry import ENTRY, REWRITE, refused_or_runs
from tests.lib.generated import sample
from tests.lib.site import Site

CORE = """\
try:
    {guard}
except {catch}:
    def f():
        return 1


def value():
    return f()
"""

REACH = {  # the package's __init__ up to its import of rpfb.core (or none), then what it binds after
    "from-dot": "from . import core",
    "from-name": "from .core import value",
    "absolute": "import rpfb.core",
    "sibling": "from .via import g",
    "none": "",
}

GUARD = {  # the try's body; whether the import fails while rpfb's __init__ is importing rpfb.core
    "package-late": ("from rpfb import FAST as f", True),
    "sibling-late": ("from rpfb.fast import f", True),
    "package-early": ("from rpfb import EARLY as f", False),
    "sibling-whole": ("from rpfb.whole import f", False),
}
CATCHES = ("ImportError", "Exception")

FILES = {
    "rpfb/via.py": "from rpfb.core import value as g\n",
    "rpfb/fast.py": "from rpfb import FAST as f\n",
    "rpfb/whole.py": "def f():\n    return 0\n",
}


@pytest.mark.parametrize(("reach", "guard", "catch"), sample(itertools.product(REACH, GUARD, CATCHES)))
def test_a_fallback_in_a_module_the_package_init_imports_is_judged_as_python_runs_it(
    reach: str, guard: str, catch: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    """The check imported the package whole first (its `__init__` importing rpfb.core and binding
    FAST), then ran the try's body alone: the import succeeded, and a fallback that runs on every
    import of the package was refused as "never runs". Now rpfb.core's try runs where Python runs it."""
    text = CORE.format(guard=GUARD[guard][0], catch=catch)
    init = "def _early():\n    return 0\n\n\nEARLY = _early\n" + REACH[reach] + "\n\n\ndef FAST():\n    return 0\n"
    site.install("rpfb", "1.0", {"rpfb/__init__.py": init, "rpfb/core.py": text, **FILES})
    code, err = refused_or_runs(site, write_registry("fb", ENTRY.format(rewrite=REWRITE)), radpatch, text)
    fails_in_init = GUARD[guard][1] and reach != "none"
    assert code == (0 if fails_in_init else 1), err
    if code == 1:
        assert "so the patched fallback never runs" in err, err
