"""A release whose file holds a `replace`'s new code that may not take effect there (only under a
condition, or with the replaced name stored again: radpatch.releases.replaced) does not carry the
change (issue 23, hf23): it is not obsolete, and every reader says one phrase of it
(prove.refusal.NOT_IN_EFFECT): verify's cell, `verify --all`, `list`'s upstream line, `status`
(not applied, not "applied although radpatch did not patch it") and apply's refusal. Generated
variants on real wheels of a toy distribution served locally; the reference is the release's own
code, run: a variant where configure() leaves timeout at 60 is obsolete, one where it does not is
said to be not in effect.
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
from packaging.version import Version

from radpatch.prove.refusal import NOT_IN_EFFECT
from radpatch.releases.summaries import not_in_effect_words
from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.timeout_toy import entry, takes_effect

BASE = """\
FLAG = False


def _reset(obj):
    obj.timeout = 30


class Engine:
    def configure(self):
        self.a = 1
        self.timeout = 30
        self.b = 2
"""
NEW = "        self.timeout = 60\n"
OLD = "        self.timeout = 30\n"
BLOCKS = ("if FLAG:", "while FLAG:", "for _ in ():")  # the new code only under a block that does not run
AFTER = ("self._defaults()", "_reset(self)")  # the replaced name stored again, after the new code
HELPER = "\n    def _defaults(self):\n        self.timeout = 30\n"


def _variants() -> list[tuple[str, str]]:
    """The new code under a block that does not run, or followed by a call storing the old value."""
    out = [(f"block {b}", BASE.replace(OLD, f"        {b}\n    {NEW}")) for b in BLOCKS]
    for call in AFTER:
        source = BASE.replace(OLD, NEW).replace("        self.b = 2\n", f"        self.b = 2\n        {call}\n")
        out.append((f"again {call}", source + (HELPER if "_defaults" in call else "")))
    return out


VARIANTS = sample(_variants())
TOOK_IT = BASE.replace(OLD, NEW).replace("        self.b = 2\n", "        self.b = 2\n        self.extra = 1\n")
ENTRY = entry(">=1.0")


@pytest.mark.parametrize(("name", "source"), VARIANTS, ids=[n for n, _ in VARIANTS])
def test_new_code_that_may_not_take_effect_is_not_carried_and_every_reader_says_so(
    name: str, source: str, loopback: Any, write_registry: Any, radpatch: Any, site: Site, no_shipped: None
) -> None:
    releases = {"1.0": BASE, "1.1": source, "1.2": TOOK_IT}
    assert [takes_effect(s) for s in releases.values()] == [False, False, True]  # the reference
    loopback("radpatch-toy", {v: {"rptoy/core.py": src} for v, src in releases.items()})
    reg = str(write_registry("longer", ENTRY))

    report = json.loads(radpatch("--registry", reg, "verify", "longer", "--json").out)
    cells = {r["version"]: r for r in report["results"]}
    assert report["obsolete"] == ["1.2"]  # where the new code takes effect, and only there
    assert NOT_IN_EFFECT in cells["1.1"]["error"]
    assert "took part" not in cells["1.1"]["error"]
    assert all(NOT_IN_EFFECT not in (cells[v]["error"] or "") for v in ("1.0", "1.2"))

    matrix = json.loads(radpatch("--registry", reg, "verify", "--all", "--json").out)
    (entry,) = matrix["entries"]
    assert NOT_IN_EFFECT in next(r["error"] for r in entry["results"] if r["version"] == "1.1")
    table = radpatch("--registry", reg, "verify", "--all").out
    assert NOT_IN_EFFECT in table

    listed = radpatch("--registry", reg, "list").out
    (line,) = [x for x in listed.splitlines() if x.startswith("upstream: longer: ")]
    assert line.endswith(not_in_effect_words([Version("1.1")]))

    site.install("radpatch-toy", "1.1", {"rptoy/core.py": source})
    (state,) = json.loads(radpatch("--registry", reg, "status", "--json", "longer").out)
    assert state["state"] == "not-applied", state
    assert NOT_IN_EFFECT in radpatch("--registry", reg, "status", "longer").out
    core = site.root / "rptoy" / "core.py"
    core.write_text(source + "# a comment someone added\n")  # the hashes cannot decide: the rewrites judge it
    (edited,) = json.loads(radpatch("--registry", reg, "status", "--json", "longer").out)
    assert edited["state"] == "not-applied" and NOT_IN_EFFECT in edited["reason"], edited
    before = core.read_bytes()
    applied = radpatch("--registry", reg, "apply", "longer")
    assert applied.code not in (0, 70) and NOT_IN_EFFECT in applied.err, applied
    assert (site.root / "rptoy" / "core.py").read_bytes() == before

    # outside the declared range the matrix's `out` cell and `port` say it too (port leaves the entry alone)
    narrow = str(write_registry("longer", ENTRY.replace('">=1.0"', '"==1.0"'), dirname="narrow"))
    assert (
        f"longer 1.1: out of range: pristine fails: {NOT_IN_EFFECT}"
        in radpatch("--registry", narrow, "verify", "--all", "--versions", ">=1.0").out
    )
    ported = radpatch("--registry", narrow, "port", "longer", "--to", "1.1", "--dry-run")
    assert NOT_IN_EFFECT in ported.out and "left alone" in ported.out, ported

    for dist_info in site.root.glob("radpatch?toy-*.dist-info"):
        shutil.rmtree(dist_info)
    site.install("radpatch-toy", "1.2", {"rptoy/core.py": TOOK_IT})  # the control: carried, no such words
    (control,) = json.loads(radpatch("--registry", reg, "status", "--json", "longer").out)
    assert control["state"] == "not-applied" and control["installed_version"] == "1.2"
    assert NOT_IN_EFFECT not in radpatch("--registry", reg, "status", "longer").out
