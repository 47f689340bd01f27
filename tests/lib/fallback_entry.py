"""The entry the patched-fallback tests apply (rewrite `r` on rpfb.core) and their oracle: what the
installed rpfb.core's value() gives, imported by a subprocess of the target interpreter."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.lib.fresh_runs import fresh_run
from tests.lib.site import Site

ENTRY = """\
summary: a fallback patched
description: changes the fallback in rpfb.core
distribution: rpfb
supported: ">=1.0,<2"
modules:
  core: rpfb.core
rewrites:
  - id: r
    file: core
    {rewrite}
"""
REWRITE = "replace: {scope: f, find: return 1, with: return 2}"  # the fallback's `def f(): return 1`


def runs_value(site: Site) -> int | None:
    """What the installed rpfb.core's value() gives, imported by a subprocess of the target interpreter
    (None: the module does not import)."""
    code = "import json, sys; sys.path.insert(0, sys.argv[1]); import rpfb.core as c; print(json.dumps(c.value()))"
    out = fresh_run(sys.executable, code, (str(site.root),), ("-I", "-B"))
    return int(json.loads(out.stdout)) if out.returncode == 0 else None


def sources(site: Site) -> dict[str, bytes]:
    return {k: v for k, v in site.snapshot().items() if not k.endswith(".pyc")}


def applied_and_runs(site: Site, reg: Path, radpatch: Any, r: Any, before: dict[str, bytes]) -> bool:
    """Whether `apply fb` (its result `r`) applied; when it did, held to the oracle: the patched
    fallback runs, and `revert` gives the sources back."""
    if r.code != 0:
        return False
    assert runs_value(site) == 2, f"applied, but the patched fallback does not run: {r.out}{r.err}"
    assert radpatch("--registry", str(reg), "revert", "fb").code == 0
    assert sources(site) == before
    return True


def refused_or_runs(site: Site, reg: Path, radpatch: Any, text: str) -> tuple[int, str]:
    """Apply, and hold it to the oracle: applied => the patched fallback runs; refused => nothing
    written, and either the patched code would not run or the refusal says it cannot tell."""
    before = sources(site)
    r = radpatch("--registry", str(reg), "apply", "fb")
    if applied_and_runs(site, reg, radpatch, r, before):
        return 0, r.err
    assert r.code == 1 and "its code is in the fallback at line" in r.err, r
    assert len(r.err.splitlines()) == 2, r.err
    assert sources(site) == before
    if "never runs" in r.err:
        (site.root / "rpfb" / "core.py").write_text(text.replace("return 1", "return 2"))
        assert runs_value(site) != 2, f"refused as never running, but it runs: {r.err}"
    return 1, r.err
