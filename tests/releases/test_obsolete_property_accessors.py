"""A definition of the scope's name that leaves its code as it was is no later binding (rel39 #6):
a property's `@timeout.setter`/`.deleter` after the getter holding the change (`scope:
Engine.timeout.getter`) keeps that getter, so the release is obsolete; a property assigned again
after the class, or a plain def of the name in the class after it, replaces it. Generated
accessors x order x assigned again or not; the reference: each release imported in a fresh
interpreter, `Engine().timeout` read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.lib.generated import sample

GETTER = "    @property\n    def timeout(self):\n        n = self._n\n{CAP}        return n\n"
CAP = "        n = min(n, 1)\n"
SETTER = "    @timeout.setter\n    def timeout(self, v):\n        self._n = v\n"
DELETER = "    @timeout.deleter\n    def timeout(self):\n        del self._n\n"
PLAIN = "    def timeout(self):\n        return self._n\n"
HEAD = "class Engine:\n    def __init__(self):\n        self._n = 5\n\n"
SHAPES = {
    "then a setter": [GETTER, SETTER],
    "then a setter and a deleter": [GETTER, SETTER, DELETER],
    "then a deleter and a setter": [GETTER, DELETER, SETTER],
    "then a setter and a plain def": [GETTER, SETTER, PLAIN],
}
AFTER = {"": "", "assigned again": "\n\nEngine.timeout = property(lambda self: self._n)\n"}
ENTRY = """\
summary: Cap the timeout
description: test
distribution: radpatch-toy
supported: "==1.0"
modules: {core: rptoy.core}
rewrites:
  - id: cap
    insert_after: {scope: Engine.timeout.getter, find: n = self._n, code: "n = min(n, 1)"}
"""
CASES = sample([(s, a) for s in SHAPES for a in AFTER])


def _source(shape: str, after: str, cap: str) -> str:
    return HEAD + "\n".join(part.replace("{CAP}", cap) for part in SHAPES[shape]) + AFTER[after]


def _capped(tmp: Path, name: str, source: str) -> bool:
    root = tmp / name
    (root / "rptoy").mkdir(parents=True)
    (root / "rptoy" / "__init__.py").write_text("")
    (root / "rptoy" / "core.py").write_text(source)
    code = f"import sys; sys.path.insert(0, {str(root)!r}); import rptoy.core as m; e = m.Engine(); print(e.timeout)"
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip() == "1"


def test_accessors_of_the_property_holding_the_change_keep_it(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    versions = {f"1.{i + 1}": (f"{s}{' ' + a if a else ''}", _source(s, a, CAP)) for i, (s, a) in enumerate(CASES)}
    base = _source("then a setter", "", "")
    loopback(
        "radpatch-toy", {"1.0": {"rptoy/core.py": base}, **{v: {"rptoy/core.py": s} for v, (_, s) in versions.items()}}
    )
    expected = {v for v, (name, s) in versions.items() if _capped(tmp_path, f"r{v}", s)}
    reg = write_registry("cap", ENTRY)
    report = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=1.0", "--json").out)
    assert {versions[v][0] for v in report["obsolete"]} == {versions[v][0] for v in expected}
    if len(CASES) == len(SHAPES) * len(AFTER):
        assert expected and expected != set(versions)  # the reference is not one answer
