"""The toy entry the overlap tests (tests/prove/overlaps/test_overlap*.py,
tests/releases/test_overlaps_*.py) write again and again: its head up to `rewrites:` and `write`,
that head with given rewrites, written and loaded; and the toy installed package the state tests
of stacked entries start from (`unpack_toy`, `toy_with_entries`)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch
from tests.lib.registry import write_entry
from tests.lib.site import Site
from tests.lib.wheels import build_wheel

HEAD = """\
summary: toy
description: toy
distribution: toypkg
supported: "{supported}"
modules:
  core: toypkg.core
rewrites:
"""


def text(body: str, supported: str = ">=1.0,<2", requires: tuple[str, ...] = ()) -> str:
    """HEAD (with `requires:` first when given) and `body`, its rewrites."""
    after = f"requires: [{', '.join(requires)}]\n" if requires else ""
    return after + HEAD.format(supported=supported) + body


def write(reg: Path, name: str, body: str, supported: str = ">=1.0,<2", requires: tuple[str, ...] = ()) -> Patch:
    """`reg`/`name`.yaml: text(body, supported, requires), loaded."""
    return load_patch(write_entry(reg, name, text(body, supported, requires)))


# Two build stages (tests/prove/overlaps/test_overlaps_applied*.py): `pa` from registry r1 inserts at `total = 0`;
# the second stage's `pb` (r2) is given.
CORE = "def plan(spec):\n    total = 0\n    size = len(spec)\n    return total + size\n"
AT_TOTAL = '  - id: {id}\n    insert_after: {{scope: plan, find: "total = 0", code: "total = {n}"}}\n'
ELSEWHERE = '  - id: size\n    replace: {scope: plan, find: "len(spec)", with: "len(spec) + 1"}\n'


def stages(site: Site, write_registry: Any, second: str) -> tuple[Path, Path]:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": CORE})
    return stage(write_registry, "pa", AT_TOTAL.format(id="pa", n=1), "r1"), stage(write_registry, "pb", second, "r2")


def older_record(site: Site, name: str = "pa") -> dict[str, Any]:
    """`name`'s record without the `touches` key, as an older radpatch wrote it; the record as it was."""
    record = site.root / ".radpatch/record.json"
    data: dict[str, Any] = json.loads(record.read_text())
    before = json.loads(json.dumps(data))
    del data["patches"][name]["touches"]
    record.write_text(json.dumps(data))
    return before


def stage(write_registry: Any, name: str, body: str, dirname: str, requires: tuple[str, ...] = ()) -> Path:
    """Registry `dirname` holding entry `name`: text(body, requires=requires)."""
    return write_registry(name, text(body, requires=requires), dirname=dirname)  # type: ignore[no-any-return]


def unpack_toy(site: Site, tmp_path: Path, src: str) -> Path:
    """toypkg 1.0 (its core.py `src`) built as a wheel and unpacked into `site` as pip lays out a
    pure-Python wheel, RECORD and all; the path of its core.py."""
    wheel = build_wheel(tmp_path / "wheels", "toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": src})
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site.root)
    return site.root / "toypkg/core.py"


def toy_with_entries(
    site: Site, write_registry: Any, tmp_path: Path, src: str, entries: dict[str, str]
) -> tuple[Path, Path]:
    """`unpack_toy`, and one registry holding each of `entries` (name -> its rewrites' lines) under
    HEAD: the registry and toypkg/core.py."""
    core = unpack_toy(site, tmp_path, src)
    reg = Path()
    for name, body in entries.items():
        reg = write_registry(name, HEAD.format(supported=">=1.0,<2") + body)
    return reg, core
