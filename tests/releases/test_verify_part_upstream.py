"""An entry of two rewrites where upstream took one of them (issue 23, att23e G5): verify and port
ask apply's own per-rewrite "already present" judgement (prove.form.present, which apply's
refuse_if_present asks) of the release's file, so a release that carries an insertion of the entry
is not `pass`, port does not widen `supported:` over it, and verify's verdict agrees with `apply`
on an install of that release. Generated over what upstream took: the deletion, the insertion,
both, or neither; each release served as a wheel and installed as the release apply runs on."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from tests.lib.site import Site
from tests.lib.upstream_toy import engine_entry

PKG = "rptoy"
DIST = "radpatch-toy"
REL = f"{PKG}/core.py"


def release(took_delete: bool, took_insert: bool, own_layout: bool = False) -> str:
    """The toy's core.py as a release that carries none, one or both of the entry's changes;
    `own_layout`: upstream wrote the insertion its own way (a comment, other spacing)."""
    inserted = "self.stopped=(True)  # upstream: mark it" if own_layout else "self.stopped = True"
    configure = ["self.a = 1", *([] if took_delete else ["self.timeout = 30"]), "self.b = 2"]
    stop = ["self.a = 0", *([inserted] if took_insert else []), "return 0"]
    body = "\n".join(f"        {s}" for s in configure)
    tail = "\n".join(f"        {s}" for s in stop)
    return f"class Engine:\n    def configure(self):\n{body}\n\n    def stop(self):\n{tail}\n"


ENTRY = engine_entry("Two rewrites; upstream may take either.", "self.stopped = True")

# (upstream took the deletion, took the insertion, wrote it in its own layout)
CASES = [(d, i, lay) for d, i, lay in itertools.product([False, True], repeat=3) if i or not lay]


@pytest.mark.parametrize(("took_delete", "took_insert", "own_layout"), CASES, ids=str)
def test_verify_and_port_agree_with_apply_on_a_release_carrying_part_of_the_entry(
    took_delete: bool,
    took_insert: bool,
    own_layout: bool,
    loopback: Any,
    write_registry: Any,
    radpatch: Any,
    site: Site,
    no_shipped: None,
) -> None:
    new = release(took_delete, took_insert, own_layout)
    loopback(DIST, {"1.0": {REL: release(False, False)}, "2.0": {REL: new}})
    reg = write_registry("two", ENTRY)
    before = (reg / "two.yaml").read_bytes()

    v = radpatch("--registry", str(reg), "verify", "two", "--versions", "==2.0", "--json")
    result = next(r for r in json.loads(v.out)["results"] if r["version"] == "2.0")
    port = radpatch("--registry", str(reg), "port", "two", "--to", "2.0")
    widened = (reg / "two.yaml").read_bytes() != before

    site.install(DIST, "2.0", {REL: new})
    (reg / "two.yaml").write_bytes(before.replace(b'"==1.0"', b'">=1.0,<=2.0"'))  # apply reads the release as claimed
    applied = radpatch("--registry", str(reg), "apply", "two")
    installed = (site.root / REL).read_text()
    takes = applied.code == 0 and installed != new  # apply made the change on this release

    assert result["ok"] is takes, (v.out, applied.out + applied.err)
    assert widened is takes, port.out + port.err
    # the half-upstreamed release, in radpatch's layout or upstream's own: apply refuses it by rewrite 'i'
    if took_insert and not took_delete:
        assert "already contains what rewrite 'i' adds" in applied.err, applied.out + applied.err
        assert "rewrite 'i'" in result["error"] and result["checks"]["pristine"] is False, result
        assert "2.0" not in json.loads(v.out)["obsolete"], v.out
        assert "rewrite 'i'" in port.out, port.out
