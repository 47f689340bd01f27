"""A module-level rename the rules refuse says why (issue 23, port47): the declared module binds the old
name to a definition of a new one (`size = size_of`, `from .planning import size_of` then the alias,
`size = planning.size_of`), but something may make `size` other code at run time: `exec`, `setattr`
passed on, a `__dict__` written through, `sys.modules` written, a package `__init__`'s module
`__getattr__`, a `globals()` store in the module the alias reads from, a star import. verify's `match`
failure, the matrix cell and port's output say "... is not followed as a rename: ..." naming the
hazard's file:line, as a class-body alias refused does; port leaves the entry alone. The safe twin (the
same shape without the hazard) is followed: port writes the variant.

Generated: the hazard x where it is. The oracle: Python runs the release (`rptoy.core.size`): the
hazard really makes the old name other code (99), the safe twin runs the renamed code (3), and with
the ported entry applied the cap (1); undone, the module's bytes come back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.registry import loader
from radpatch.rewrite.runner import backward, forward
from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, commented_cap_entry, run_size

BODY = "def size(items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
RENAMED = BODY.replace("def size(", "def size_of(")
ALT = "def size_of(items):\n    return 99\n\n\nsize = size_of\n"  # no `def size`: not where it moved
LOCAL = RENAMED + "\n\nsize = size_of\n"  # core.py: the alias beside the def
IMPORTED = "from rptoy import planning\n\nsize = planning.size_of\n"  # core.py: the def in planning.py
# hazard -> (core.py, planning.py or None, rptoy/__init__.py, the file:line the words name, its marker)
HAZARDS = {
    "exec": (LOCAL + "exec('def size(items):\\n    return 99')  # HAZARD\n", None, "", "rptoy/core.py"),
    "setattr passed on": (
        LOCAL + "import sys\n\nsa = setattr  # HAZARD\nsa(sys.modules[__name__], 'size', lambda items: 99)  # HAZARD\n",
        None,
        "",
        "rptoy/core.py",
    ),
    "a __dict__ written": (
        LOCAL + "import sys\n\nsys.modules[__name__].__dict__['size'] = lambda items: 99  # HAZARD\n",
        None,
        "",
        "rptoy/core.py",
    ),
    "sys.modules written in the package": (
        IMPORTED,
        RENAMED,
        "import sys\n\nfrom . import alt\n\nsys.modules[__name__ + '.planning'] = alt  # HAZARD\n",
        "rptoy/__init__.py",
    ),
    "a module __getattr__ in the package": (
        IMPORTED,
        RENAMED,
        "import importlib\n\n\ndef __getattr__(name):  # HAZARD\n    return importlib.import_module('rptoy.alt')\n",
        "rptoy/__init__.py",
    ),
    "a globals() store where the def is": (
        IMPORTED,
        RENAMED + "\nglobals()['size_of'] = lambda items: 99  # HAZARD\n",
        "",
        "rptoy/planning.py",
    ),
    "a star import": (LOCAL + "from rptoy.alt import *  # HAZARD\n", None, "", "rptoy/core.py"),
    "a star import after a re-export hop": (  # planning.py's alias is sound; core.py undoes it
        "from .planning import size\nfrom rptoy.alt import *  # HAZARD\n",
        RENAMED + "\n\nsize = size_of\n",
        "",
        "rptoy/core.py",
    ),
}
CASES = sample([(h, twin) for h in HAZARDS for twin in ("unsafe", "safe twin")])
ENTRY = commented_cap_entry("size")


def _release(hazard: str, safe: bool) -> tuple[dict[str, str | bytes], str]:
    """The release's files (the hazard's line dropped in the safe twin), and the file:line the words name."""
    core, planning, init, rel = HAZARDS[hazard]
    files: dict[str, str | bytes] = {"rptoy/__init__.py": init, "rptoy/core.py": core, "rptoy/alt.py": ALT}
    if planning is not None:
        files["rptoy/planning.py"] = planning
    text = str(files[rel])
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# HAZARD" in t)
    if safe:  # the twin: no hazard (a `__getattr__` goes with its body)
        kept = [t for t in text.splitlines() if "# HAZARD" not in t and "import_module" not in t]
        files[rel] = "\n".join(kept) + "\n"
    return files, f"{rel}:{line}"


@pytest.mark.parametrize(("hazard", "twin"), CASES, ids=["-".join(c) for c in CASES])
def test_a_module_level_rename_refused_says_why(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, hazard: str, twin: str
) -> None:
    safe = twin == "safe twin"
    second, at = _release(hazard, safe)
    assert run_size(tmp_path / "unpatched", second, False) == (3 if safe else 99)  # what the old name runs
    first: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": BODY}
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", ENTRY)
    before = (reg / "cap.yaml").read_text()
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    table = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap", "--versions", "2.0", "--json").out)
    (cell,) = table["matrix"][0]["cells"]
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    error = told["results"][0]["error"] or ""
    if not safe:
        said = "is not followed as a rename: "
        for words in (error, cell["detail"] or "", r.out):
            assert said in words and at in words, (at, words)
        assert cell["cell"] == "no match", cell
        refusal = next(t for t in r.out.splitlines() if said in t)
        assert len(refusal) < 400, refusal  # one line, a short one
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert "not followed" not in error and cell["cell"] == "moved" and cell["proven"], cell
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_text()
    entry = loader.load_bytes(reg / "cap.yaml", after.encode())
    rws = entry.rewrites_for(Version("2.0"))
    assert [rw.op.scope_name() for rw in rws] == ["size_of"]
    rel = "rptoy/planning.py" if "rptoy/planning.py" in second else "rptoy/core.py"
    original = str(second[rel]).encode()
    patched = forward(entry, rws, original, rel)
    assert run_size(tmp_path / "patched", {**second, rel: patched}, False) == 1  # the cap runs under the old name
    assert backward(entry, rws, patched, rel) == original
