"""A moved scope is first looked for where the declared module now imports it from (port38, issue 23):
`moved` took a nearby module defining the scope (a compat copy, a test double) over the module the old
one imports it back from, and never took an old module (defined before: a "namesake") even when the
old module imports the scope from it. Now the declared module's own `from X import <scope>` in the new
release is read first, X even if it is an old module; when another candidate disagrees, the cell names
both (several modules: edit by hand); a module of a `tests` package is never taken on its own.

Generated: the home an old module (with or without the scope in the entry's release) or a new one;
imported absolutely, relatively, or through the package's `__init__` re-exporting it; beside it
nothing, a compat copy near the declared module, or a test double; and the case with no importable
home (a C extension) where only a test double defines the scope."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, GOOD, cap_entry

OTHER = "def unrelated():\n    return 1\n"
ENTRY = cap_entry("==1.0", "rptoy.engine.core")
INIT = {"rptoy/__init__.py": "", "rptoy/engine/__init__.py": "", "rptoy/util/__init__.py": ""}
IMPORTS = {
    "absolute": ("from rptoy.util.helpers import size\n", ""),
    "relative": ("from ..util.helpers import size\n", ""),
    "package": ("from rptoy.util import size\n", "from .helpers import size\n"),
}
BESIDE = {
    "none": {},
    "compat": {"rptoy/engine/compat.py": GOOD},
    "double": {"rptoy/engine/tests/__init__.py": "", "rptoy/engine/tests/fake_core.py": GOOD},
}


@pytest.mark.parametrize(
    ("home", "how", "beside"),
    sample([(h, i, b) for h in ("old", "old-defined", "new") for i in IMPORTS for b in BESIDE]),
)
def test_the_module_the_old_one_imports_from_is_read_first(
    loopback: Any, write_registry: Any, radpatch: Any, home: str, how: str, beside: str
) -> None:
    first = {**INIT, "rptoy/engine/core.py": GOOD}
    if home != "new":
        first["rptoy/util/helpers.py"] = OTHER + (GOOD if home == "old-defined" else "")
    line, init = IMPORTS[how]
    second = {**INIT, "rptoy/engine/core.py": line, "rptoy/util/helpers.py": OTHER + GOOD, **BESIDE[beside]}
    second["rptoy/util/__init__.py"] = init
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", ENTRY)
    before = (reg / "cap.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    after = (reg / "cap.yaml").read_text()
    if beside == "none":
        assert r.code == 0, (r.out, r.err)
        assert "module: rptoy.util.helpers" in after, (r.out, after)
        assert radpatch("--registry", str(reg), "verify", "cap").code == 0
        return
    assert r.code == 1 and after == before, (r.out, r.err)
    assert "rptoy.util.helpers" in r.out and "several" in r.out, r.out


@pytest.mark.parametrize("native", ["from rptoy._native import size\n", "from ._native import size\n", ""])
def test_a_test_double_alone_is_not_where_the_code_went(
    loopback: Any, write_registry: Any, radpatch: Any, native: str
) -> None:
    first = {**INIT, "rptoy/engine/core.py": GOOD}
    second = {**INIT, "rptoy/engine/core.py": native, **BESIDE["double"]}
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", ENTRY)
    before = (reg / "cap.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 1 and (reg / "cap.yaml").read_text() == before, (r.out, r.err)
    assert "test double" in r.out and "moved: rptoy.engine.core ->" not in r.out, r.out


# a file `import` cannot reach, beside the real home: a name no import can spell, a stale module a
# package of the same name hides, a file under a directory no import can spell (attack23 #11)
UNREACHABLE = {
    "dashed": {"rptoy/engine/kv-planning.py": GOOD},
    "hidden": {"rptoy/engine/planning.py": GOOD, "rptoy/engine/planning/__init__.py": OTHER},
    "data-dir": {"rptoy/engine/kv.data/planning.py": GOOD},
}


@pytest.mark.parametrize(("unreachable", "home"), sample([(u, h) for u in UNREACHABLE for h in ("sizes", None)]))
def test_a_file_import_cannot_reach_is_never_where_the_code_went(
    loopback: Any, write_registry: Any, radpatch: Any, unreachable: str, home: str | None
) -> None:
    """Oracle: the importable module defining the scope (or none): port writes it alone, or leaves the
    entry alone naming no unreachable file."""
    first = {**INIT, "rptoy/engine/core.py": GOOD}
    second = {**INIT, "rptoy/engine/core.py": OTHER, **UNREACHABLE[unreachable]}
    if home:
        second[f"rptoy/engine/{home}.py"] = GOOD
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", ENTRY)
    before = (reg / "cap.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    after = (reg / "cap.yaml").read_text()
    for name in ("kv-planning", "rptoy.engine.planning", "kv.data"):
        assert name not in r.out and name not in after, (r.out, after)
    if home:
        assert r.code == 0 and "module: rptoy.engine.sizes" in after, (r.out, r.err)
    else:
        assert r.code == 1 and after == before, (r.out, r.err)
