"""port follows four rename shapes it could not (issue 23, port47), through the CLI on small wheels, and
refuses their unsafe twins saying where:

- a method renamed in a nested class (`Outer.Inner.size` -> `Outer.Inner.size_of`);
- an annotated alias (`size: Callable[..., int] = size_of`), in the class body or at module level;
- a class renamed and its method too (`Old = New` at module level, `size = size_of` in `class New:`;
  the class beside it or in another module): `Old.size` -> `New.size_of`;
- a rename that another module of the distribution may undo (`Sizer.size = ...`, `core.size = ...`
  in rptoy/other.py): refused, naming that file:line; its twin storing another name is followed.

The oracle: Python runs the release (the old name's code: 3 where the rename holds, 99 where the
twin's store wins), then the release's module with the ported entry applied (the cap: 1), and the
entry undone gives the release's bytes back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.registry import loader
from radpatch.rewrite.runner import backward, forward
from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, commented_cap_entry

BODY = "def size(self, items):\n    buckets = [items]\n    n = len(items)\n    return n\n"
REWRITTEN = BODY.replace("n = len(items)", "n = len(list(items))")  # the rewrite finds nothing there


def _indent(text: str, by: int) -> str:
    return "".join(" " * by + line + "\n" if line else "\n" for line in text.splitlines())


def _method(name: str, body: str, by: int = 4) -> str:
    return _indent(body.replace("def size(", f"def {name}("), by)


def _function(name: str, body: str) -> str:
    return body.replace("def size(self, items)", f"def {name}(items)")


TYPING = "from typing import Callable\n\n\n"
# shape -> (old scope, new scope, the call that runs the old name, 1.0's core.py, 2.0's files from the
# body, the unsafe twin's text added to one file: (file, text, the words' where))
SHAPES: dict[str, tuple[str, str, str, str, Any, tuple[str, str, str]]] = {
    "nested class": (
        "Outer.Inner.size",
        "Outer.Inner.size_of",
        "m.Outer.Inner().size([1, 2, 3])",
        "class Outer:\n    class Inner:\n" + _method("size", BODY, 8),
        lambda b: {
            "rptoy/core.py": "class Outer:\n    class Inner:\n" + _method("size_of", b, 8) + "        size = size_of\n"
        },
        ("rptoy/core.py", "\nOuter.Inner.size = lambda self, items: 99\n", "`.size` (line 9)"),
    ),
    "annotated in the class": (
        "Sizer.size",
        "Sizer.size_of",
        "m.Sizer().size([1, 2, 3])",
        "class Sizer:\n" + _method("size", BODY),
        lambda b: {
            "rptoy/core.py": TYPING
            + "class Sizer:\n"
            + _method("size_of", b)
            + "    size: Callable[..., int] = size_of\n"
        },
        ("rptoy/core.py", "\nsetattr(Sizer, 'size', lambda self, items: 99)\n", "`setattr` (line 11)"),
    ),
    "annotated at module level": (
        "size",
        "size_of",
        "m.size([1, 2, 3])",
        _function("size", BODY),
        lambda b: {"rptoy/core.py": TYPING + _function("size_of", b) + "\n\nsize: Callable[..., int] = size_of\n"},
        (
            "rptoy/core.py",
            "import sys\n\nsa = setattr\nsa(sys.modules[__name__], 'size', lambda items: 99)\n",
            "rptoy/core.py:13",
        ),
    ),
    "class and method, beside": (
        "Old.size",
        "New.size_of",
        "m.Old().size([1, 2, 3])",
        "class Old:\n" + _method("size", BODY),
        lambda b: {"rptoy/core.py": "class New:\n" + _method("size_of", b) + "    size = size_of\n\n\nOld = New\n"},
        ("rptoy/core.py", "Old.size = lambda self, items: 99\n", "`.size` (line 10)"),
    ),
    "class and method, in another module": (
        "Old.size",
        "New.size_of",
        "m.Old().size([1, 2, 3])",
        "class Old:\n" + _method("size", BODY),
        lambda b: {
            "rptoy/core.py": "from rptoy.planning import New as Old\n",
            "rptoy/planning.py": "class New:\n" + _method("size_of", b) + "    size = size_of\n",
        },
        ("rptoy/core.py", "\nOld.size = lambda self, items: 99\n", "rptoy/core.py:3"),
    ),
    "a method stored from another module": (
        "Sizer.size",
        "Sizer.size_of",
        "m.Sizer().size([1, 2, 3])",
        "class Sizer:\n" + _method("size", BODY),
        lambda b: {
            "rptoy/__init__.py": "from . import other\n",
            "rptoy/core.py": "class Sizer:\n" + _method("size_of", b) + "    size = size_of\n",
            "rptoy/other.py": "from rptoy.core import Sizer\n\nSizer.other = 1\n",
        },
        ("rptoy/other.py", "Sizer.size = lambda self, items: 99\n", "rptoy/other.py:4"),
    ),
    "a function stored from another module": (
        "size",
        "size_of",
        "m.size([1, 2, 3])",
        _function("size", BODY),
        lambda b: {
            "rptoy/__init__.py": "from . import other\n",
            "rptoy/core.py": _function("size_of", b) + "\n\nsize = size_of\n",
            "rptoy/other.py": "import rptoy.core as c\n\nc.other = 1\n",
        },
        ("rptoy/other.py", "c.size = lambda items: 99\n", "rptoy/other.py:4"),
    ),
    "a class renamed in another module, its method stored from a third": (
        "Sizer.size",
        "Sizer2.size",
        "m.Sizer().size([1, 2, 3])",
        "class Sizer:\n" + _method("size", BODY),
        lambda b: {
            "rptoy/__init__.py": "from . import other\n",
            "rptoy/core.py": "from rptoy import planning\n\nSizer = planning.Sizer2\n",
            "rptoy/planning.py": "class Sizer2:\n" + _method("size", b),
            "rptoy/other.py": "from rptoy.planning import Sizer2\n\nSizer2.other = 1\n",
        },
        ("rptoy/other.py", "Sizer2.size = lambda self, items: 99\n", "rptoy/other.py:4"),
    ),
    "a def in another module, stored from a third": (
        "size",
        "size_of",
        "m.size([1, 2, 3])",
        _function("size", BODY),
        lambda b: {
            "rptoy/__init__.py": "from . import other\n",
            "rptoy/core.py": "from rptoy import planning\n\nsize = planning.size_of\n",
            "rptoy/planning.py": _function("size_of", b),
            "rptoy/other.py": "from rptoy import planning\n\nplanning.other = 1\n",
        },
        ("rptoy/other.py", "planning.size_of = lambda items: 99\n", "rptoy/other.py:4"),
    ),
}
CASES = sample([(s, k) for s in SHAPES for k in ("proves", "does not prove", "unsafe twin")])
ENTRY = commented_cap_entry("SCOPE")


def _run(tmp: Path, files: dict[str, str | bytes], call: str) -> int:
    """`call` on rptoy.core, the release's files written under `tmp` and run by Python (the oracle)."""
    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(text if isinstance(text, bytes) else text.encode())
    code = f"import sys; sys.path.insert(0, {str(tmp)!r}); import rptoy.core as m; print({call})"
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.parametrize(("shape", "kind"), CASES, ids=["-".join(c) for c in CASES])
def test_port_follows_the_shape_or_says_why_not(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, shape: str, kind: str
) -> None:
    old, new, call, first_core, made, (twin_file, twin, where) = SHAPES[shape]
    second: dict[str, str | bytes] = {"rptoy/__init__.py": "", **made(REWRITTEN if kind == "does not prove" else BODY)}
    if kind == "unsafe twin":
        second[twin_file] = str(second[twin_file]) + twin
    assert _run(tmp_path / "unpatched", second, call) == (99 if kind == "unsafe twin" else 3)
    first: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": first_core}
    assert _run(tmp_path / "first", first, call) == 3
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry("cap", ENTRY.replace("SCOPE", old))
    before = (reg / "cap.yaml").read_text()
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    table = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap", "--versions", "2.0", "--json").out)
    (cell,) = table["matrix"][0]["cells"]
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    error = told["results"][0]["error"] or ""
    if kind == "unsafe twin":
        for words in (error, cell["detail"] or "", r.out):
            assert "is not followed as a rename" in words and where in words, (where, words)
        assert cell["cell"] == "no match", cell
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    renamed_as = new if old.split(".")[-1] != new.split(".")[-1] else new.split(".")[0]  # a class alone: its name
    assert "moved: " in error and "is now " in error and renamed_as in error, error
    assert cell["cell"] == "moved" and cell["proven"] is (kind == "proves"), cell
    assert f"under the new name {renamed_as!r}" in cell["detail"], cell
    if kind != "proves":
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert r.code == 0, r.out + r.err
    after = (reg / "cap.yaml").read_text()
    assert all(c in after for c in ("# the cap", "# written for 1.0", "# where size() lives")), after
    entry = loader.load_bytes(reg / "cap.yaml", after.encode())
    rws = entry.rewrites_for(Version("2.0"))
    assert [rw.op.scope_name() for rw in rws] == [new]
    rel = "rptoy/planning.py" if "in another module" in shape else "rptoy/core.py"
    original = str(second[rel]).encode()
    patched = forward(entry, rws, original, rel)
    assert backward(entry, rws, patched, rel) == original
    assert _run(tmp_path / "patched", {**second, rel: patched}, call) == 1  # the cap runs under the old name
    back = entry.rewrites_for(Version("1.0"))
    assert [rw.op.scope_name() for rw in back] == [old]  # 1.0 keeps the rewrite as written
    assert _run(tmp_path / "old", {**first, "rptoy/core.py": forward(entry, back, first_core.encode(), "r")}, call) == 1


BACK_CASES = sample(
    [
        (s, k)
        for s in ("nested class", "annotated in the class", "annotated at module level")
        for k in ("proves", "does not prove")
    ]
)


@pytest.mark.parametrize(("shape", "kind"), BACK_CASES, ids=["-".join(c) for c in BACK_CASES])
def test_a_backport_across_the_shape(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, shape: str, kind: str
) -> None:
    """The entry names the new name (2.0 on); 1.0 has the old one; 2.0's alias is the evidence: port --to
    1.0 writes the variant under the old name for `<2.0` where the rewrites prove there."""
    old, new, call, first_core, made, _ = SHAPES[shape]
    second: dict[str, str | bytes] = {"rptoy/__init__.py": "", **made(BODY)}
    old_code = first_core.replace("n = len(items)", "n = len(list(items))") if kind != "proves" else first_core
    first: dict[str, str | bytes] = {"rptoy/__init__.py": "", "rptoy/core.py": old_code}
    assert _run(tmp_path / "first", first, call) == _run(tmp_path / "second", second, call) == 3
    loopback(DIST, {"1.0": first, "2.0": second})
    reg = write_registry(
        "cap", ENTRY.replace("SCOPE", new).replace('">=1.0"   # written for 1.0', '">=2.0"   # written for 2.0')
    )
    before = (reg / "cap.yaml").read_text()
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "1.0")
    assert f"1.0: moved: {new} was {old} in rptoy.core before 2.0" in r.out, r.out
    if kind != "proves":
        assert r.code == 1 and (reg / "cap.yaml").read_text() == before, r.out
        return
    assert r.code == 0, r.out + r.err
    entry = loader.load_bytes(reg / "cap.yaml", (reg / "cap.yaml").read_bytes())
    for v, files, scope in (("1.0", first, old), ("2.0", second, new)):
        rws = entry.rewrites_for(Version(v))
        assert [rw.op.scope_name() for rw in rws] == [scope]
        original = str(files["rptoy/core.py"]).encode()
        patched = forward(entry, rws, original, "rptoy/core.py")
        assert backward(entry, rws, patched, "rptoy/core.py") == original
        assert _run(tmp_path / f"patched-{v}", {**files, "rptoy/core.py": patched}, call) == 1
