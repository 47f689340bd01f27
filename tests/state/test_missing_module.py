"""An entry naming a module the install does not have (a fork, an odd build: att40 #7): status said
"not applied: no such module (yet): the entry that creates it comes first" and its --check hint was
`radpatch apply`, while apply said to apply "the entry that creates the module first" though no
entry does, and diff spoke of a definition not found. Now status, --check, apply and diff all say
not applied with a detail that names the file as missing from the install and points at the entry's
`modules:` (another entry of the same run may still create it), and apply and diff point there too.

Generated: the missing module's depth x the rewrite's kind."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

DEPTHS = {"top": "rpmm.gone", "deep": "rpmm.sub.gone"}
REWRITES = {
    "replace": "replace: {scope: f, find: return 1, with: return 2}",
    "set_constant": "set_constant: {name: LIMIT, value: '5'}",
}
CASES = sample(list(itertools.product(DEPTHS, REWRITES)))


@pytest.mark.parametrize(("depth", "kind"), CASES)
def test_an_entry_naming_a_module_the_install_lacks_says_so_everywhere(
    site: Site, write_registry: Any, radpatch: Any, depth: str, kind: str
) -> None:
    site.install("rpmm", "1.0", {"rpmm/__init__.py": "", "rpmm/core.py": "LIMIT = 3\n"})
    module = DEPTHS[depth]
    reg = write_registry(
        "mm", entry_head("mm", "rpmm", {"m": module}) + f"  - id: r\n    file: m\n    {REWRITES[kind]}\n"
    )
    want = module.replace(".", "/") + ".py: no such module in this install"

    status = radpatch("--registry", str(reg), "status", "--json", "mm")
    (state,) = json.loads(status.out) if status.out.startswith("[") else [json.loads(status.out)]
    check = radpatch("--registry", str(reg), "status", "--check", "mm")
    applied = radpatch("--registry", str(reg), "apply", "mm")
    diff = radpatch("--registry", str(reg), "diff", "mm")

    assert state["state"] == "not-applied" and want in json.dumps(state) and "modules:" in json.dumps(state), state
    assert check.code != 0, check
    for r in (applied, diff):
        assert r.code == 1 and "modules:" in r.err and "Traceback" not in r.err, r
    assert not (site.root / module.replace(".", "/")).with_suffix(".py").exists()
