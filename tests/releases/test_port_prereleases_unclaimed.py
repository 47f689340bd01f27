"""`port` claims no pre-release it did not prove (port38, issue 23): `>=1.0,<1.1` ported to 1.1 was
written `<=1.1` (1.1.post1 unproven), which takes in 1.1rc1 (PEP 440 puts it before 1.1), where the
entry fails. Now each listed pre-release or development build the widened range newly claims and port
did not prove is left out (`!=1.1rc1`), and so is a post-release of the release a backport reaches
(`>=0.9` takes in 0.9.post1); the release asked for is claimed.

Generated: bump (to 1.1) or backport (to 0.9, below a `>=1.0`); the pre-release an rc, a beta or a dev
build of the release crossed; with or without an unproven post-release after 1.1; the range written
four ways; the edit proves (port exits 0)."""

from __future__ import annotations

from typing import Any

import pytest
from packaging.version import Version

from tests.lib.generated import sample
from tests.lib.upstream_toy import supported_of

DIST = "radpatch-toy"
GOOD = "def f(x):\n    return x\n"
BAD = "def f(x):\n    return -x\n"
BUMP = ('">=1.0,<1.1"', '"==1.0"', '"~=1.0.0"', '"<1.1"')
BACK = ('">=1.0"', '">=1.0,<1.2"', '"~=1.0"', '">1.0rc9"')


def _entry(supported: str) -> str:
    return f"""\
summary: s
description: d
distribution: {DIST}
supported: {supported}
modules:
  core: rptoy.core
rewrites:
  - id: r
    replace: {{scope: f, find: "return x", with: "return x + 1"}}
"""


CASES = sample(
    [
        (b, form, pre, post)
        for b in (True, False)
        for form in range(4)
        for pre in ("rc1", "b2", ".dev1")
        for post in (0, 1)
    ]
)


@pytest.mark.parametrize(("bump", "form", "pre", "post"), CASES)
def test_port_claims_no_unproven_prerelease(
    loopback: Any, write_registry: Any, radpatch: Any, bump: bool, form: int, pre: str, post: int
) -> None:
    crossed, to = ("1.1", "1.1") if bump else ("1.0", "0.9")
    code = {"0.9": GOOD, "1.0": GOOD, "1.1": GOOD, f"{crossed}{pre}": BAD}
    if post:
        code[f"{to}.post1"] = BAD
    loopback(DIST, {v: {"rptoy/__init__.py": "", "rptoy/core.py": c} for v, c in code.items()})
    reg = write_registry("p", _entry((BUMP if bump else BACK)[form]))
    old = supported_of((reg / "p.yaml").read_text())
    r = radpatch("--registry", str(reg), "port", "p", "--to", to)
    assert r.code == 0, (r.out, r.err)
    new = supported_of((reg / "p.yaml").read_text())
    assert new.contains(to), new
    for v in code:
        if code[v] == BAD:
            assert not new.contains(Version(v), prereleases=True) or old.contains(Version(v), prereleases=True), (
                v,
                new,
            )
