"""Every subprocess that runs the target's code leaves the install as it was and no process behind
(imp39, issue 21 I1 and I4). The guarded-import check (a patch that changes the handler of a
`try: import x / except ImportError`) ran the package's `__init__`, and the module the try imports,
against the install on a plain `apply --dry-run`: what they wrote next to their `__file__` landed in
site-packages, a daemon they started ran on. The import check ran from a copy of the package, but a
write through a path taken from sysconfig or importlib.metadata still landed in the install.

Generated: what the target's code does at import (a file written next to its `__file__`, a
directory made there, a file written under `sysconfig.get_paths()['purelib']`, one under
`importlib.metadata.distribution(...).locate_file(...)`, a daemon in its own session, a child in
the same process group) times where it runs (the package's `__init__` as the guarded-import check
imports it; the module the guarded try imports; the patched module under `apply --import-check`).
The target is a bare venv whose site-packages holds the package, so its purelib is the install.
The oracle: a fresh interpreter of a copy of that venv importing the package does write there (or
start its process); after radpatch, a hash of the whole venv tree is as before and no process the
import started is running. A check the read-only install failed says so instead of judging."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lib.fallback_entry import ENTRY, REWRITE
from tests.lib.generated import sample
from tests.lib.processes import pid_directory, running
from tests.lib.registry import entry_head
from tests.lib.site import Site, tree_digest
from tests.lib.venvs import make_venv, site_packages

HEAD = "import os, sys, subprocess, sysconfig, importlib.metadata\nPIDS = {pids!r}\n"
EFFECTS = {  # module-level code that writes into the install, or leaves a process running
    "beside-file": "open(os.path.join(os.path.dirname(__file__), 'cache.json'), 'w').write('{{}}')\n",
    "beside-dir": "os.makedirs(os.path.join(os.path.dirname(__file__), 'kernels', 'k'), exist_ok=True)\n",
    "purelib": "open(os.path.join(sysconfig.get_paths()['purelib'], 'rpsb-cache'), 'w').write('x')\n",
    "metadata": "open(importlib.metadata.distribution('rpsb').locate_file('rpsb-marker'), 'w').write('x')\n",
    "setsid-daemon": (
        "if os.fork() == 0:\n    os.setsid()\n    open(os.path.join(PIDS, str(os.getpid())), 'w').close()\n"
        "    import time\n    while True:\n        time.sleep(60)\n"
        "while not os.listdir(PIDS):\n    pass\n"
    ),
    # a Python child writing into the install: the interpreter's own and another venv's (issue 21)
    "child-purelib": (
        "subprocess.run([sys.executable, '-c', 'import os, sysconfig; open(os.path.join(sysconfig.get_paths()"
        '["purelib"], "rpsb-child"), "w").write("x")\'])\n'
    ),
    "child-base-python": (  # the interpreter the venv was made from, writing into this venv
        "subprocess.run([getattr(sys, '_base_executable', sys.executable), '-c', 'import sys; "
        'open(sys.argv[1], "w").write("x")\', '
        "str(importlib.metadata.distribution('rpsb').locate_file('rpsb-base'))])\n"
    ),
    "group-child": (
        "_p = subprocess.Popen([sys.executable, '-c', 'import os, time; open(os.path.join(%r, str(os.getpid())), "
        '"w").close(); time.sleep(3600)\' % PIDS])\nwhile not os.listdir(PIDS):\n    pass\n'
    ),
}
WHERE = ("guarded-init", "guarded-tried", "import-check")
CORE_GUARDED = """\
try:
    from {tried} import f
except ImportError:
    def f():
        return 1


def value():
    return f()
"""


@pytest.fixture
def pids(tmp_path: Path) -> Iterator[Path]:
    with pid_directory(tmp_path / "pids") as where:
        yield where


def _files(effect: str, where: str, pids: Path) -> dict[str, str]:
    code = HEAD.format(pids=str(pids)) + EFFECTS[effect]
    if where == "import-check":
        return {"rpsb/__init__.py": "", "rpsb/core.py": code + "LIMIT = 3\n"}
    if where == "guarded-init":
        return {"rpsb/__init__.py": code, "rpsb/core.py": CORE_GUARDED.format(tried="rpsb_missing_accelerator")}
    return {
        "rpsb/__init__.py": "",
        "rpsb/core.py": CORE_GUARDED.format(tried="rpsb.fast"),
        "rpsb/fast.py": code + "raise ImportError('no accelerator here')\n",
    }


def _entry(where: str, write_registry: Any) -> tuple[Path, list[str]]:
    """The registry whose dry run runs the code where `where` says, and the apply options it needs."""
    if where == "import-check":
        spec = json.dumps({"scope": "<module>", "find": "LIMIT = 3", "with": "LIMIT = 5"})
        text = entry_head("sb", "rpsb", {"core": "rpsb.core"}) + f"  - id: r\n    file: core\n    replace: {spec}\n"
        return write_registry("sb", text), ["--import-check"]
    return write_registry("sb", ENTRY.format(rewrite=REWRITE).replace("rpfb", "rpsb")), []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize(("effect", "where"), sample(itertools.product(EFFECTS, WHERE)))
def test_the_target_code_radpatch_runs_leaves_the_install_and_no_process(
    tmp_path: Path, write_registry: Any, radpatch: Any, pids: Path, effect: str, where: str
) -> None:
    make_venv(tmp_path / "venv")
    Site(site_packages(tmp_path / "venv")).install("rpsb", "1.0", _files(effect, where, pids))
    copy = tmp_path / "oracle"
    shutil.copytree(tmp_path / "venv", copy, symlinks=True)
    with open(tmp_path / "oracle.err", "w+b") as err:  # a file: the process it leaves would hold a pipe open
        fresh = subprocess.run([copy / "bin" / "python", "-B", "-c", "import rpsb.core"], stdout=err, stderr=err)
        assert fresh.returncode == 0, err.seek(0) or err.read()
    daemon = effect.endswith(("daemon", "child"))
    assert (tree_digest(copy) != tree_digest(tmp_path / "venv")) or daemon, "the import does write into its install"
    assert not daemon or [p for p in pids.iterdir() if running(int(p.name))], "the import does leave a process"
    for p in pids.iterdir():
        os.kill(int(p.name), signal.SIGKILL)
        p.unlink()
    reg, extra = _entry(where, write_registry)
    before = tree_digest(tmp_path / "venv")

    r = radpatch("--registry", str(reg), "--python", str(tmp_path / "venv"), "apply", "--dry-run", *extra, "sb")

    assert tree_digest(tmp_path / "venv") == before, f"the install changed: {r}"
    started = [int(p.name) for p in pids.iterdir()]
    assert not daemon or started, r  # the check did run the code that starts it
    assert [p for p in started if running(p)] == [], f"left running after apply: {r}"
    if effect in ("purelib", "metadata"):  # the read-only install failed the import: said, not blamed
        said = "which the check keeps read-only" if where == "import-check" else "which radpatch keeps read-only"
        assert said in r.out + r.err, r
        assert r.code == (0 if where == "import-check" else 1), r
    else:
        assert r.code == 0, r
        assert "would patch" in r.out, r


def test_a_child_runs_the_sitecustomize_the_hook_stands_in_front_of(
    tmp_path: Path, write_registry: Any, radpatch: Any
) -> None:
    """The child's hook (read_only.CHILD) is a sitecustomize first on PYTHONPATH: the target's own
    sitecustomize still runs in the child, after it."""
    make_venv(tmp_path / "venv")
    site = site_packages(tmp_path / "venv")
    marks = tmp_path / "marks"
    marks.mkdir()
    (site / "sitecustomize.py").write_text(
        "import os\nif os.environ.get('RPSB_CHILD'):\n"
        f"    open(os.path.join({str(marks)!r}, str(os.getpid())), 'w').close()\n"
    )
    child = "subprocess.run([sys.executable, '-c', 'pass'], env={**os.environ, 'RPSB_CHILD': '1'}, check=True)\n"
    code = HEAD.format(pids=str(marks)) + child + "LIMIT = 3\n"
    Site(site).install("rpsb", "1.0", {"rpsb/__init__.py": "", "rpsb/core.py": code})
    spec = json.dumps({"scope": "<module>", "find": "LIMIT = 3", "with": "LIMIT = 5"})
    reg = write_registry(
        "sb", entry_head("sb", "rpsb", {"core": "rpsb.core"}) + f"  - id: r\n    file: core\n    replace: {spec}\n"
    )
    before = tree_digest(tmp_path / "venv")

    venv = str(tmp_path / "venv")
    r = radpatch("--registry", str(reg), "--python", venv, "apply", "--dry-run", "--import-check", "sb")

    assert r.code == 0 and "would patch" in r.out, r
    assert tree_digest(tmp_path / "venv") == before
    assert list(marks.iterdir()), "the target's sitecustomize did not run in the child"


@pytest.mark.parametrize("where", WHERE)
def test_the_target_code_sees_its_venvs_sysconfig_paths(
    tmp_path: Path, write_registry: Any, radpatch: Any, pids: Path, where: str
) -> None:
    """The hook asks sysconfig for the paths to keep read-only before site has set the venv's prefix
    (the interpreter runs -S): what sysconfig worked out then (the base interpreter's purelib) was
    kept, so the module's own `sysconfig.get_paths()` named another directory than it does when
    the venv imports it. Oracle: a fresh interpreter of the venv imports it."""
    make_venv(tmp_path / "venv")
    code = (
        "import sys, sysconfig\nif not sysconfig.get_paths()['purelib'].startswith(sys.prefix):\n"
        "    raise ImportError('purelib ' + sysconfig.get_paths()['purelib'] + ' not under ' + sys.prefix)\n"
    )
    files = _files("beside-file", where, pids)
    for name, text in files.items():
        if text.startswith(HEAD.format(pids=str(pids))):
            files[name] = text.replace(EFFECTS["beside-file"], code)
    Site(site_packages(tmp_path / "venv")).install("rpsb", "1.0", files)
    fresh = subprocess.run([tmp_path / "venv" / "bin" / "python", "-B", "-c", "import rpsb.core"], capture_output=True)
    assert fresh.returncode == 0, fresh.stderr
    reg, extra = _entry(where, write_registry)

    r = radpatch("--registry", str(reg), "--python", str(tmp_path / "venv"), "apply", "--dry-run", *extra, "sb")

    assert r.code == 0 and "would patch" in r.out, r
    assert "purelib" not in r.out + r.err, r
