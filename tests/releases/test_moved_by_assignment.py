"""A declared module that, in a newer release, binds the scope's name by an assignment from another module
of its package (`size = planning.size`, `size = rptoy.planning.size`, `import ... as p; size = p.size`) or
takes it from a `from X import *` says where the code went, as `from X import size` does (rel40, issue 23
#2): verify read such a module as "the scope is gone" (or, with a definition left before the assignment,
as "not in effect"), and the moved search took the module only if nothing else disqualified it (a copy
the entry's own release already had was a namesake). Now the module it reads the name from is read
first: with a definition left behind, `match` fails "moved: size now lives in X (bound by an assignment
in rptoy.core, line N)"; the matrix says moved; `port` adds X.

Generated: the binding's spelling x the definition left behind (none, unpatched, patched; a star import
only without one) x where it went (a sibling, a subpackage) x whether that module already held a copy in
the entry's release. The reference: the release imported in a fresh interpreter, `size.__module__`."""

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
    "module imported from its package": "from {PARENT} import planning\n\nsize = planning.size\n",
    "relative module import": "from {RELPARENT} import planning\n\nsize = planning.size\n",
    "import as": "import {HOME} as _planning\n\nsize = _planning.size\n",
    "dotted name": "import {HOME}\n\nsize = {HOME}.size\n",
    "annotated": "import {HOME} as _planning\n\nsize: object = _planning.size\n",
    "star import": "from {HOME} import *\n",
    "relative star import": "from {REL} import *\n",
}
LEFT = {"none": "", "unpatched": GOOD, "patched": PATCHED}
BEFORE = {"new module": False, "copy in the entry's release": True}
CASES = sample(
    [
        (s, h, left, b)
        for s in SHAPES
        for h in HOMES
        for left in LEFT
        for b in BEFORE
        if not (s.endswith("star import") and left != "none")  # a star after a def: which runs needs X read
    ]
)


def _core(shape: str, home: str, left: str) -> str:
    module = HOMES[home]
    parent = module.rpartition(".")[0]
    text = SHAPES[shape].replace("{HOME}", module).replace("{PARENT}", parent)
    text = text.replace("{RELPARENT}", "." + parent.removeprefix("rptoy").lstrip("."))
    text = text.replace("{REL}", "." + module.removeprefix("rptoy."))
    return (LEFT[left] + "\n\n" if LEFT[left] else "") + text


def _files(core: str, home: str, body: str = GOOD) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": core}
    if home == "subpackage":
        out["rptoy/v2/__init__.py"] = ""
    out[HOMES[home].replace(".", "/") + ".py"] = body
    return out


@pytest.mark.parametrize(("shape", "home", "left", "before"), CASES, ids=["-".join(c) for c in CASES])
def test_a_scope_bound_from_another_module_is_moved_and_port_adds_it(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, shape: str, home: str, left: str, before: str
) -> None:
    second = _files(_core(shape, home, left), home)
    went = size_from(tmp_path / "oracle", second)[0]
    assert went == HOMES[home]  # the reference: the code that runs is not rptoy.core's
    first = _files(GOOD, home) if BEFORE[before] else {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", ENTRY)

    report = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    (result,) = report["results"]
    assert not result["ok"] and report["obsolete"] == [], result
    if left != "none":  # the definition left behind does not run: where it went, and how the module binds it
        line = next(i for i, t in enumerate(_core(shape, home, left).splitlines(), 1) if t.startswith("size"))
        said = f"moved: size now lives in {went} (bound by an assignment in rptoy.core, line {line})"
        assert result["checks"]["match"] is False and said in result["error"], result

    table = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap", "--versions", "2.0", "--json").out)
    (cell,) = table["matrix"][0]["cells"]
    assert (cell["cell"], cell["module"], cell["proven"]) == ("out of range", went, True), cell

    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    after = (reg / "cap.yaml").read_text()
    assert r.code == 0, (r.out, r.err)
    assert f"module: {went}" in after, (r.out, after)
    assert radpatch("--registry", str(reg), "verify", "cap").code == 0


NOT_SURE = {  # bindings from another module that may not be what runs: not a move (att40b #3, #4)
    "assignment under an if": "import os\nfrom rptoy import planning\n\nif os.environ.get('RPTOY_FAST'):\n"
    "    size = planning.size\n",
    "import under an if": "import os\n\nif os.environ.get('RPTOY_FAST'):\n    from rptoy.planning import size\n",
    "alias bound in a try and its handler": "try:\n    from rptoy import other as planning\n"
    "except ImportError:\n    from rptoy import planning\n\nsize = planning.size\n",
    "alias bound twice in turn": "from rptoy import planning\nfrom rptoy import other as planning\n\n"
    "size = planning.size\n",
}


@pytest.mark.parametrize("shape", sample(list(NOT_SURE)))
def test_a_binding_that_may_not_run_or_may_read_another_module_is_not_a_move(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, shape: str
) -> None:
    second = _files(GOOD + "\n\n" + NOT_SURE[shape], "sibling")
    second["rptoy/other.py"] = "size = len\n"
    assert size_from(tmp_path / "oracle", second)[0] != HOMES["sibling"]  # the reference: not planning's code
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": second})
    reg = write_registry("cap", ENTRY)

    report = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    (result,) = report["results"]
    assert "moved: size now lives in rptoy.planning" not in json.dumps(result), result
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert "module: rptoy.planning" not in (reg / "cap.yaml").read_text(), (r.out, r.err)
