"""port follows three renames port44 could not (issue 23, port45), through the CLI on small wheels:

- a method renamed inside its class (`size = size_of` in `class Sizer:`, the entry's `scope:
  Sizer.size`), where nothing may rebind the name; its unsafe twins (a decorator, a metaclass or a
  base from another module, a later `Sizer.size = ...` or `setattr`) are refused and the cell says why;
- a backport: the entry names the new name, the release ported to is older and has the old one, and
  the entry's own release keeps the old name by an alias (the evidence); without the alias, or with
  one the rules refuse, no rename is seen;
- the re-export through a package `__init__` that binds the submodule itself (`from . import
  planning`): followed; one that binds the name to another module: refused.

The oracle: Python itself runs the release's modules (the old name's result, unpatched, tells a safe
shape from its unsafe twin), then the module with the ported entry applied (the cap takes effect),
and the entry undone gives the release's bytes back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.registry import loader
from radpatch.rewrite.runner import backward, forward
from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, run_size

BODY = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
REWRITTEN = BODY.replace("n = len(items)", "n = len(list(items))")  # the rewrite finds nothing there
ALT = """\
def swap(c):
    c.size = lambda self, items: 99
    return c


class Meta(type):
    def __init__(cls, *args):
        super().__init__(*args)
        cls.size = lambda self, items: 99


class Base:
    def __init_subclass__(cls):
        cls.size = lambda self, items: 99


def size_of(items):
    return 99


class Hook:
    def __set_name__(self, owner, name):
        owner.size = lambda self, items: 99
"""


def _code(qualified: bool, name: str, body: str, cls: str = "Sizer") -> str:
    """`body`'s function named `name`, or (qualified) a method `name` of a class `cls`."""
    if not qualified:
        return body.replace("def size(", f"def {name}(")
    method = body.replace("def size(items)", f"def {name}(self, items)")
    return f"class {cls}:\n" + "".join("    " + line + "\n" for line in method.splitlines())


def _entry(scope: str, supported: str, flow: bool = False) -> str:
    cap = f'insert_after: {{scope: {scope}, find: n = len(items), code: "n = min(n, len(buckets))"}}'
    item = (
        f"  - {{id: cap, {cap}}}   # the cap\n"
        if flow
        else f"  - id: cap   # the cap\n    insert_after:\n      scope: {scope}\n      find: n = len(items)\n"
        "      code: n = min(n, len(buckets))\n"
    )
    return f"""\
# a toy entry: comments and layout stay
summary: s
description: d
distribution: {DIST}
supported: "{supported}"   # as written
modules:
  planner: rptoy.core  # where size() lives
rewrites:
{item}"""


def _cell(radpatch: Any, reg: Path, version: str) -> dict[str, Any]:
    table = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap", "--versions", version, "--json").out)
    (cell,) = table["matrix"][0]["cells"]
    return dict(cell)


def _applied(tmp: Path, reg: Path, files: dict[str, str | bytes], at: str, rel: str, scopes: list[str]) -> int:
    """The ported entry as written, applied to the release's `rel` and run; undone, the bytes are back."""
    entry = loader.load_bytes(reg / "cap.yaml", (reg / "cap.yaml").read_bytes())
    rws = entry.rewrites_for(Version(at))
    assert [rw.op.scope_name() for rw in rws] == scopes
    original = str(files[rel]).encode()
    patched = forward(entry, rws, original, rel)
    assert backward(entry, rws, patched, rel) == original
    return run_size(tmp, {**files, rel: patched}, "." in scopes[0])


# the class's header and what the module does after it: (header, after, safe), and what the class body
# does after the alias (TAILS; att46 #1: each rebinds the name where no statement shows it)
TAILS = {
    "exec in the class body": '    exec("size = lambda self, items: 99")\n',
    "an object whose __set_name__ rebinds": "    hook = Hook()\n",
    "a store through __dict__": '    def __init__(self):\n        self.__dict__["size"] = lambda items: 99\n',
}
CLASSES = {
    "plain": ("class Sizer:", "", True),
    "object base": ("class Sizer(object):", "", True),
    "a base of the module": ("class Base:\n    pass\n\n\nclass Sizer(Base):", "", True),
    "another name stored": ("class Sizer:", "\nSizer.other = 1\nsetattr(Sizer, 'other', 2)\n", True),
    "a decorator from elsewhere": ("from rptoy.alt import swap\n\n\n@swap\nclass Sizer:", "", False),
    "a metaclass from elsewhere": ("from rptoy.alt import Meta\n\n\nclass Sizer(metaclass=Meta):", "", False),
    "a base from elsewhere": ("from rptoy.alt import Base\n\n\nclass Sizer(Base):", "", False),
    "stored after the class": ("class Sizer:", "\nSizer.size = lambda self, items: 99\n", False),
    "setattr after the class": ("class Sizer:", "\nsetattr(Sizer, 'size', lambda self, items: 99)\n", False),
    "setattr under another name": (
        "class Sizer:",
        "\nsa = setattr\nsa(Sizer, 'size', lambda self, items: 99)\n",
        False,
    ),
    "exec in the class body": ("class Sizer:", "", False),
    "an object whose __set_name__ rebinds": ("from rptoy.alt import Hook\n\n\nclass Sizer:", "", False),
    "a store through __dict__": ("class Sizer:", "", False),
}
CLASS_CASES = sample([(c, p) for c in CLASSES for p in ("proves", "does not prove") if CLASSES[c][2] or p == "proves"])


@pytest.mark.parametrize(("shape", "proves"), CLASS_CASES, ids=["-".join(c) for c in CLASS_CASES])
def test_a_method_renamed_in_its_class(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, shape: str, proves: str
) -> None:
    header, after, safe = CLASSES[shape]
    body = BODY if proves == "proves" else REWRITTEN
    cls = _code(True, "size_of", body).replace("class Sizer:", header) + "    size = size_of\n" + TAILS.get(shape, "")
    cls += after
    first: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": _code(True, "size", BODY)}
    second: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": cls}
    if "rptoy.alt" in header:  # its `c.size = ...` stores are another module's (port47: they refuse any rename)
        second["rptoy/alt.py"] = ALT
    assert run_size(tmp_path / "unpatched", second, True) == (3 if safe else 99)  # the old name's code, run
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", _entry("Sizer.size", ">=1.0"))
    before = (reg / "cap.yaml").read_text()
    cell = _cell(radpatch, reg, "2.0")
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    error = told["results"][0]["error"] or ""
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert ("is not followed as a rename" if not safe else "moved: Sizer.size is now Sizer.size_of") in error, told
    if not safe:
        assert cell["cell"] == "no match" and "is not followed as a rename" in cell["detail"], cell
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert cell["cell"] == "moved" and cell["proven"] is (proves == "proves"), cell
    assert "under the new name 'Sizer.size_of'" in cell["detail"], cell
    if proves != "proves":
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert r.code == 0, r.out + r.err
    assert all(c in (reg / "cap.yaml").read_text() for c in ("# the cap", "# as written", "# where size() lives"))
    assert _applied(tmp_path / "patched", reg, second, "2.0", "rptoy/core.py", ["Sizer.size_of"]) == 1
    old = _applied(tmp_path / "first", reg, first, "1.0", "rptoy/core.py", ["Sizer.size"])
    assert old == 1


BACK_CASES = sample(
    [(q, p, "block") for q in ("plain", "qualified") for p in ("proves", "does not prove", "no alias", "alias refused")]
    + [("qualified", "old class rebinds", "block")]
    + [(q, "proves", "flow") for q in ("plain", "qualified")]
)


@pytest.mark.parametrize(("qualified", "proves", "layout"), BACK_CASES, ids=["-".join(c) for c in BACK_CASES])
def test_a_backport_across_a_rename(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, qualified: str, proves: str, layout: str
) -> None:
    """The entry names `size_of` (2.0 on); 1.0 defines `size`; 2.0 keeps `size = size_of` (the evidence)."""
    q = qualified == "qualified"
    old_body = REWRITTEN if proves == "does not prove" else BODY
    alias = "" if proves == "no alias" else ("    size = size_of\n" if q else "\nsize = size_of\n")
    if proves == "alias refused":  # a store after it may rebind the old name: no evidence of the rename
        alias += "\nSizer.size = Sizer.size_of\n" if q else "\nglobals()['size'] = size_of\n"
    first: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": _code(q, "size", old_body)}
    if proves == "old class rebinds":  # att46 #4: the older release's class is decorated, the decorator rebinds
        first["rptoy/core.py"] = "from rptoy.alt import swap\n\n\n@swap\n" + str(first["rptoy/core.py"])
        first["rptoy/alt.py"] = ALT
    second: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": _code(q, "size_of", BODY) + alias}
    # the old release runs the code under the old name (or, its class rebinding it, other code)
    assert run_size(tmp_path / "old", first, q) == (99 if proves == "old class rebinds" else 3)
    loopback(DIST, {"1.0": first, "2.0": second})
    new, old = ("Sizer.size_of", "Sizer.size") if q else ("size_of", "size")
    reg = write_registry("cap", _entry(new, ">=2.0", flow=layout == "flow"))
    before = (reg / "cap.yaml").read_text()
    cell = _cell(radpatch, reg, "1.0")
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "1.0", "--json").out)
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.0")
    if proves in ("no alias", "alias refused", "old class rebinds"):  # no rename that runs: the entry stays
        assert "renamed" not in cell["detail"] and r.code == 1, (cell, r.out)
        assert (reg / "cap.yaml").read_text() == before
        return
    # verify: out of the entry's range, and where the code is there; port: moved, proven or not
    assert cell["cell"] == "out of range" and "before 2.0" in cell["detail"], cell
    proven = "the rewrites prove" if proves == "proves" else "the rewrites do not prove"
    assert f"{proven} under the old name {old!r}" in cell["detail"], cell
    assert f"1.0: moved: {new} was {old} in rptoy.core before 2.0" in r.out, r.out
    assert f"moved: {new} was {old}" in told["results"][0]["error"], told  # verify's failure says so too
    if proves != "proves":
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert r.code == 0, r.out + r.err
    assert '"<2.0"' in r.out and "# the cap" in (reg / "cap.yaml").read_text(), r.out
    assert _applied(tmp_path / "patched", reg, first, "1.0", "rptoy/core.py", [old]) == 1
    assert _applied(tmp_path / "second", reg, second, "2.0", "rptoy/core.py", [new]) == 1
    again = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=1.0", "--json").out)
    assert [res["error"] for res in again["results"]] == [None, None], again


INITS = {  # rptoy/__init__.py of the release: (text, the name `planning` is the submodule)
    "from . import planning": ("from . import planning\n", True),
    "from rptoy import planning": ("from rptoy import planning\n", True),
    "import as planning": ("import rptoy.planning as planning\n", True),
    "another module as planning": ("from . import alt as planning\n", False),
    "assigned another module": ("from . import alt\n\nplanning = alt\n", False),
    "a lazy __getattr__": (  # att46 #3: `from rptoy import planning` asks it before importing the submodule
        "import importlib\n\n\ndef __getattr__(name):\n    return importlib.import_module('rptoy.alt')\n",
        False,
    ),
    "sys.modules written": ('import sys\n\nfrom . import alt\n\nsys.modules[__name__ + ".planning"] = alt\n', False),
}


@pytest.mark.parametrize("init", sample(list(INITS)))
def test_an_init_binding_the_submodule_itself(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, init: str
) -> None:
    text, safe = INITS[init]
    core = "from rptoy import planning\n\nsize = planning.size_of\n"
    first: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": BODY}
    second: dict[str, str | bytes] = {
        "rptoy/__init__.py": text,
        "rptoy/core.py": core,
        "rptoy/planning.py": _code(False, "size_of", BODY),
        "rptoy/alt.py": ALT,
    }
    assert run_size(tmp_path / "unpatched", second, False) == (3 if safe else 99)  # which module `planning` is
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", _entry("size", ">=1.0"))
    before = (reg / "cap.yaml").read_text()
    cell = _cell(radpatch, reg, "2.0")
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    if not safe:
        assert "renamed" not in cell["detail"], cell
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert cell["cell"] == "moved" and cell["proven"] and cell["module"] == "rptoy.planning", cell
    assert r.code == 0, r.out + r.err
    assert _applied(tmp_path / "patched", reg, second, "2.0", "rptoy/planning.py", ["size_of"]) == 1
