"""`radpatch diff` of an entry that does not apply plans through apply's own plan (prove.run) and
refuses in its words: one message for one refusal, the same from `diff` as from `apply` (issue 22:
diff repeated, in its own words, what the plan says of a module the install lacks).

Generated: the missing module's depth x the rewrite's kind, and a rewrite whose `find` is not there."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

MODULES = {"present": "rpdf.core", "missing-top": "rpdf.gone", "missing-deep": "rpdf.sub.gone"}
REWRITES = {
    "replace": "replace: {scope: f, find: return 1, with: return 2}",
    "set_constant": "set_constant: {name: LIMIT, value: '5'}",
    "replace-absent": "replace: {scope: f, find: return 7, with: return 2}",
}
CASES = sample([c for c in itertools.product(MODULES, REWRITES) if c[0] != "present" or c[1] == "replace-absent"])


@pytest.mark.parametrize(("module", "kind"), CASES)
def test_diff_refuses_as_apply_does(site: Site, write_registry: Any, radpatch: Any, module: str, kind: str) -> None:
    site.install("rpdf", "1.0", {"rpdf/__init__.py": "", "rpdf/core.py": "LIMIT = 3\n\n\ndef f():\n    return 1\n"})
    reg = write_registry(
        "df", entry_head("df", "rpdf", {"m": MODULES[module]}) + f"  - id: r\n    file: m\n    {REWRITES[kind]}\n"
    )
    applied = radpatch("--registry", str(reg), "apply", "df")
    diff = radpatch("--registry", str(reg), "diff", "df")
    assert applied.code == 1 and "Traceback" not in applied.err, applied
    assert (diff.code, diff.err) == (applied.code, applied.err), (diff, applied)
    assert not diff.out, diff


def test_diff_of_an_entry_that_applies_is_what_apply_writes(site: Site, write_registry: Any, radpatch: Any) -> None:
    site.install("rpdf", "1.0", {"rpdf/__init__.py": "", "rpdf/core.py": "LIMIT = 3\n\n\ndef f():\n    return 1\n"})
    reg = write_registry(
        "df", entry_head("df", "rpdf", {"m": "rpdf.core"}) + f"  - id: r\n    file: m\n    {REWRITES['replace']}\n"
    )
    diff = radpatch("--registry", str(reg), "diff", "df")
    assert diff.code == 0 and diff.out.startswith("--- a/rpdf/core.py"), diff
    assert "-    return 1\n+    return 2\n" in diff.out, diff.out
