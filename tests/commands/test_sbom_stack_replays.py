"""Each applied entry's diff is its own step of the stack (radpatch.state.recorded_diffs): from the bytes
under it to the bytes it left, the same in `radpatch diff`, in the SBOM made with the registry and
in the SBOM made from the record alone; and the diffs replayed in apply order on the pristine
files with GNU patch give the installed bytes, as a quilt series does.

Generated: stacks of two or three entries, each inserting after the line the one below it
inserted (`requires:` gives the order), on LF and CRLF files, applied in one run or one entry a
run, beside an entry of another file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.sbom import bom_of, props
from tests.lib.site import Site

PATCH = "/usr/bin/patch"
CORE = "# caf\u00e9\ndef size(items):\n    n = len(items)\n    return n\n"
OTHER = "LIMIT = 1\n"
LINES = ["n = len(items)", "n = min(n, 3)", "n = n or 1", "n = max(n, 0)"]


def _entry(i: int) -> str:
    requires = f"requires: [e{i - 1}]\n" if i else ""
    return f"""\
summary: Step {i} of the stack
description: Inserts after the line the entry below it inserted.
distribution: stackpkg
supported: "==1.0"
{requires}modules:
  core: stackpkg.core
rewrites:
  - id: s{i}
    insert_after:
      scope: size
      find: {LINES[i]}
      code: {LINES[i + 1]}
"""


SIDE = """\
summary: Another file
description: Raises the limit.
distribution: stackpkg
supported: "==1.0"
modules:
  other: stackpkg.other
rewrites:
  - id: limit
    set_constant:
      name: LIMIT
      from: "1"
      value: "2"
"""


@pytest.mark.skipif(shutil.which(PATCH) is None, reason="GNU patch is not installed")
@pytest.mark.parametrize(
    ("depth", "newline", "one_run"),
    sample([(d, nl, o) for d in (2, 3) for nl in ("\n", "\r\n") for o in (True, False)]),
)
def test_the_stacks_diffs_replay_to_the_installed_bytes(
    depth: int, newline: str, one_run: bool, site: Site, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    core = CORE.replace("\n", newline)
    site.install("stackpkg", "1.0", {"stackpkg/__init__.py": "", "stackpkg/core.py": core, "stackpkg/other.py": OTHER})
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    shutil.copytree(site.root / "stackpkg", pristine / "stackpkg")
    names = [f"e{i}" for i in range(depth)]
    for i, name in enumerate(names):
        reg = write_registry(name, _entry(i))
    write_registry("side", SIDE)
    order = ["side", *names]
    for run in [order] if one_run else [[n] for n in order]:
        got = radpatch("--registry", str(reg), "apply", *run)
        assert got.code == 0, got.err
    diffs = {n: radpatch("--registry", str(reg), "diff", n).out for n in order}
    for registry in (("--registry", str(reg)), ()):
        (component,) = bom_of(radpatch(*registry, "status", "--format", "cyclonedx").out)["components"]
        listed = dict(zip(props(component, "radpatch:patch"), component["pedigree"]["patches"], strict=True))
        assert {n: listed[n]["diff"]["text"]["content"] for n in order} == diffs, registry
    for n in order:  # apply order: the series
        done = subprocess.run(
            [PATCH, "-p1", "--binary", "--batch", "--forward", "--no-backup-if-mismatch"],
            input=diffs[n].encode(),
            cwd=pristine,
            capture_output=True,
        )
        assert done.returncode == 0, (n, diffs[n], done.stdout.decode())
    for rel in ("stackpkg/core.py", "stackpkg/other.py"):
        assert (pristine / rel).read_bytes() == (site.root / rel).read_bytes(), rel
