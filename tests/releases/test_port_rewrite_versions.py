"""`port` and `verify` across a release where a rewrite with its own `versions:` would not run while
its sibling rewrites do (port38, issue 23): `supported: >=1.0,<1.1` with `fix-f` for `>=1.0,<1.1` and
`fix-g` for every version, ported to 1.1, was "pass" and claimed 1.1, where only g is patched. Now
such a rewrite is proven there with its `versions:` widened: port widens it with `supported:` when it
proves, else leaves the entry alone naming it; a rewrite written for the new release in the same scope
takes its place (nothing is lost, nothing to widen); verify counts the release as not proving.

Generated: bump (ported to the release after the range) or backport (to the one before); the
rewrite's range written four ways; f's code at the new release the same (it proves) or changed (it
does not); with or without a rewrite of f written for the new release."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample

DIST = "radpatch-toy"
SRC = "def f(x):\n    return x\n\n\ndef g(y):\n    return y\n"
CHANGED = SRC.replace("return x\n", "return x * 1\n")  # fix-f finds nothing there
FORMS = {  # the rewrite's range as written, bump/backport: over the entry's own releases 1.1-1.2
    "pair": ('">=1.1,<1.3"', '">=1.1,<1.3"'),
    "upper": ('"<1.3"', '">=1.1"'),
    "inclusive": ('"<=1.2"', '">1.0"'),
    "spaced": ('">= 1.1, < 1.3"', '"< 1.3, >= 1.1"'),
}


def _entry(form: str, bump: bool, written: bool) -> str:
    ranged = FORMS[form][0 if bump else 1]
    new = '"==1.3"' if bump else '"==1.0"'
    ahead = (
        f"""\
  - id: fix-f2
    versions: {new}
    replace: {{scope: f, find: "return x", with: "return x + 2"}}
"""
        if written
        else ""
    )
    return f"""\
summary: Two fixes
description: fix-f written for the entry's releases only.
distribution: {DIST}
supported: ">=1.1,<1.3"
modules:
  core: rptoy.core
rewrites:
  - id: fix-f
    versions: {ranged}
    replace: {{scope: f, find: "return x", with: "return x + 1"}}
{ahead}  - id: fix-g
    replace: {{scope: g, find: "return y", with: "return y + 1"}}
"""


CASES = sample([(f, b, c, w) for f in FORMS for b in (True, False) for c in (False, True) for w in (False, True)])


@pytest.mark.parametrize(("form", "bump", "changed", "written"), CASES)
def test_a_rewrite_the_new_release_would_drop_is_widened_or_named(
    loopback: Any, write_registry: Any, radpatch: Any, form: str, bump: bool, changed: bool, written: bool
) -> None:
    new = "1.3" if bump else "1.0"
    code = {v: SRC for v in ("1.0", "1.1", "1.2", "1.3")}
    if changed:
        code[new] = CHANGED.replace("return x * 1", "return x * 1\n    return x") if written else CHANGED
    loopback(DIST, {v: {"rptoy/__init__.py": "", "rptoy/core.py": c} for v, c in code.items()})
    reg = write_registry("two", _entry(form, bump, written))
    before = (reg / "two.yaml").read_text()
    asked = json.loads(radpatch("--registry", str(reg), "verify", "two", "--versions", f"=={new}", "--json").out)
    cell = asked["results"][0]
    r = radpatch("--registry", str(reg), "port", "two", "--to", new)
    after = (reg / "two.yaml").read_text()
    if written:  # fix-f2 takes fix-f's place there: supported widened only
        assert cell["checks"]["module"] is not False, cell
        if changed:  # fix-f2's find is there twice: port refuses, not over a lost rewrite
            return
        assert r.code == 0, r.out + r.err
        assert "fix-f.versions" not in r.out and FORMS[form][0 if bump else 1] in after, (r.out, after)
    elif changed:
        assert cell["checks"]["module"] is False and "'fix-f'" in cell["error"], cell
        assert r.code == 1 and "'fix-f'" in r.out and "left alone" in r.out, (r.out, r.err)
        assert after == before
        return
    else:
        assert cell["checks"]["module"] is False and "'fix-f'" in cell["error"], cell
        assert r.code == 0, r.out + r.err
        assert "rewrites.fix-f.versions:" in r.out and FORMS[form][0 if bump else 1] not in after, (r.out, after)
    done = json.loads(radpatch("--registry", str(reg), "verify", "two", "--json").out)
    claimed = [x for x in done["results"] if x["in_range"]]
    assert [x["version"] for x in claimed] == ["1.0", "1.1", "1.2", "1.3"][int(bump) : 3 + int(bump)], done
    assert all(x["ok"] for x in claimed), done
