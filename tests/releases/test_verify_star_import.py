"""verify and apply judge a later star import by one rule (radpatch.prove.star_exports): a patch
that changes `TIMEOUT` in a module whose later `from .local import *` may rebind it is accepted
exactly when the star-imported module provably does not bind it. apply reads that module from the
target's path; verify reads it from the release's wheel (fetched with the entry's own files),
following its own star imports; another distribution's module is not in the wheel: verify cannot
tell and refuses, as apply does when the module is not there.

Generated: the star-imported module binds or does not bind the name by a def, an assignment,
`__all__` (listing it or not), a re-export of another star (of the same distribution or of
another), or dynamically. Each variant is also run: accepted only where the patched value is the
one that runs; refused with "cannot tell" only where the rule cannot read the answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.index_server import IndexServer
from tests.lib.site import Site
from tests.lib.wheels import Wheels

DIST = "rpstar-toy"
OTHER = {"rpother/__init__.py": "", "rpother/conf.py": "TIMEOUT = 7\n"}  # another distribution's module
SETTINGS = "TIMEOUT = 5\ntry:\n    from .local import *\nexcept ImportError:\n    pass\n"
ENTRY = f"""\
summary: A longer timeout
description: The settings module star-imports a local override after the constant.
distribution: {DIST}
supported: ">=1.0,<2"
modules:
  settings: rpstar.settings
rewrites:
  - id: timeout
    set_constant: {{name: TIMEOUT, from: "5", value: "50"}}
"""

# variant -> the package's other files (rpstar/local.py and what it reads); whether the rule can tell
VARIANTS: dict[str, tuple[dict[str, str], bool]] = {
    "def-binds": ({"rpstar/local.py": "def TIMEOUT():\n    return 7\n"}, True),
    "assignment-binds": ({"rpstar/local.py": "TIMEOUT = 7\n"}, True),
    "assignment-other": ({"rpstar/local.py": "DEBUG = True\n"}, True),
    "private-name": ({"rpstar/local.py": "_TIMEOUT = 7\nDEBUG = True\n"}, True),
    "all-excludes": ({"rpstar/local.py": 'TIMEOUT = 7\nDEBUG = True\n__all__ = ["DEBUG"]\n'}, True),
    "all-lists": ({"rpstar/local.py": '__all__ = ("TIMEOUT",)\nTIMEOUT = 7\n'}, True),
    "all-added": ({"rpstar/local.py": '__all__ = ["DEBUG"]\n__all__ += ["TIMEOUT"]\nTIMEOUT = DEBUG = 7\n'}, True),
    "star-reexport-binds": (
        {"rpstar/local.py": "from .base import *\nDEBUG = True\n", "rpstar/base.py": "TIMEOUT = 7\n"},
        True,
    ),
    "star-reexport-other": (
        {"rpstar/local.py": "from .base import *\n", "rpstar/base.py": "DEBUG = True\n"},
        True,
    ),
    "star-reexport-absolute": (
        {"rpstar/local.py": "from rpstar.base import *\n", "rpstar/base.py": "def TIMEOUT():\n    return 7\n"},
        True,
    ),
    "star-reexport-all-excludes": (
        {"rpstar/local.py": "from .base import *\n", "rpstar/base.py": "__all__ = []\nTIMEOUT = 7\n"},
        True,
    ),
    "package-binds": ({"rpstar/local/__init__.py": "TIMEOUT = 7\n"}, True),
    # no such module: the import fails here, but a file added to the package later (a user's
    # local settings) would be read: neither can tell
    "no-module": ({}, False),
    "dynamic": ({"rpstar/local.py": "globals()['TIME' + 'OUT'] = 7\n"}, False),
    "all-appended": ({"rpstar/local.py": '__all__ = []\n__all__.append("TIMEOUT")\nTIMEOUT = 7\n'}, False),
    "other-distribution": ({"rpstar/local.py": "from rpother.conf import *\n"}, False),
}


def _files(variant: str) -> dict[str, str]:
    return {"rpstar/__init__.py": "", "rpstar/settings.py": SETTINGS, **VARIANTS[variant][0]}


def _runs_patched(tmp_path: Path, variant: str) -> bool:
    """The patched settings module run (with the other distribution installed): is TIMEOUT 50?"""
    root = tmp_path / "run"
    for rel, text in {**_files(variant), **OTHER}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(
            text.replace("TIMEOUT = 5\n", "TIMEOUT = 50\n") if rel.endswith("settings.py") else text
        )
    code = "import rpstar.settings as s; print(s.TIMEOUT == 50)"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_verify_and_apply_agree_on_a_later_star_import(
    variant: str,
    tmp_path: Path,
    site: Site,
    loopback: Callable[[str, Wheels], IndexServer],
    write_registry: Any,
    radpatch: Any,
) -> None:
    told = VARIANTS[variant][1]
    runs = _runs_patched(tmp_path, variant)
    reg = write_registry("timeout", ENTRY)

    loopback(DIST, {"1.0": dict(_files(variant))})
    r = radpatch("--registry", str(reg), "verify", "timeout", "--json")
    got = {x["version"]: x for x in json.loads(r.out)["results"]}["1.0"]
    verified = bool(got["ok"])
    if not verified:
        assert got["checks"]["placement"] is False, got
        assert "`from .local import *` at line 3" in got["error"], got

    site.install(DIST, "1.0", _files(variant))
    if variant == "other-distribution":  # apply reads it from the target's path: it is installed there
        site.install("rpother", "1.0", OTHER)
    a = radpatch("--registry", str(reg), "apply", "timeout")
    applied = a.code == 0
    if not applied:
        assert "`from .local import *` at line 3" in a.err and "Traceback" not in a.err, a.err

    assert verified == (told and runs), (variant, got["error"])
    if variant == "other-distribution":  # verify cannot read another distribution's module; apply can
        assert "cannot tell" in got["error"], got["error"]
        assert applied == runs, a.err
    else:
        assert applied == verified, (variant, a.err, got["error"])
        if not told:
            assert "cannot tell" in got["error"] and "cannot tell" in a.err, (got["error"], a.err)
