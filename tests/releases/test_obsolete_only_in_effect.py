"""verify calls a release obsolete only where the change takes effect there (issue 23, att23b F1
and F2), end to end through the wheels on a loopback index: an inserted statement overwritten
after it or skipped by an early return, a replaced attribute stored again by `object.__setattr__`,
a helper of another module, or a decorator from another module. The reference is each release's
own code, run."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

H_BODIES = {
    "1.0": ["n = len(items)"],
    "1.1": ["n = len(list(items))", "if n > 1:\n        return n", "n = min(n, len(buckets))"],
    "1.2": ["n = len(list(items))", "n = min(n, len(buckets))", "for n in (len(items),):\n        pass"],
    "1.3": ["n = len(list(items))", "n = min(n, len(buckets))", "(n := len(list(items)))"],
    "1.4": ["n = 0", "n = min(n, len(buckets))", "n = max(n, len(list(items)))"],
    "1.5": ["n = len(list(items))", "n = min(n, len(buckets))", "x = n"],  # upstream took it
}
CAPH = """\
summary: Cap size by buckets
description: test
distribution: rp-h
supported: "==1.0"
modules: {planner: rph.core}
rewrites:
  - id: cap
    insert_after:
      scope: size
      find: n = len(items)
      code: n = min(n, len(buckets))
"""
HELPERS = (
    "def reset(obj):\n    obj.timeout = 30\n\n\n"
    "def defaults(f):\n    def w(self):\n        f(self)\n        self.timeout = 30\n    return w\n"
)
NEW = '        self.timeout = int(os.environ.get("T", "30"))\n'
R_CORES = {
    "1.0": "import os\n\n\nclass C:\n    def __init__(self):\n        self.timeout = 30\n",
    "1.1": "import os\n\n\nclass C:\n    def __init__(self):\n"
    + NEW
    + '        object.__setattr__(self, "timeout", 30)\n',
    "1.2": "import os\nfrom .helpers import reset\n\n\nclass C:\n    def __init__(self):\n"
    + NEW
    + "        reset(self)\n",
    "1.3": "import os\nfrom .helpers import defaults\n\n\nclass C:\n    @defaults\n    def __init__(self):\n" + NEW,
    "1.4": "import os\n\n\nclass C:\n    def __init__(self):\n" + NEW,  # upstream took it
}
TMO = """\
summary: Timeout from the environment
description: test
distribution: rp-r
supported: "==1.0"
modules: {core: rpr.core}
rewrites:
  - id: t
    replace: {scope: C.__init__, find: self.timeout = 30, with: 'self.timeout = int(os.environ.get("T", "30"))'}
"""


def _h(body: list[str]) -> str:
    return "def size(items):\n    buckets = [items]\n" + "".join(f"    {s}\n" for s in body) + "    return n\n"


def _h_in_effect(source: str) -> bool:
    space: dict[str, Any] = {}
    exec(compile(source, "release", "exec"), space)  # noqa: S102 - the release's own code decides
    return bool(space["size"]([1, 2, 3]) == 1)


def _r_in_effect(version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    root = tmp_path / "run" / version
    (root / "rpr").mkdir(parents=True)
    (root / "rpr" / "__init__.py").write_text("")
    (root / "rpr" / "helpers.py").write_text(HELPERS)
    (root / "rpr" / "core.py").write_text(R_CORES[version])
    monkeypatch.setenv("T", "45")
    sys.path.insert(0, str(root))
    try:
        return bool(importlib.import_module("rpr.core").C().timeout == 45)
    finally:
        sys.path.remove(str(root))
        for m in [m for m in sys.modules if m == "rpr" or m.startswith("rpr.")]:
            del sys.modules[m]


def _obsolete(radpatch: Any, reg: Path, name: str) -> set[str]:
    out = radpatch("--registry", str(reg), "verify", name, "--versions", ">=1.0", "--json").out
    assert "obsolete" in json.loads(out), out
    return set(json.loads(out)["obsolete"])


def test_an_insertion_is_obsolete_only_where_the_release_runs_like_the_patch(
    loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    loopback("rp-h", {v: {"rph/core.py": _h(body)} for v, body in H_BODIES.items()})
    expected = {v for v, body in H_BODIES.items() if v != "1.0" and _h_in_effect(_h(body))}
    assert expected == {"1.5"}  # the reference is not one answer
    assert _obsolete(radpatch, write_registry("caph", CAPH), "caph") == expected


def test_a_replace_is_obsolete_only_where_the_release_keeps_the_new_value(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loopback(
        "rp-r",
        {v: {"rpr/__init__.py": "", "rpr/helpers.py": HELPERS, "rpr/core.py": src} for v, src in R_CORES.items()},
    )
    expected = {v for v in R_CORES if v != "1.0" and _r_in_effect(v, tmp_path, monkeypatch)}
    assert expected == {"1.4"}  # the reference is not one answer
    assert _obsolete(radpatch, write_registry("tmo", TMO), "tmo") == expected
