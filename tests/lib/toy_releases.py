"""radpatch-toy: the small distribution the release tests build wheels of, one per version, and
serve from a loopback index (tests/releases/conftest.py's `loopback`), with the toy entry `port`
and `verify --all` are run on.

Its `size()` lives in rptoy/core.py up to 1.1; 2.0 moves it to rptoy/planning.py (core.py only
re-imports it); 2.1 rewrites its body (the rewrite's `find` is gone); 2.2 has no core.py at all;
3.0 already carries the change upstream."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

DIST = "radpatch-toy"
PKG = "rptoy"

GOOD = """\
def size(items):
    buckets = [items]
    n = len(items)
    return n
"""
REWRITTEN = """\
def size(items):
    buckets = [items]
    n = len(list(items))
    return n
"""
PATCHED = """\
def size(items):
    buckets = [items]
    n = len(items)
    n = min(n, len(buckets))
    return n
"""
RELEASES: dict[str, dict[str, str | bytes]] = {
    "1.0": {f"{PKG}/core.py": GOOD},
    "1.1": {f"{PKG}/core.py": GOOD, f"{PKG}/other.py": "def unrelated():\n    return 1\n"},
    "2.0": {f"{PKG}/core.py": "from rptoy.planning import size\n", f"{PKG}/planning.py": GOOD},
    "2.1": {f"{PKG}/core.py": REWRITTEN},
    "2.2": {f"{PKG}/planning.py": GOOD},  # core.py is gone altogether
    "3.0": {f"{PKG}/core.py": PATCHED},
}

# the toy entry's rewrites: its `cap` insertion into size()
REWRITES = """\
rewrites:
  - id: cap
    insert_after:
      scope: size
      find: n = len(items)
      code: n = min(n, len(buckets))
"""


def entry(supported: str, modules: str = f"  planner: {PKG}.core   # where size() lives\n") -> str:
    return f"""\
# a toy entry: its comments and layout must survive `port`
summary: Cap the toy's size by its buckets
description: A toy patch.
distribution: {DIST}
supported: "{supported}"    # the releases it was written for
modules:
{modules}
{REWRITES}"""


# a shorter size() the stacked-series tests move between releases
MOVED = "def size(items):\n    n = len(items)\n    return n\n"


# size() with the toy's cap, and without it (upstream took a deletion): the "obsolete upstream" tests'
# releases, and the deletion entry they verify (tests/releases/test_check_hint_obsolete_upstream.py,
# test_obsolete_installed_as_verified.py)
KEPT = "def size(items):\n    buckets = [items]\n    n = len(items)\n    n = min(n, len(buckets))\n    return n\n"
DROPPED = KEPT.replace("    n = min(n, len(buckets))\n", "")
UNCAP = """\
summary: Drop the toy's cap
description: A toy deletion upstream took in 1.1.
distribution: radpatch-toy
supported: ">=1.0"
modules:
  planner: rptoy.core
rewrites:
  - id: uncap
    delete:
      scope: size
      find: n = min(n, len(buckets))
"""


def run_size(tmp: Path, files: dict[str, str | bytes], qualified: bool) -> int:
    """size([1, 2, 3]) through the old name of rptoy.core (`Sizer().size` when `qualified`), the
    release's files written under `tmp` and run by Python: the port tests' oracle."""
    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(text if isinstance(text, bytes) else text.encode())
    call = "m.Sizer().size([1, 2, 3])" if qualified else "m.size([1, 2, 3])"
    code = f"import sys; sys.path.insert(0, {str(tmp)!r}); import rptoy.core as m; print({call})"
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout)


# the rename tests' entry (one line per key, so the refusals they read name its lines alike), size()
# renamed upstream, and their oracle: tests/releases/test_rename_*.py, test_store_index_counted.py
RENAME_ENTRY = f"""\
summary: s
description: d
distribution: {DIST}
supported: ">=1.0"
modules:
  planner: rptoy.core
rewrites:
  - id: cap
    insert_after: {{scope: size, find: n = len(items), code: "n = min(n, len(buckets))"}}
"""
RENAMED = GOOD.replace("def size(", "def size_of(")


def renamed_intact(tmp: Path, files: dict[str, str | bytes]) -> bool:
    """Python imports every module of the release: is `rptoy.core.size` still the renamed definition?"""
    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(text if isinstance(text, bytes) else text.encode())
    names = sorted(r[: -len(".py")].replace("/", ".").removesuffix(".__init__") for r in files)
    code = (
        f"import importlib, sys; sys.path.insert(0, {str(tmp)!r})\n"
        f"for n in {names!r}: importlib.import_module(n)\n"
        "import rptoy.core as c, rptoy.planning as p\n"
        "f = getattr(c, 'size', None)\n"
        "print(f is p.size_of and getattr(f, '__name__', '') == 'size_of' and f([1, 2, 3]) == 3)\n"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1] == "True"


# the vouched exec tests' release: rptoy.core binds the old name to the renamed definition, and
# rptoy/hook.py (HEAD + `hook`) runs code radpatch cannot read; ENTRIES: the places that run it
HOOK_HEAD = "import os\nimport sys\n\nfrom rptoy import core\n\n\n"


def hook_release(hook: str) -> dict[str, str | bytes]:
    return {
        "rptoy/__init__.py": "",
        "rptoy/core.py": "from rptoy import planning\n\nsize = planning.size_of\n",
        "rptoy/planning.py": RENAMED,
        "rptoy/hook.py": HOOK_HEAD + hook,
    }


def hook_keeps_rename(tmp: Path, files: dict[str, str | bytes]) -> bool:
    """Python runs every place of the hook that executes code (`ENTRIES`), with code storing the old
    name: is `rptoy.core.size` still the renamed definition after?"""
    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(text if isinstance(text, bytes) else text.encode())
    code = (
        f"import sys; sys.path.insert(0, {str(tmp)!r})\n"
        "import rptoy.hook as h, rptoy.core as c, rptoy.planning as p\n"
        "for f in h.ENTRIES: f('size = len')\n"
        "print(c.size is p.size_of)\n"
    )
    env = {**os.environ, "RPTOY_CODE": "size = len"}
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True, env=env)
    return done.stdout.strip().splitlines()[-1] == "True"
