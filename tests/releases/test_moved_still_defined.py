"""A declared module that, in a newer release, still holds a definition of the scope but imports the
name from elsewhere (`from .planning import size`) no longer defines the code that runs (issue 23,
rel39 b6): verify passed it (the rewrite matched the definition left behind, which never runs, or
read it as obsolete). Now verify fails the release's `match` check with "moved: size now lives in X
(imported by M at line N)", the matrix says moved, and `port` adds X for the release.

Generated: the import after the definition or in a `try` whose handler defines the fallback, written
absolutely, relatively, or as `import ... as`; the definition left behind the release's unpatched
code or already patched; where it went a sibling module or a subpackage. The reference: the
release imported in a fresh interpreter, `size.__module__` says where the code that runs lives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, GOOD, PATCHED, cap_entry, size_from

ENTRY = cap_entry("==1.0")
HOMES = {"sibling": "rptoy.planning", "subpackage": "rptoy.v2.planning"}
SHAPES = {
    "import after": "{DEF}\n\nfrom {HOME} import size\n",
    "relative import after": "{DEF}\n\nfrom {REL} import size\n",
    "import as, after": "{DEF}\n\nfrom {HOME} import size as size\n",
    "try, fallback in the handler": "try:\n    from {HOME} import size\nexcept ImportError:\n{INDENTED}",
}
LEFT = {"unpatched": GOOD, "patched": PATCHED}
CASES = sample([(s, h, left) for s in SHAPES for h in HOMES for left in LEFT])


def _core(shape: str, home: str, left: str) -> str:
    module = HOMES[home]
    rel = "." + module.removeprefix("rptoy.")
    indented = "".join(f"    {x}\n" for x in LEFT[left].splitlines())
    text = SHAPES[shape].replace("{HOME}", module).replace("{REL}", rel).replace("{INDENTED}", indented)
    return text.replace("{DEF}", LEFT[left].rstrip("\n"))


def _files(core: str, home: str) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": core}
    if home == "subpackage":
        out["rptoy/v2/__init__.py"] = ""
    out[HOMES[home].replace(".", "/") + ".py"] = GOOD
    return out


@pytest.mark.parametrize(("shape", "home", "left"), CASES, ids=["-".join(c) for c in CASES])
def test_a_scope_imported_from_elsewhere_is_moved_and_port_adds_its_home(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, shape: str, home: str, left: str
) -> None:
    second = _files(_core(shape, home, left), home)
    went = size_from(tmp_path / "oracle", second)[0]
    assert went == HOMES[home]  # the reference: the code that runs is not rptoy.core's
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": second})
    reg = write_registry("cap", ENTRY)

    report = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    (result,) = report["results"]
    assert not result["ok"] and result["checks"]["match"] is False, result
    assert f"moved: size now lives in {went} (imported by rptoy.core at line" in result["error"], result
    assert report["obsolete"] == []  # a patched copy left behind is not upstream's change taking effect

    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    after = (reg / "cap.yaml").read_text()
    assert r.code == 0, (r.out, r.err)
    assert f"module: {went}" in after, (r.out, after)
    assert radpatch("--registry", str(reg), "verify", "cap").code == 0
