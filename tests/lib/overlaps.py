"""The toy entry the overlap tests (tests/releases/test_overlap*.py) write again and again: its head
up to `rewrites:` and `write`, that head with given rewrites, written and loaded."""

from __future__ import annotations

from pathlib import Path

from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch
from tests.lib.registry import write_entry

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
