"""A scope renamed in a newer release, its old name kept by an alias (rel41, issue 23 #2): the declared
module binds `size` to `size_of`, defined in another module of the package or beside the alias
(`size = planning.size_of`, `from .planning import size_of as size`, `size = size_of`). verify said
"scope 'size': the module defines no function or class 'size'" and the matrix and port "no match"
(with a nearest candidate, or nothing similar): the code is not gone. Now verify's `match` failure
says moved, to where the code runs, naming the binding and its line; the matrix cell is moved
(proven under the new name where the rewrites prove so) and port writes the variant under the
new name (port44; tests/releases/test_port_follows_rename.py). A binding that may not run (under
an `if`) or names a module attribute no module of the wheel defines stays a no match, and so does
one a store no binding statement shows, a star import or the package's own binding of the
submodule's name may undo (att43 #12).

Generated: the binding's spelling x where the renamed definition lives (a sibling, a subpackage, the
module itself). The reference: the release imported in a fresh interpreter, `size.__module__` and
`size.__name__`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, GOOD, RENAMED, cap_entry, size_from

ENTRY = cap_entry("==1.0")
HOMES = {"sibling": "rptoy.planning", "subpackage": "rptoy.v2.planning", "itself": "rptoy.core"}
SHAPES = {
    "module attribute": "from {PARENT} import planning\n\nsize = planning.size_of\n",
    "import as": "import {HOME} as _planning\n\nsize = _planning.size_of\n",
    "dotted name": "import {HOME}\n\nsize = {HOME}.size_of\n",
    "from import as": "from {HOME} import size_of as size\n",
    "relative from import as": "from {REL} import size_of as size\n",
    "from import then assigned": "from {HOME} import size_of\n\nsize = size_of\n",
    "annotated": "import {HOME} as _planning\n\nsize: object = _planning.size_of\n",
}
LOCAL = {"local alias": "\n\nsize = size_of\n", "annotated local alias": "\n\nsize: object = size_of\n"}
CASES = sample([(s, h) for s in SHAPES for h in HOMES if h != "itself"] + [(s, "itself") for s in LOCAL])


def _files(shape: str, home: str) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {"rptoy/__init__.py": ""}
    if home == "itself":
        out["rptoy/core.py"] = RENAMED + LOCAL[shape]
        return out
    module = HOMES[home]
    text = SHAPES[shape].replace("{HOME}", module).replace("{PARENT}", module.rpartition(".")[0])
    out["rptoy/core.py"] = text.replace("{REL}", "." + module.removeprefix("rptoy."))
    if home == "subpackage":
        out["rptoy/v2/__init__.py"] = ""
    out[module.replace(".", "/") + ".py"] = RENAMED
    return out


def _verify(radpatch: Any, reg: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    report = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    (result,) = report["results"]
    table = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap", "--versions", "2.0", "--json").out)
    (cell,) = table["matrix"][0]["cells"]
    return result, cell


@pytest.mark.parametrize(("shape", "home"), CASES, ids=["-".join(c) for c in CASES])
def test_a_renamed_scope_bound_by_its_old_name_is_moved(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, shape: str, home: str
) -> None:
    second = _files(shape, home)
    module, name = size_from(tmp_path / "oracle", second)
    assert name == "size_of"  # the reference: the old name runs the renamed code
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": second})
    reg = write_registry("cap", ENTRY)
    core = str(second["rptoy/core.py"]).splitlines()
    line = next(i for i, t in enumerate(core, 1) if t.startswith("size") or " as size" in t)
    now = f"size_of in {module}" if module == "rptoy.core" else f"{module}.size_of"

    result, cell = _verify(radpatch, reg)
    said = f"moved: size is now {now} (renamed; `{core[line - 1].strip()}` in rptoy.core, line {line}"
    assert result["checks"]["match"] is False and said in result["error"], result
    assert cell["cell"] == "out of range" and f"; {said}" in cell["detail"], cell
    assert cell["module"] == module and "prove under the new name 'size_of'" in cell["detail"], cell  # port44

    before = (reg / "cap.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")  # it proves under the new name (port44)
    assert r.code == 0 and (reg / "cap.yaml").read_text() != before, (r.out, r.err)
    assert f"2.0: moved: size is now {now}" in r.out and "prove under the new name 'size_of'" in r.out, r.out
    assert "no match" not in r.out and "scope: size_of" in (reg / "cap.yaml").read_text(), r.out


ALIAS = "from rptoy import planning\n\nsize = planning.size_of\n"
NOT_SURE = {  # an alias that may not run, or reads a name no module of the wheel defines: no move
    "alias under an if": "import os\nfrom rptoy import planning\n\nif os.environ.get('RPTOY_FAST'):\n"
    "    size = planning.size_of\n",
    "alias of a name the module does not define": "from rptoy import planning\n\nsize = planning.sized\n",
    "alias bound twice": ALIAS + "size = len\n",
}
# att41 #6: the alias is bound once but undone, or what it reads (in either module) is not bound once:
# the old name holds no renamed code at runtime. (core.py, text added to planning.py)
UNDONE = {
    "alias deleted": (ALIAS + "del size\n", ""),
    "alias deleted by a function run at import": (ALIAS + "def _drop():\n    global size\n    del size\n_drop()\n", ""),
    "alias rebound in a loop": (ALIAS + "for size in (len,):\n    pass\n", ""),
    "the module name rebound first": (
        "import rptoy.other\nfrom rptoy import planning\nplanning = rptoy.other\nsize = planning.size_of\n",
        "",
    ),
    "the imported name rebound first": ("from rptoy.planning import size_of\nsize_of = len\nsize = size_of\n", ""),
    "the def rebound after it": (ALIAS, "size_of = len\n"),
    "the def rebound by an import": (ALIAS, "from builtins import len as size_of\n"),
    "the def rebound under an if": (ALIAS, "if True:\n    size_of = len\n"),
    "the local def rebound": (RENAMED + "\n\nsize_of = len\nsize = size_of\n", ""),
}
# att43 #12: what no binding statement shows rebinds a name: a namespace store, a star import, a
# package `__init__` binding the submodule's name (core's `from rptoy import planning` reads it).
# (core.py, text added to planning.py, rptoy/__init__.py)
HIDDEN = {
    "globals() store after the alias": (ALIAS + "globals()['size'] = None\n", "", ""),
    "globals().update after the alias": (ALIAS + "globals().update(size=None)\n", "", ""),
    "setattr of the module after the alias": (
        "import sys\n" + ALIAS + "setattr(sys.modules[__name__], 'size', None)\n",
        "",
        "",
    ),
    "a star import after the alias": (ALIAS + "from rptoy.alt import *\n", "", ""),
    "planning ends with a star import": (ALIAS, "from rptoy.other import *\n", ""),
    "planning stores size_of through globals()": (ALIAS, "globals()['size_of'] = len\n", ""),
    "the package binds planning to another module": (ALIAS, "", "from rptoy import other as planning\n"),
    "the package binds planning by assignment": (ALIAS, "", "from rptoy import other\nplanning = other\n"),
    "the package star-imports": (ALIAS, "", "from rptoy.alt import *\n"),
}
CORES = {k: (v, "", "") for k, v in NOT_SURE.items()} | {k: (*v, "") for k, v in UNDONE.items()} | HIDDEN


@pytest.mark.parametrize("shape", sample(list(CORES)))
def test_an_alias_that_may_not_run_or_reads_nothing_is_no_move(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, shape: str
) -> None:
    core, more, init = CORES[shape]
    second: dict[str, str | bytes] = {
        "rptoy/__init__.py": init,
        "rptoy/alt.py": "from rptoy import other as planning\n\nsize = len\n",
        "rptoy/core.py": core,
        "rptoy/planning.py": RENAMED + "\n\nsized = len\n" + more,
        "rptoy/other.py": "def size_of(items):\n    return -1\n",
    }
    # the reference: not the renamed code
    assert size_from(tmp_path / "oracle", second) != ("rptoy.planning", "size_of")
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": second})
    reg = write_registry("cap", ENTRY)
    result, cell = _verify(radpatch, reg)
    assert result["checks"]["match"] is False and "moved:" not in result["error"], result
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 1 and "2.0: no match" in r.out, r.out
