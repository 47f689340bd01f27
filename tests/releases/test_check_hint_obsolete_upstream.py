"""`status --check` on a release verify found to contain the change already (att23f F4): applying
cannot turn the check green (the deleted statement is gone upstream), so the hint names declaring
the release in the entry's `obsolete:`, not `radpatch apply`.
"""

from __future__ import annotations

from typing import Any

from tests.lib.site import Site
from tests.lib.toy_releases import DROPPED, KEPT, UNCAP

ENTRY = UNCAP


def test_check_on_a_verified_obsolete_release_names_obsolete_not_apply(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback("radpatch-toy", {"1.0": {"rptoy/core.py": KEPT}, "1.1": {"rptoy/core.py": DROPPED}})
    reg = write_registry("uncap", ENTRY)
    site.install("radpatch-toy", "1.1", {"rptoy/core.py": DROPPED})
    before = radpatch("--registry", str(reg), "status", "--check", "uncap")
    assert before.code != 0 and "radpatch apply uncap" in before.err  # verify has not read 1.1 yet
    v = radpatch("--registry", str(reg), "verify", "uncap")
    assert "radpatch-toy 1.1 already contains the change" in v.out
    after = radpatch("--registry", str(reg), "status", "--check", "uncap")
    assert after.code != 0
    assert "declare 1.1 in the entry's `obsolete:`" in after.err and "radpatch apply" not in after.err


def test_apply_on_a_verified_obsolete_release_names_obsolete_not_the_version_range(
    loopback: Any, write_registry: Any, radpatch: Any, site: Site
) -> None:
    loopback("radpatch-toy", {"1.0": {"rptoy/core.py": KEPT}, "1.1": {"rptoy/core.py": DROPPED}})
    reg = write_registry("uncap", ENTRY)
    site.install("radpatch-toy", "1.1", {"rptoy/core.py": DROPPED})
    radpatch("--registry", str(reg), "verify", "uncap")
    r = radpatch("--registry", str(reg), "apply", "uncap")
    assert r.code != 0 and "Traceback" not in r.err
    assert "declare 1.1 in the entry's `obsolete:`" in r.err and "check the version range" not in r.err
