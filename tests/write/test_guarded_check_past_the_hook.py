"""A plain `apply` asks the target interpreter whether a guarded import succeeds (the placement
check, prove.guarded_imports) when a patch changes only its fallback: that child imports target
code, as the import check's does, and a write into the install its read-only hook cannot stop
(os.system, a child `python -I`/`-S`, compiled code opening the file) went unseen there while
`apply --import-check` refused it. The install is now watched around every child the target
interpreter runs for radpatch (prove.import_watch, beside the runner both use): found after the
fact, the write refuses the run, naming the file, and radpatch writes nothing.

Generated: the writer (os.system, -I and -S children, libc's open through ctypes, and os.open, which
the hook refuses: the control) times what it writes (a new file in the package, an existing module,
a script in the venv's bin/, found by its interpreter's path or by sysconfig: the guarded check's
interpreter ran without its site step, and sysconfig named the base interpreter's bin/ there). The
toy is a real wheel pip-installed into a fresh venv; its fast module writes and then raises
ImportError, so the fallback is what runs and the patch itself is sound.
Oracle: a fresh interpreter of a copy of the venv importing the module does write there; the apply
then exits 1 naming the file, and the install differs from before only by that file; the control
applies (the patched fallback in place). `diff`, which plans the patch as apply does, is refused too."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import tree_digest
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.walks import counted_walks
from tests.lib.wheels import build_wheel

# a real wheel pip-installed into a venv: the real tier (tests/lib/tier.py)
pytestmark = pytest.mark.wheel

# the install's own path (the check imports the module from a copy of its package): through its metadata
HEAD = (
    "import ctypes, importlib.metadata, os, subprocess, sys, sysconfig\n"
    "TARGET = str(importlib.metadata.distribution('rpgw').locate_file({name!r}))\n"
)
# the venv's scripts directory (bin/), the interpreter's own: not on the import path, yet the install's
# (not sysconfig's `scripts`: the guarded check's interpreter runs without its site step, where that
# is the base interpreter's)
SCRIPT_HEAD = (
    "import ctypes, os, subprocess, sys\nTARGET = os.path.join(os.path.dirname(sys.executable), 'rpgw-tool')\n"
)
_CHILD = (
    "subprocess.run([sys.executable, {flag!r}, '-c', 'import sys; open(sys.argv[1], \"a\").write(\"x\")', TARGET])\n"
)
WRITERS = {
    "os-system": "os.system('echo x >> ' + TARGET)\n",
    "child-I": _CHILD.format(flag="-I"),
    "child-S": _CHILD.format(flag="-S"),
    "libc-open": (
        "_libc = ctypes.CDLL(None, use_errno=True)\n"
        "_libc.open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]\n"
        "_fd = _libc.open(TARGET.encode(), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)\n"
        "_libc.write(_fd, b'x', 1)\n_libc.close(_fd)\n"
    ),
    "os-open": (  # the control: the hook refuses it
        "try:\n    _fd = os.open(TARGET, os.O_WRONLY | os.O_CREAT | os.O_APPEND)\n    os.write(_fd, b'x')\n"
        "    os.close(_fd)\nexcept PermissionError:\n    pass\n"
    ),
}
# the scripts directory as sysconfig says it: the venv's, as the venv's own interpreter sees it (a
# view of the base interpreter's is written as rpgw-base-view inside the venv, never outside it)
SYSCONFIG_HEAD = (
    "import ctypes, os, subprocess, sys, sysconfig\n"
    "_venv = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))\n"
    "TARGET = os.path.join(sysconfig.get_paths()['scripts'], 'rpgw-tool')\n"
    "if not os.path.abspath(TARGET).startswith(_venv + os.sep):\n"
    "    TARGET = os.path.join(_venv, 'rpgw-base-view')\n"
)
WHAT = {"new-file": "rpgw/rpgw-cache", "module": "rpgw/other.py", "script": "", "sysconfig-script": ""}
HEADS = {"script": SCRIPT_HEAD, "sysconfig-script": SYSCONFIG_HEAD}
CORE = "try:\n    from rpgw.fast{i} import f{i}\nexcept ImportError:\n    def f{i}():\n        return 1\n"
FAILS = "raise ImportError('its native library is missing')\n"


def _install(tmp: Path, fast: dict[str, str], fallbacks: int = 1) -> Path:
    """A venv with rpgw pip-installed from its wheel: core.py with `fallbacks` guarded imports."""
    venv = tmp / "venv"
    make_venv(venv)
    files = {
        "rpgw/__init__.py": "",
        "rpgw/other.py": "X = 1\n",
        "rpgw/core.py": "".join(CORE.format(i=i) for i in range(fallbacks)) + "LIMIT = 3\n",
        **{f"rpgw/fast{i}.py": fast.get(str(i), FAILS) for i in range(fallbacks)},
    }
    wheel = build_wheel(tmp / "dist", "rpgw", "1.0", files)
    pip(venv / "bin" / "python", "install", "--quiet", "--no-index", str(wheel))
    return venv


def _registry(write_registry: Any, fallbacks: int = 1) -> Path:
    rewrites = "".join(
        f"  - id: r{i}\n    file: core\n    replace: {{scope: f{i}, find: return 1, with: return 2}}\n"
        for i in range(fallbacks)
    )
    return write_registry("gw", entry_head("gw", "rpgw", {"core": "rpgw.core"}) + rewrites)


def _files(root: Path) -> dict[str, bytes | None]:
    return {str(p): (p.read_bytes() if p.is_file() and not p.is_symlink() else None) for p in root.rglob("*")}


@pytest.mark.parametrize(("writer", "what"), sample(itertools.product(WRITERS, WHAT)))
def test_a_write_past_the_hook_refuses_a_plain_apply(
    tmp_path: Path, write_registry: Any, radpatch: Any, writer: str, what: str
) -> None:
    head = HEADS[what] if what in HEADS else HEAD.format(name=WHAT[what])
    venv = _install(tmp_path, {"0": head + WRITERS[writer] + FAILS})
    oracle = tmp_path / "oracle"
    shutil.copytree(venv, oracle, symlinks=True)
    fresh = subprocess.run([oracle / "bin" / "python", "-B", "-c", "import rpgw.core"], capture_output=True)
    assert fresh.returncode == 0, fresh.stderr
    assert tree_digest(oracle) != tree_digest(venv), "the import does write into its install"
    reg = _registry(write_registry)
    site = site_packages(venv).resolve()
    before = _files(venv)

    # first `diff` (a process asks the target each question once): it plans the patch as apply does,
    # with no watch of its own, so its child is watched alone
    d = radpatch("--registry", str(reg), "--python", str(venv), "diff", "gw")
    r = radpatch("--registry", str(reg), "--python", str(venv), "apply", "gw")

    assert "Traceback" not in r.err + d.err, (r, d)
    if writer == "os-open":
        # the hook refused it: the fallback runs, the patch applies
        assert d.code == 0 and "+        return 2" in d.out, d
        assert r.code == 0 and "applied" in r.out, r
        assert b"return 2" in (site / "rpgw" / "core.py").read_bytes()
        return
    written = str(venv / "bin" / "rpgw-tool") if what in HEADS else str(site / WHAT[what])
    assert d.code == 1 and "placement check: the install changed while" in d.err and written in d.err, d
    assert r.code == 1, r
    assert "gw: placement check: the install changed while the target interpreter was asked" in r.err, r
    assert written in r.err and "radpatch restore" in r.err, r
    after = _files(venv)
    changed = {p for p in before.keys() | after.keys() if before.get(p, b"?") != after.get(p, b"?")}
    assert {os.path.realpath(p) for p in changed} == {os.path.realpath(written)}, r  # nothing of radpatch's
    assert not (site / ".radpatch").exists()


@pytest.mark.parametrize(("fallbacks", "import_check"), sample(itertools.product([1, 2, 4], [False, True])))
def test_one_snapshot_per_apply_however_many_children(
    tmp_path: Path,
    write_registry: Any,
    radpatch: Any,
    monkeypatch: pytest.MonkeyPatch,
    fallbacks: int,
    import_check: bool,
) -> None:
    """The install is walked before the first child and after the last (2 walks), not per child;
    with --import-check, the check starts from the walk the proof ended with (3 in all); a plain
    apply that asks the target nothing (no fallback changed) walks nothing."""
    venv = _install(tmp_path, {}, fallbacks)
    walks = counted_walks(monkeypatch)
    flags = ["--import-check"] if import_check else []
    reg = _registry(write_registry, fallbacks)
    r = radpatch("--registry", str(reg), "--python", str(venv), "apply", *flags, "gw")
    assert r.code == 0, r
    assert len(walks) == (3 if import_check else 2) and len(set(walks)) == 1, walks
    assert str(site_packages(venv).resolve()) in walks[0], walks
    assert radpatch("--registry", str(reg), "--python", str(venv), "revert", "gw").code == 0
    walks.clear()
    plain = entry_head("plain", "rpgw", {"core": "rpgw.core"}) + (
        "  - id: r\n    file: core\n    replace: {scope: <module>, find: LIMIT = 3, with: LIMIT = 5}\n"
    )
    reg = write_registry("plain", plain, dirname="plain")  # no fallback changed: no child
    r = radpatch("--registry", str(reg), "--python", str(venv), "apply", *flags, "plain")
    assert r.code == 0, r
    assert len(walks) == (2 if import_check else 0), walks


@pytest.mark.parametrize("writer", sample(w for w in WRITERS if w != "os-open"))
def test_a_write_past_the_hook_is_said_before_an_overlap(
    tmp_path: Path, write_registry: Any, radpatch: Any, writer: str
) -> None:
    """Two entries changing the same fallback, unordered: apply refuses the overlap; when the
    guarded check's child also wrote into the install, that is the refusal given (the overlap's
    refusal replaced it, and the changed files went unsaid)."""
    venv = _install(tmp_path, {"0": HEAD.format(name=WHAT["new-file"]) + WRITERS[writer] + FAILS})
    reg = _registry(write_registry)
    (reg / "gw2.yaml").write_text(
        entry_head("gw2", "rpgw", {"core": "rpgw.core"})
        + "  - id: r0\n    file: core\n    replace: {scope: f0, find: return 1, with: return 3}\n"
    )
    quiet = _install(tmp_path / "quiet", {})  # the control: no write, the overlap is the refusal
    for target, wrote in ((quiet, False), (venv, True)):
        r = radpatch("--registry", str(reg), "--python", str(target), "apply", "gw", "gw2")
        assert r.code == 1 and "Traceback" not in r.err, r
        assert ("the install changed while" in r.err) == wrote, r
        assert ("requires:" in r.err) != wrote, r
