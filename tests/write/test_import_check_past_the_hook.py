"""`apply --import-check`: a write into the install that the check's read-only hook cannot stop is
found after the fact and refuses the run, naming the file (issue 21). The hook (prove.read_only) sits
in the check's interpreter and in the Python processes it starts with their site step and the
environment given; Python started with -I, -S or -E, a shell, and compiled code (ctypes calling libc)
went past it, and the check passed while the file was written into the install.

Generated: the writer (-I, -S, -E children, os.system, ctypes, the module's own open, which the hook
refuses: the control; a -I child that writes in place, same size, and puts the mtime back) times
what it writes (a new file beside the package, an existing module, a script in the venv's bin/).
Oracle: a fresh interpreter of a copy of the venv importing the module does write there;
radpatch's dry run then exits 1 naming the file, or (the control) leaves the install as it
was and says the check kept it read-only."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from radpatch.prove import read_only
from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site, tree_digest
from tests.lib.venvs import make_venv, site_packages

# the install's own path (the check imports the module from a copy of its package): through its metadata
HEAD = (
    "import ctypes, importlib.metadata, os, subprocess, sys, sysconfig\n"
    "TARGET = str(importlib.metadata.distribution('rpwc').locate_file('rpwc/{name}'))\n"
)
# the venv's scripts directory (bin/): not on the import path, yet the install's
SCRIPT_HEAD = (
    "import ctypes, os, subprocess, sys, sysconfig\n"
    "TARGET = os.path.join(sysconfig.get_paths()['scripts'], 'rpwc-tool')\n"
)
# same size, mtime put back: only the inode's change time tells
_KEEP_MTIME = (
    "import os, sys\n"
    "p = sys.argv[1]\n"
    "if not os.path.exists(p):\n    open(p, 'w').write('X')\n"
    "st = os.stat(p)\n"
    "with open(p, 'r+b') as f:\n    f.write(b'Y')\n"
    "os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))\n"
)
_CHILD = (
    "subprocess.run([sys.executable, {flag!r}, '-c', 'import sys; open(sys.argv[1], \"a\").write(\"x\")', TARGET])\n"
)
WRITERS = {
    "child-I": _CHILD.format(flag="-I"),
    "child-S": _CHILD.format(flag="-S"),
    "child-E": _CHILD.format(flag="-E"),
    "os-system": "os.system('echo x >> ' + TARGET)\n",
    "ctypes": (
        "_libc = ctypes.CDLL(None, use_errno=True)\n"
        "_libc.open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]\n"
        "_fd = _libc.open(TARGET.encode(), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)\n"
        "_libc.write(_fd, b'x', 1)\n_libc.close(_fd)\n"
    ),
    "child-I-same-size": f"subprocess.run([sys.executable, '-I', '-c', {_KEEP_MTIME!r}, TARGET])\n",
    "own-open": "try:\n    open(TARGET, 'a').write('x')\nexcept PermissionError:\n    pass\n",
}
WHAT = {"new-file": "rpwc-cache", "module": "other.py", "script": ""}


def _install(venv: Path, writer: str, what: str) -> None:
    make_venv(venv)
    head = SCRIPT_HEAD if what == "script" else HEAD.format(name=WHAT[what])
    code = head + WRITERS[writer] + "LIMIT = 3\n"
    files = {"rpwc/__init__.py": "", "rpwc/core.py": code, "rpwc/other.py": "X = 1\n"}
    Site(site_packages(venv)).install("rpwc", "1.0", files)


@pytest.mark.parametrize(("writer", "what"), sample(itertools.product(WRITERS, WHAT)))
def test_a_write_the_hook_cannot_stop_refuses_the_check(
    tmp_path: Path, write_registry: Any, radpatch: Any, writer: str, what: str
) -> None:
    venv = tmp_path / "venv"
    _install(venv, writer, what)
    oracle = tmp_path / "oracle"
    shutil.copytree(venv, oracle, symlinks=True)
    fresh = subprocess.run([oracle / "bin" / "python", "-B", "-c", "import rpwc.core"], capture_output=True)
    assert fresh.returncode == 0, fresh.stderr
    assert tree_digest(oracle) != tree_digest(venv), "the import does write into its install"
    spec = json.dumps({"scope": "<module>", "find": "LIMIT = 3", "with": "LIMIT = 5"})
    reg = write_registry(
        "wc", entry_head("wc", "rpwc", {"core": "rpwc.core"}) + f"  - id: r\n    file: core\n    replace: {spec}\n"
    )
    before = tree_digest(venv)

    r = radpatch("--registry", str(reg), "--python", str(venv), "apply", "--dry-run", "--import-check", "wc")

    assert "Traceback" not in r.err, r
    if writer == "own-open":  # the hook refuses it: nothing is written, and the check says so
        assert tree_digest(venv) == before, r
        assert r.code == 0 and "would patch" in r.out, r
        return
    written = (
        str(venv / "bin" / "rpwc-tool")
        if what == "script"
        else str(site_packages(venv).resolve() / "rpwc" / WHAT[what])
    )
    assert tree_digest(venv) != before  # written past the hook: the check cannot undo it, it says so
    assert r.code == 1, r
    assert "the install changed while the check imported" in r.err and written in r.err, r
    assert "radpatch restore" in r.err, r
    assert "would patch" not in r.out, r


@pytest.mark.parametrize("layout", sample(itertools.product(["site-packages", "dist-packages", "lib"], [True, False])))
def test_the_walk_covers_site_directories_and_scripts_not_a_checkout(tmp_path: Path, layout: tuple[str, bool]) -> None:
    name, has_dist_info = layout
    site = tmp_path / "venv" / name
    (site / "pkg").mkdir(parents=True)
    if has_dist_info:
        (site / "pkg-1.0.dist-info").mkdir()
    checkout = tmp_path / "checkout"  # an editable install's source tree: its own .git, not the install
    (checkout / ".git").mkdir(parents=True)
    scripts = tmp_path / "venv" / "bin"
    scripts.mkdir()
    roots = read_only.install_roots([str(checkout), str(site), str(site / "pkg")], str(scripts))
    is_site = name != "lib" or has_dist_info
    assert roots == sorted(str(p.resolve()) for p in ([scripts, site] if is_site else [scripts]))
