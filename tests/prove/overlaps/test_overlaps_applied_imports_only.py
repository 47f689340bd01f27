"""An entry made only of `add_import`s against an entry applied in an earlier build stage whose
record predates `touches` (an older radpatch wrote it): decided from the files the record's link
keeps (the file right before and right after the applied entry), not refused "cannot check" outright
(issue 23, gy23). Refused as an overlap when the applied entry bound the name; still "cannot check"
when the applied entry inserted code where the import goes (the record does not say on which side of
its anchor); applied otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lib.overlaps import older_record, stage
from tests.lib.site import Site

SRC = "import os\n\n\ndef plan(spec):\n    total = 0\n    return total\n"
IN_PLAN = '  - id: pa\n    insert_after: {scope: plan, find: "total = 0", code: "total = 1"}\n'
BINDS_ENC = "  - id: pa\n    set_constant: {name: enc, value: None}\n"
AT_GAP = '  - id: pa\n    insert_after: {scope: <module>, find: "import os", code: "Z = 0"}\n'


def _stages(site: Site, radpatch: Any, write_registry: Any, first: str, imports: str) -> tuple[Path, Any]:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    one = stage(write_registry, "pa", first, "r1")
    two = stage(write_registry, "pb", f'  - id: pb\n    add_import: {{import: "{imports}"}}\n', "r2")
    assert radpatch("--registry", str(one), "apply", "pa").code == 0
    older_record(site)
    return two, (site.root / "toypkg/core.py").read_bytes()


def test_an_import_beside_an_entry_that_changed_other_code_applies(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    two, _ = _stages(site, radpatch, write_registry, IN_PLAN, "import json")
    r = radpatch("--registry", str(two), "apply", "pb")
    assert r.code == 0, r.out + r.err
    text = (site.root / "toypkg/core.py").read_text()
    assert "import json" in text and "total = 1" in text


def test_an_import_of_a_name_the_applied_entry_bound_is_an_overlap_naming_it(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    two, after_first = _stages(site, radpatch, write_registry, BINDS_ENC, "from json import dumps as enc")
    r = radpatch("--registry", str(two), "apply", "pb")
    assert r.code == 1, r.out + r.err
    assert "pb and pa overlap" in r.err and "cannot check" not in r.err, r.err
    assert "requires: [pa]` to pb" in r.err, r.err
    assert (site.root / "toypkg/core.py").read_bytes() == after_first


def test_an_import_where_the_applied_entry_inserted_code_cannot_be_checked(
    site: Site, radpatch: Any, write_registry: Any
) -> None:
    two, after_first = _stages(site, radpatch, write_registry, AT_GAP, "import sys")
    r = radpatch("--registry", str(two), "apply", "pb")
    assert r.code == 1, r.out + r.err
    assert "adds an import where the applied entry pa inserted code" in r.err, r.err
    assert "pass pa's registry with --registry" in r.err, r.err
    assert (site.root / "toypkg/core.py").read_bytes() == after_first
