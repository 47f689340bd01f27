"""An applied entry renamed in the registry (toy -> toy2) while an applied entry stacked on it is
rewritten to `requires:` the new name, the old name, or nothing, before `apply toy2` takes the record
over (docs/state.md "An entry no registry given has"). Generated family over: the renamed entry's
rewrites (the same, or revised too), the dependant's `requires:`, and where the dependant is (another
module, or stacked on the renamed entry's own file).

The oracle for "the dependant's requirement is met" is what a fresh `apply` of the current registry
writes (the series toy2 then on_top, from the wheel's bytes, in the same site before the scenario):
when the installed files are those bytes, the dependant is what runs as tested, and `status`,
`status --check`, the SBOM and the engine-start check (which reads only the record) must all read
it applied; a revised rename writes other bytes, and the dependant reads applied, as it was
applied (its record requires toy, which is applied), with the note that its entry now requires toy2,
which is not applied (a revision since, as status says of any revision until `apply`). And a revert
of the dependant works from the record whatever its entry's `requires:` names (it stopped with
"unknown patch" for the old name)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.sbom import bom_of, props
from tests.lib.site import Site
from tests.lib.toy import TOY_FILES, TOY_PATCH

EXTRA = "from toypkg.core import plan\n\n\ndef use():\n    return plan([1])\n"
FILES = {**TOY_FILES, "toypkg/extra.py": EXTRA}
ON_TOP = {  # the dependant: in another module, or on the code toy writes in toy's own file
    "other module": "modules:\n  extra: toypkg.extra\nrewrites:\n"
    '  - replace: {scope: use, find: "plan([1])", with: "plan([1], cfg=None)"}\n',
    "same file": "modules:\n  core: toypkg.core\nrewrites:\n"
    '  - replace: {scope: groups, find: "plan(spec, None)", with: "plan(spec, {})"}\n',
}
HEAD = 'summary: On top\ndescription: Needs toy.\ndistribution: toypkg\nsupported: ">=1.0,<2"\n'
REQUIRES = {"new": "requires: [toy2]\n", "old": "requires: [toy]\n", "none": ""}
CASES = sample(itertools.product(["same", "revised"], REQUIRES, ON_TOP))


def _registry(root: Path, lower: str, revised: bool, requires: str, where: str) -> Path:
    root.mkdir()
    toy = TOY_PATCH.replace("with: x * 3", "with: x * 4") if revised else TOY_PATCH
    (root / f"{lower}.yaml").write_text("\n".join(line[4:] for line in toy.splitlines()) + "\n")
    (root / "on_top.yaml").write_text(HEAD + requires + ON_TOP[where])
    return root


def _files(site: Site) -> dict[str, bytes]:
    return {rel: (site.root / rel).read_bytes() for rel in FILES}


@pytest.mark.parametrize(("rewrites", "requires", "where"), CASES)
def test_a_requirement_renamed_before_the_takeover_reads_alike_everywhere(
    site: Site, tmp_path: Path, radpatch: Callable[..., Any], rewrites: str, requires: str, where: str
) -> None:
    from radpatch import plugin

    site.install("toypkg", "1.0", FILES)
    pristine = _files(site)
    fresh = _registry(tmp_path / "fresh", "toy2", rewrites == "revised", REQUIRES["new"], where)
    assert radpatch("--registry", str(fresh), "apply", "on_top").code == 0
    as_tested = _files(site)  # what a fresh apply of the renamed series writes
    assert radpatch("--registry", str(fresh), "revert", "on_top", "toy2").code == 0
    assert _files(site) == pristine

    before = _registry(tmp_path / "before", "toy", False, REQUIRES["old"], where)
    assert radpatch("--registry", str(before), "apply", "toy").code == 0
    toy_only = _files(site)
    assert radpatch("--registry", str(before), "apply", "on_top").code == 0
    reg = ("--registry", str(_registry(tmp_path / "renamed", "toy2", rewrites == "revised", REQUIRES[requires], where)))

    met = requires != "new" or _files(site) == as_tested  # the requirement as the registry names it now
    st = {p["patch"]: p for p in json.loads(radpatch(*reg, "status", "--json").out)}
    # applied by what it was applied with (its record requires toy, which is applied), as at engine start
    assert st["on_top"]["state"] == "applied", st["on_top"]
    if requires == "new":  # met under the old name, or a requirement the revision gained, not applied
        said = "its requirement toy2 is applied under its old name toy" in st["on_top"]["reason"]
        gained = "its entry now requires toy2, which is not applied" in st["on_top"]["reason"]
        assert said is met and gained is not met, st
    (component,) = bom_of(radpatch(*reg, "status", "--format", "cyclonedx").out)["components"]
    sbom = dict(s.split(": ", 1) for s in props(component, "radpatch:state"))
    assert sbom["on_top"].startswith("applied"), sbom
    for names in (("on_top",), ()):
        assert radpatch(*reg, "status", "--check", *names).code == 0, (names, st)
    started = {c.name: c for c in plugin.check(site.root, ("on_top", "toy"), package="toypkg")}
    # the engine-start check reads the record alone: the dependant was applied on toy, which is applied
    assert started["on_top"].satisfied and started["toy"].satisfied, started

    assert radpatch(*reg, "revert", "toy").code == 1  # on_top is applied and requires it
    out = radpatch(*reg, "revert", "on_top")
    assert out.code == 0, out
    assert _files(site) == toy_only
    assert radpatch(*reg, "status", "--check", "toy").code == 0 and plugin.check(site.root, ("toy",))[0].satisfied
    assert radpatch(*reg, "revert", "toy").code == 0
    assert _files(site) == pristine
