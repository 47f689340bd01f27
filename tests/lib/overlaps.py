"""The toy entry the overlap tests (tests/releases/test_overlap*.py) write again and again: its head
up to `rewrites:` and `write`, that head with given rewrites, written and loaded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch
from tests.lib.registry import write_entry
from tests.lib.site import Site

HEAD = """\
summary: toy
description: toy
distribution: toypkg
supported: "{supported}"
modules:
  core: toypkg.core
rewrites:
"""


def write(reg: Path, name: str, body: str, supported: str = ">=1.0,<2", requires: tuple[str, ...] = ()) -> Patch:
    """`reg`/`name`.yaml: HEAD (with `requires:` first when given) and `body`, its rewrites; loaded."""
    after = f"requires: [{', '.join(requires)}]\n" if requires else ""
    return load_patch(write_entry(reg, name, after + HEAD.format(supported=supported) + body))


# Two build stages (tests/releases/test_overlaps_applied*.py): `pa` from registry r1 inserts at `total = 0`;
# the second stage's `pb` (r2) is given.
CORE = "def plan(spec):\n    total = 0\n    size = len(spec)\n    return total + size\n"
AT_TOTAL = '  - id: {id}\n    insert_after: {{scope: plan, find: "total = 0", code: "total = {n}"}}\n'
ELSEWHERE = '  - id: size\n    replace: {scope: plan, find: "len(spec)", with: "len(spec) + 1"}\n'


def stages(site: Site, write_registry: Any, second: str) -> tuple[Path, Path]:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    one = write_registry("pa", HEAD.format(supported=">=1.0,<2") + AT_TOTAL.format(id="pa", n=1), dirname="r1")
    two = write_registry("pb", HEAD.format(supported=">=1.0,<2") + second, dirname="r2")
    return one, two
