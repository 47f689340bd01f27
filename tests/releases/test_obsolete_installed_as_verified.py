"""`status` says "obsolete upstream" (and --check's and apply's hints name `obsolete:`) of an
installed release only when its files are, as code, the ones verify read on that release (rel38b,
issue 23): a fork, a local build or a patched wheel of the same version number may lack the change,
and following the hint would leave the image unpatched.

Generated variants of the installed file on a release verify found to contain the change: the
published file and a relaid copy of it (comments, blank lines: the same code) keep the claim; a build
without the change, one with it and more code, and one with the line changed lose it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.toy_releases import DROPPED, KEPT, UNCAP
from tests.lib.upstream_toy import GOOD, PATCHED, PKG, entry

ENTRY = entry("A toy patch upstream took in 3.0.", ">=1.0")
RELEASES = {"1.0": {f"{PKG}/core.py": GOOD}, "3.0": {f"{PKG}/core.py": PATCHED}}

INSTALLED = {  # name -> (installed rptoy/core.py on 3.0, is it 3.0's code as published)
    "published": (PATCHED, True),
    "relaid": ("# built here\n\n" + PATCHED.replace("    return n", "\n    return n  # same code"), True),
    "without-the-change": (GOOD, False),
    "change-and-more": (PATCHED + "\n\ndef extra():\n    return 1\n", False),
    "line-changed": (PATCHED.replace("min(", "max("), False),
}


@pytest.mark.parametrize("name", sample(INSTALLED))
def test_obsolete_upstream_only_of_the_release_verify_read(
    name: str, loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    text, published = INSTALLED[name]
    loopback("radpatch-toy", RELEASES)
    reg = write_registry("cap", ENTRY)
    site.install("radpatch-toy", "3.0", {f"{PKG}/core.py": text})
    v = radpatch("--registry", str(reg), "verify", "cap")
    assert "radpatch-toy 3.0 already contains the change" in v.out, v.out + v.err
    table = radpatch("--registry", str(reg), "status", "cap")
    (got,) = json.loads(radpatch("--registry", str(reg), "status", "--json", "cap").out)
    check = radpatch("--registry", str(reg), "status", "--check", "cap")
    assert "Traceback" not in table.err + check.err
    if published:
        assert "obsolete upstream in 3.0" in table.out, table.out
        assert got["obsolete_upstream"] is not None
    else:
        assert "obsolete upstream in" not in table.out, table.out
        assert f"{PKG}/core.py differs from the published radpatch-toy 3.0" in table.out, table.out
        assert got["obsolete_upstream"] is None
        assert "declare 3.0 in the entry's `obsolete:`" not in check.err, check.err


FORKS = {  # a local build of 1.1 without upstream's change: the deletion still to make
    "as-1.0": KEPT,
    "commented": "# local build of 1.1\n" + KEPT,
    "more-code": KEPT + "\n\nLIMIT = 5\n",
}


@pytest.mark.parametrize("name", sample(FORKS))
def test_check_and_apply_on_a_local_build_name_apply_not_obsolete(
    name: str, loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback("radpatch-toy", {"1.0": {"rptoy/core.py": KEPT}, "1.1": {"rptoy/core.py": DROPPED}})
    reg = write_registry("uncap", UNCAP)
    site.install("radpatch-toy", "1.1", {"rptoy/core.py": FORKS[name]})
    v = radpatch("--registry", str(reg), "verify", "uncap")
    assert "radpatch-toy 1.1 already contains the change" in v.out, v.out + v.err
    check = radpatch("--registry", str(reg), "status", "--check", "uncap")
    assert check.code != 0 and "declare 1.1" not in check.err, check.err
    assert "radpatch apply uncap" in check.err, check.err
    applied = radpatch("--registry", str(reg), "apply", "uncap")  # the hint's way out works
    assert applied.code == 0, applied.out + applied.err
    assert radpatch("--registry", str(reg), "status", "--check", "uncap").code == 0


FIRST = f"""\
summary: Log the toy's size first
description: A toy entry `cap` is applied after, on the same module.
distribution: radpatch-toy
supported: ">=1.0"
modules:
  planner: {PKG}.core
rewrites:
  - id: first
    insert_before: {{scope: size, find: return n, code: "n = n + 0"}}
"""


def test_obsolete_upstream_kept_under_a_required_entry_radpatch_applied(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    """The published 3.0 with the entry `cap` requires applied by radpatch on the same module: that
    code is radpatch's own (its record), taken off before the file is compared with verify's."""
    loopback("radpatch-toy", RELEASES)
    reg = write_registry("first", FIRST)
    (reg / "cap.yaml").write_text(ENTRY.replace("summary:", "requires: [first]\nsummary:", 1))
    site.install("radpatch-toy", "3.0", {f"{PKG}/core.py": PATCHED})
    assert radpatch("--registry", str(reg), "apply", "first").code == 0
    v = radpatch("--registry", str(reg), "verify", "cap")
    assert "radpatch-toy 3.0 already contains the change" in v.out, v.out + v.err
    table = radpatch("--registry", str(reg), "status", "cap")
    assert "obsolete upstream in 3.0" in table.out and "differs" not in table.out, table.out
