"""A backport across a rename for an entry with `requires:` (issue 23, port49): the entry, written for
2.0, names `size_of` in rptoy.planning; 1.0 has `size` in rptoy.core, and 2.0's core.py keeps the old
name bound to the new code. Without `requires:` port --to 1.0 writes a `modules:` choice of
rptoy.core for `<2.0` and the variant under the old name (tests/releases/test_port_rename_back_module);
with one, the search for the old name's home was not run at all and port said no match. Now it runs,
and the entry is proven on 1.0 stacked on its requirement:

- the requirement changes an unrelated module and holds on 1.0: port writes the choice and the variant;
- its range leaves 1.0 out: port edits nothing and says the requirement does not hold there;
- it changes the old name's home (rptoy.core): the search read core.py as the wheel has it, not as the
  requirement leaves it: port edits nothing and says so.

Generated: the alias's spelling x the requirement. The oracle: Python runs 1.0 and 2.0 with the
requirement and the ported entry applied: the cap through the old name (1), the requirement's own
change (2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.registry import loader
from radpatch.rewrite.runner import forward
from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, run_size

BODY = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
HELPER = "\n\ndef helper():\n    x = 1\n    return x\n"
ALIASES = {
    "from import as": "from rptoy.planning import size_of as size\n",
    "module attribute": "from rptoy import planning\n\nsize = planning.size_of\n",
    "from import then assigned": "from .planning import size_of\n\nsize = size_of\n",
}
REQUIREMENTS = {
    "holds": ("rptoy.extra", ">=1.0"),
    "out of range": ("rptoy.extra", ">=2.0"),
    "the old home": ("rptoy.core", ">=1.0"),
}
CASES = sample([(a, r) for a in ALIASES for r in REQUIREMENTS])
ENTRY = f"""\
# a toy entry: comments and layout stay
summary: s
description: d
distribution: {DIST}
supported: ">=2.0"   # written for 2.0
requires: [base]
modules:
  planner: rptoy.planning  # where size_of() lives
rewrites:
  - id: cap   # the cap
    insert_after: {{scope: size_of, find: n = len(items), code: "n = min(n, len(buckets))"}}
"""


def _base(module: str, supported: str) -> str:
    return f"""\
summary: b
description: d
distribution: {DIST}
supported: "{supported}"
modules:
  m: {module}
rewrites:
  - id: two
    insert_after: {{scope: helper, find: x = 1, code: "x = 2"}}
"""


def _helper(tmp: Path, files: dict[str, str | bytes], module: str) -> int:
    import subprocess
    import sys

    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(text if isinstance(text, bytes) else text.encode())
    code = f"import sys; sys.path.insert(0, {str(tmp)!r}); import {module} as m; print(m.helper())"
    return int(subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True).stdout)


@pytest.mark.parametrize(("alias", "requirement"), CASES, ids=["-".join(c) for c in CASES])
def test_a_backport_across_a_rename_with_requires(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, alias: str, requirement: str
) -> None:
    module, supported = REQUIREMENTS[requirement]
    home = module == "rptoy.core"
    first: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": BODY + (HELPER if home else "")}
    second: dict[str, str | bytes] = {
        "rptoy/__init__.py": "",
        "rptoy/core.py": ALIASES[alias] + (HELPER if home else ""),
        "rptoy/planning.py": BODY.replace("def size(", "def size_of("),
    }
    if not home:
        first["rptoy/extra.py"] = second["rptoy/extra.py"] = HELPER
    assert run_size(tmp_path / "old", first, False) == 3 and run_size(tmp_path / "new", second, False) == 3
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", ENTRY)
    (reg / "base.yaml").write_text(_base(module, supported))
    before = (reg / "cap.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.0")
    if requirement == "out of range":
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        assert "size_of was size in rptoy.core before 2.0" in r.out, r.out
        assert "requires: base (required): it supports >=2.0, not 1.0" in r.out, r.out
        return
    if home:
        said = "is not read as the entry's requirement base leaves it"
        assert said in r.out and r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert "size_of was size in rptoy.core before 2.0" in r.out and r.code == 0, r.out + r.err
    entry = loader.load_bytes(reg / "cap.yaml", (reg / "cap.yaml").read_text().encode())
    base = loader.load_bytes(reg / "base.yaml", (reg / "base.yaml").read_bytes())
    assert entry.module("planner").module_for(Version("1.0")).module == "rptoy.core"  # type: ignore[union-attr]
    for v, files, rel in (("1.0", first, "rptoy/core.py"), ("2.0", second, "rptoy/planning.py")):
        patched = {
            **files,
            rel: forward(entry, entry.rewrites_for(Version(v)), str(files[rel]).encode(), rel),
            "rptoy/extra.py": forward(
                base, base.rewrites_for(Version(v)), str(files["rptoy/extra.py"]).encode(), "rptoy/extra.py"
            ),
        }
        assert run_size(tmp_path / f"p-{v}", patched, False) == 1  # the cap, through the old name
        assert _helper(tmp_path / f"h-{v}", patched, "rptoy.extra") == 2  # the requirement's change
    again = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=1.0", "--json").out)
    assert [res["error"] for res in again["results"]] == [None, None], again
