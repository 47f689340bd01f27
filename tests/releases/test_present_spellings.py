"""Apply's "already present" judgement (prove.form.present) reads an insertion upstream wrote its
own way as the same code (issue 23): a comment beside or above it, blank lines, other spacing,
quotes or redundant parentheses. A toy release carrying rewrite 'i''s insertion, spelled each way,
is refused by apply (a second copy would be added) and is not `pass` for verify; a release whose
statement at the anchor is genuinely different is still patched, and verify passes it. Each
release served as a wheel and installed as the release apply runs on."""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest

from tests.lib.site import Site
from tests.lib.upstream_toy import engine_entry

PKG = "rptoy"
DIST = "radpatch-toy"
REL = f"{PKG}/core.py"
CODE = 'self.state = path.join("run", "stopped")'

# the same statement as CODE, as upstream might write it (lines under `self.a = 0`, method-indented)
SAME = {
    "as written": [CODE],
    "comment beside": [f"{CODE}  # upstream: mark it"],
    "comment above": ["# upstream: mark it stopped", CODE],
    "blank lines": ["", CODE, ""],
    "single quotes": ["self.state = path.join('run', 'stopped')"],
    "no spacing": ['self.state=path.join("run","stopped")'],
    "redundant parens": ['self.state = (path.join(("run"), "stopped"))'],
    "over lines": ["self.state = path.join(", '    "run",', '    "stopped",', ")  # upstream"],
    "parenthesised target": ['(self.state) = path.join("run", "stopped")'],
}
# statements at the anchor that are not CODE: the insertion is still made
OTHER = {
    "other string": ['self.state = path.join("run", "started")'],
    "other target": ['self.status = path.join("run", "stopped")'],
    "other call": ['self.state = path.join("stopped", "run")'],
}

ENTRY = engine_entry("Two rewrites; upstream may take the insertion in its own spelling.", CODE)


def release(lines: list[str]) -> str:
    """The toy's core.py with `lines` under the insert's anchor (the deletion not taken)."""
    tail = "".join(f"        {s}\n" if s else "\n" for s in ["self.a = 0", *lines, "return 0"])
    return (
        "from os import path\n\n\nclass Engine:\n    def configure(self):\n        self.a = 1\n"
        f"        self.timeout = 30\n\n    def stop(self):\n{tail}"
    )


@pytest.mark.parametrize("spelling", [*SAME, *OTHER])
def test_an_insertion_upstream_spelled_its_own_way_is_already_present_for_apply_and_verify(
    spelling: str, loopback: Any, write_registry: Any, radpatch: Any, site: Site, no_shipped: None
) -> None:
    carried = spelling in SAME
    new = release((SAME if carried else OTHER)[spelling])
    loopback(DIST, {"1.0": {REL: release([])}, "2.0": {REL: new}})
    reg = write_registry("two", ENTRY)

    v = radpatch("--registry", str(reg), "verify", "two", "--versions", "==2.0", "--json")
    result = next(r for r in json.loads(v.out)["results"] if r["version"] == "2.0")

    site.install(DIST, "2.0", {REL: new})
    (reg / "two.yaml").write_text(ENTRY.replace('"==1.0"', '">=1.0,<=2.0"'))  # apply reads the release as claimed
    applied = radpatch("--registry", str(reg), "apply", "two")
    installed = (site.root / REL).read_text()

    if carried:
        assert applied.code != 0 and installed == new, applied.out + applied.err
        assert "already contains what rewrite 'i' adds" in applied.err, applied.out + applied.err
        assert result["ok"] is False and result["checks"]["pristine"] is False, result
        assert "rewrite 'i'" in result["error"], result
    else:
        assert applied.code == 0, applied.out + applied.err
        assert installed.count("self.a = 0\n        self.state = path.join") == 1, installed  # the insertion, once
        assert "timeout" not in ast.dump(ast.parse(installed)), installed  # and the deletion made
        assert result["ok"] is True, result
