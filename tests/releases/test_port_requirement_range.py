"""verify and port read a `requires:` entry's own `supported:` (port38, issue 23): `eb` (requires `ea`)
was ported to 1.1 while `ea` supports 1.0 only, and apply on 1.1 then refuses `ea`. Now the release is
a `requires` failure naming ea's range; port leaves eb alone and says to port both together, which
works.

Generated: ea's range written four ways (all of them leaving 1.1 out), eb's own range either the
same or already claiming 1.1; ea's rewrite changes the code eb's rewrite then finds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample

DIST = "radpatch-toy"
SRC = "def size(items):\n    n = len(items)\n    return n\n"
RANGES = ('"==1.0"', '">=1.0,<1.1"', '"~=1.0.0"', '"<=1.0"')


def _ea(supported: str) -> str:
    return f"""\
summary: Count one more
description: Written for 1.0.
distribution: {DIST}
supported: {supported}
modules:
  core: rptoy.core
rewrites:
  - id: more
    replace: {{scope: size, find: n = len(items), with: "n = len(items) + 1"}}
"""


def _eb(supported: str) -> str:
    return f"""\
summary: Cap what ea counts
description: Written on ea's result.
distribution: {DIST}
supported: {supported}
requires: [ea]
modules:
  core: rptoy.core
rewrites:
  - id: cap
    insert_after: {{scope: size, find: "n = len(items) + 1", code: "n = min(n, 4)"}}
"""


@pytest.mark.parametrize(("ranged", "claims"), sample([(r, c) for r in RANGES for c in (False, True)]))
def test_a_requirement_that_leaves_the_release_out_fails_it_and_is_ported_with_it(
    loopback: Any, write_registry: Any, radpatch: Any, ranged: str, claims: bool
) -> None:
    loopback(DIST, {v: {"rptoy/__init__.py": "", "rptoy/core.py": SRC} for v in ("1.0", "1.1")})
    write_registry("ea", _ea(ranged))
    reg = write_registry("eb", _eb('">=1.0,<1.2"' if claims else ranged))
    got = json.loads(radpatch("--registry", str(reg), "verify", "eb", "--versions", "==1.1", "--json").out)
    cell = got["results"][0]
    assert cell["checks"]["requires"] is False, cell
    assert "ea" in cell["error"] and ranged.strip('"') in cell["error"], cell
    if claims:  # eb claims 1.1 already: verify says it fails there
        assert radpatch("--registry", str(reg), "verify", "eb").code == 1
        return
    before = (reg / "eb.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "eb", "--to", "1.1")
    assert r.code == 1 and "left alone" in r.out, (r.out, r.err)
    assert "`radpatch port ea eb --to 1.1`" in r.out, r.out
    assert (reg / "eb.yaml").read_text() == before
    r = radpatch("--registry", str(reg), "port", "eb", "ea", "--to", "1.1")
    assert r.code == 0, (r.out, r.err)
    for name in ("ea", "eb"):
        done = json.loads(radpatch("--registry", str(reg), "verify", name, "--versions", "==1.1", "--json").out)
        assert done["results"][0]["ok"] and done["results"][0]["in_range"], (name, done)


@pytest.mark.parametrize("pre", ["1.1rc1", "1.1.dev3", "1.1b1"])
def test_a_requirement_refusing_prereleases_fails_the_prerelease(
    loopback: Any, write_registry: Any, radpatch: Any, pre: str
) -> None:
    loopback(DIST, {v: {"rptoy/__init__.py": "", "rptoy/core.py": SRC} for v in ("1.0", pre)})
    write_registry("ea", _ea('">=1.0,<1.2"') + "prereleases: refuse\n")
    reg = write_registry("eb", _eb('">=1.0,<1.2"'))
    got = json.loads(radpatch("--registry", str(reg), "verify", "eb", "--versions", f"=={pre}", "--json").out)
    cell = got["results"][0]
    assert cell["in_range"] and cell["checks"]["requires"] is False, cell
    assert "ea" in cell["error"] and "prereleases: refuse" in cell["error"], cell
    alone = json.loads(radpatch("--registry", str(reg), "verify", "eb", "--versions", "==1.0", "--json").out)
    assert alone["results"][0]["ok"], alone
