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
from collections.abc import Mapping
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


# a shorter size() the stacked-series tests move between releases (tests/releases/test_moved_stacked*.py,
# test_port_series.py): in core.py in 1.0, in planning.py in 2.0; `first` counts one more in it, and
# `second` (requires: [first]) caps what it counts
MOVED = "def size(items):\n    n = len(items)\n    return n\n"
MOVED_WHEELS: dict[str, dict[str, str | bytes]] = {
    "1.0": {f"{PKG}/__init__.py": "", f"{PKG}/core.py": MOVED},
    "2.0": {f"{PKG}/__init__.py": "", f"{PKG}/planning.py": MOVED},  # moved
}


def first_entry(description: str, supported: str, modules: str = "  core: rptoy.core\n") -> str:
    """`first`: `more` counts one more in size(), in `modules` (the YAML under `modules:`)."""
    return f"""\
summary: Count one more
description: {description}
distribution: {DIST}
supported: "{supported}"
modules:
{modules}rewrites:
  - id: more
    replace: {{scope: size, find: n = len(items), with: "n = len(items) + 1"}}
"""


def second_entry(description: str, supported: str) -> str:
    """`second`, written on first's result: `cap` caps what `more` counts, in rptoy.core."""
    return f"""\
summary: Cap what the first entry counts
description: {description}
distribution: {DIST}
supported: "{supported}"
requires: [first]
modules:
  core: rptoy.core
rewrites:
  - id: cap
    insert_after: {{scope: size, find: "n = len(items) + 1", code: "n = min(n, 4)"}}
"""


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


def write_release(tmp: Path, files: dict[str, str | bytes]) -> None:
    """A release's files written under `tmp`, as its wheel would lay them out: what the oracles import."""
    for rel, text in files.items():
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_bytes(text if isinstance(text, bytes) else text.encode())


def size_from(tmp: Path, files: dict[str, str | bytes]) -> tuple[str, str]:
    """(module, name) of the `size` rptoy.core gives once imported ("None" where it has none): the
    release written under `tmp` and run by Python, the moved tests' oracle (`size.__module__` says
    where the code that runs lives)."""
    write_release(tmp, files)
    code = (
        f"import sys; sys.path.insert(0, {str(tmp)!r}); import rptoy.core as m; s = getattr(m, 'size', None); "
        "print(getattr(s, '__module__', None), getattr(s, '__name__', None))"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    module, name = done.stdout.split()
    return module, name


def run_size(tmp: Path, files: dict[str, str | bytes], qualified: bool) -> int:
    """size([1, 2, 3]) through the old name of rptoy.core (`Sizer().size` when `qualified`), the
    release's files written under `tmp` and run by Python: the port tests' oracle."""
    write_release(tmp, files)
    call = "m.Sizer().size([1, 2, 3])" if qualified else "m.size([1, 2, 3])"
    code = f"import sys; sys.path.insert(0, {str(tmp)!r}); import rptoy.core as m; print({call})"
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout)


def cap_entry(supported: str, module: str = "rptoy.core") -> str:
    """The toy's `cap` as a terse entry (one line per key, so the refusals the tests read name its lines
    alike), for `supported`, its module declared `module`."""
    return f"""\
summary: s
description: d
distribution: {DIST}
supported: "{supported}"
modules:
  planner: {module}
rewrites:
  - id: cap
    insert_after: {{scope: size, find: n = len(items), code: "n = min(n, len(buckets))"}}
"""


# the rename tests' entry, size() renamed upstream, and their oracle: tests/releases/test_rename_*.py,
# test_store_index_counted.py
RENAME_ENTRY = cap_entry(">=1.0")
RENAMED = GOOD.replace("def size(", "def size_of(")


def commented_cap_entry(scope: str) -> str:
    """`cap` on `scope`, for >=1.0, with comments beside its keys (`port` keeps them and its layout):
    tests/releases/test_port_rename_shapes.py, test_rename_refusal_said.py."""
    return f"""\
# a toy entry: comments and layout stay
summary: s
description: d
distribution: {DIST}
supported: ">=1.0"   # written for 1.0
modules:
  planner: rptoy.core  # where size() lives
rewrites:
  - id: cap   # the cap
    insert_after: {{scope: {scope}, find: n = len(items), code: "n = min(n, len(buckets))"}}
"""


def renamed_intact(tmp: Path, files: dict[str, str | bytes]) -> bool:
    """Python imports every module of the release: is `rptoy.core.size` still the renamed definition?"""
    write_release(tmp, files)
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


def hook_release(hook: str, others: Mapping[str, str] | None = None) -> dict[str, str | bytes]:
    """A release whose rptoy/hook.py is HOOK_HEAD + `hook`, with `others` (path: text) beside it."""
    return {
        "rptoy/__init__.py": "",
        "rptoy/core.py": "from rptoy import planning\n\nsize = planning.size_of\n",
        "rptoy/planning.py": RENAMED,
        "rptoy/hook.py": HOOK_HEAD + hook,
        **(others or {}),
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
