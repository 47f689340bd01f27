"""The toy entry the upstream-state tests (tests/releases/test_upstream_*.py) write: `cap` inserts
a line into rptoy's `size`, which upstream took in 3.0 (`PATCHED`); `entry` gives its YAML with the
description and supported range each test tells its story by."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet

from tests.lib.toy_releases import REWRITES

PKG = "rptoy"
GOOD = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
PATCHED = GOOD.replace("    return n", "    n = min(n, len(buckets))\n    return n")
LINK = "https://github.com/vllm-project/vllm/pull/31337"
# upstream's own spelling of the change: the rewrites do not apply, the change is there
UPSTREAM = GOOD.replace("n = len(items)", "n = len(list(items))").replace(
    "    return n", "    n = min(n, len(buckets))\n    return n"
)
# where the moved tests' scope goes: a sibling module or into a subpackage (its file, its module)
TO = {"sibling": (f"{PKG}/planning.py", f"{PKG}.planning"), "subpackage": (f"{PKG}/plan/sizes.py", f"{PKG}.plan.sizes")}
GUARD_BEFORE = 'insert_after: {scope: size, find: "buckets = [items]", code: "items = items or []"}'


def guard_entry(moved_in: str, module: str, rewrite: str = GUARD_BEFORE) -> str:
    """`guard`, the entry `cap` requires, naming both layouts (rptoy.core before `moved_in`, `module`
    from it): `rewrite` in size(), by default a line inserted before cap's."""
    return f"""\
summary: Guard the toy's size
description: The requirement; it names both layouts.
distribution: radpatch-toy
supported: ">=1.0"
modules:
  planner:
    - {{versions: "<{moved_in}", module: {PKG}.core}}
    - {{versions: ">={moved_in}", module: {module}}}
rewrites:
  - id: guard
    {rewrite}
"""


def entry(description: str, supported: str) -> str:
    """The entry `cap`, upstream at LINK, for radpatch-toy `supported`."""
    return f"""\
upstream: [{LINK}]
summary: Cap the toy's size by its buckets
description: {description}
distribution: radpatch-toy
supported: "{supported}"
modules:
  planner: {PKG}.core
{REWRITES}"""


def supported_of(text: str) -> SpecifierSet:
    """The `supported:` range of an entry's YAML text (written quoted, as `entry` writes it)."""
    line = next(ln for ln in text.splitlines() if ln.startswith("supported:"))
    return SpecifierSet(line.split('"')[1])


def assert_ported_past_obsolete(radpatch: Any, reg: Path, last: str, module: str, between: bool) -> None:
    """`port cap --to >=1.1` past `last`, whose `module` already has the change: said obsolete there
    and left out of `supported:`; with a release between, the module variant is added and verifies."""
    r = radpatch("--registry", str(reg), "port", "cap", "--to", ">=1.1")
    assert r.code == 0, r.out + r.err
    text = (reg / "cap.yaml").read_text()
    assert f"{last}: already contains the change (obsolete there)" in r.out or f"{last} already contains" in r.out, (
        r.out
    )
    assert not supported_of(text).contains(last), text
    if between:
        assert f"module: {module}" in text and supported_of(text).contains("1.1"), text
        assert radpatch("--registry", str(reg), "verify", "cap").code == 0


def engine_entry(description: str, code: str) -> str:
    """`two`: rptoy's Engine loses `self.timeout = 30` (`d`) and gains `code` after `self.a = 0` in
    stop() (`i`), for radpatch-toy 1.0: the entry of the tests where upstream takes one part of it."""
    return f"""\
summary: Drop the timeout, mark the engine stopped
description: {description}
distribution: radpatch-toy
supported: "==1.0"
modules:
  core: {PKG}.core
rewrites:
  - id: d
    delete:
      scope: Engine.configure
      find: self.timeout = 30
  - id: i
    insert_after:
      scope: Engine.stop
      find: self.a = 0
      code: {code}
"""
