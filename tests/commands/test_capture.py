"""`radpatch capture NAME [PATH...]`: an entry from edits already made to installed files.

rcap 1.0 is built as a wheel (tests/lib/wheels.py) and pip-installed into a venv; each test edits
a private copy by hand, and radpatch runs as its own process on it. The pristine bytes come from
a loopback index by range requests (tests/lib/index_server.py) or from `--wheel FILE` offline.
What capture writes is compared with what `radpatch import` writes for the same change as a
unified diff; refusals leave the venv and the out directory as they were."""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.processes import clean_env
from tests.lib.registry import write_entry
from tests.lib.site import recorded_sha256
from tests.lib.venvs import Venv, make_venv, pip
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

CORE = textwrap.dedent('''\
    """rcap's planner."""
    import os


    def plan(spec):
        # the upstream size
        size = 4
        if os.environ.get("RCAP_BIG"):
            size = 16
        return len(spec) * size


    class Planner:
        def pick(self, sizes):
            return min(sizes)
    ''')
UTIL = "def scale(x):\n    return x * 2\n"
FILES: dict[str, str | bytes] = {
    "rcap/__init__.py": "",
    "rcap/core.py": CORE,
    "rcap/sub/__init__.py": "",
    "rcap/sub/util.py": UTIL,
    "rcap/table.json": "{}\n",
    # incompressible, so reading the whole wheel would show in the bytes the index sent
    "rcap/blob.bin": os.urandom(300_000),
}
# a hand edit: a constant changed, a helper defined and called, a method's return changed
EDITED_CORE = (
    CORE.replace("size = 4", "size = 8")
    .replace("def plan(spec):", "def _double(n):\n    return n * 2\n\n\ndef plan(spec):")
    .replace("return len(spec) * size", "return _double(len(spec) * size)")
    .replace("return min(sizes)", "return max(sizes)")
)
NEW_MODULE = '"""Added by hand."""\n\n\ndef helper():\n    return 42\n'
UNLISTED = "no RECORD lists it and radpatch did not create it"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Rcap:
    wheel: Path
    template: Venv


def installed(root: Path, *wheels: Path) -> Venv:
    """A new venv at `root` with `wheels` pip-installed (--no-deps, offline)."""
    make_venv(root)
    venv = Venv(root)
    pip(venv.python, "install", "--no-deps", "--no-index", "--quiet", *map(str, wheels))
    return venv


@pytest.fixture(scope="session")
def rcap(tmp_path_factory: pytest.TempPathFactory) -> Rcap:
    """rcap 1.0's wheel, pip-installed into a template venv with another distribution (rother),
    once per session."""
    base = tmp_path_factory.mktemp("rcap")
    wheel = build_wheel(base / "wheels", "rcap", "1.0", FILES)
    other = build_wheel(base / "wheels", "rother", "1.0", {"rother/__init__.py": "", "rother/m.py": "A = 1\n"})
    return Rcap(wheel, installed(base / "venv", wheel, other))


@dataclass
class Target:
    """A private copy of the venv, radpatch pointed at it with --python: in this process through
    cli.main (the real error handler), or as its own process."""

    venv: Venv
    wheel: Path
    cwd: Path
    env: dict[str, str]  # PIP_* and RADPATCH_* settings for radpatch
    capsys: pytest.CaptureFixture[str]

    @property
    def site(self) -> Path:
        return self.venv.site

    def run(self, *args: str, registry: Path | None = None, process: bool = False) -> subprocess.CompletedProcess[str]:
        reg = ["--registry", str(registry)] if registry else []
        argv = ["--python", str(self.venv.python), *reg, *args]
        if process:
            env = {k: v for k, v in clean_env().items() if not k.startswith("PIP_") and "proxy" not in k.lower()}
            return subprocess.run(
                [sys.executable, "-m", "radpatch", *argv],
                capture_output=True,
                text=True,
                timeout=120,
                env={**env, **self.env},
                cwd=self.cwd,
            )
        from radpatch.cli import main

        with pytest.MonkeyPatch.context() as mp:
            for k in list(os.environ):
                if k.startswith(("PIP_", "RADPATCH_")) or "proxy" in k.lower():
                    mp.delenv(k)
            for k, v in self.env.items():
                mp.setenv(k, v)
            mp.chdir(self.cwd)
            self.capsys.readouterr()
            code = main(argv)
            out, err = self.capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, out, err)

    @property
    def offline(self) -> tuple[str, str]:
        """The options that read the pristine bytes from rcap's wheel file, not an index."""
        return ("--wheel", str(self.wheel))

    def record_sha(self, rel: str) -> str | None:
        return recorded_sha256(self.site / "rcap-1.0.dist-info" / "RECORD", rel)

    def edit(self, rel: str, text: str) -> Path:
        path = self.site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def snapshot(self) -> dict[str, bytes]:
        """Every file of the venv and of the working directory (the out directory), by content."""
        out = {}
        for top in (self.venv.root, self.cwd):
            for p in sorted(top.rglob("*")):
                if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts:
                    out[str(p)] = p.read_bytes()
        return out


@pytest.fixture
def target(rcap: Rcap, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Target:
    venv = Venv(Path(shutil.copytree(rcap.template.root, tmp_path / "venv", symlinks=True)))
    cwd = tmp_path / "work"
    cwd.mkdir()
    env = {"PIP_CONFIG_FILE": os.devnull, "RADPATCH_CACHE": str(tmp_path / "cache")}
    env["PIP_INDEX_URL"] = "http://127.0.0.1:9/simple/"  # nothing listens: a test that needs an index starts one
    return Target(venv, rcap.wheel, cwd, env, capsys)


@pytest.fixture
def index(target: Target, rcap: Rcap) -> Iterator[Callable[[dict[str, str | bytes] | None], IndexServer]]:
    """index(files=None) -> a loopback index serving rcap 1.0's wheel (or one built of `files`), with Range."""
    started: list[IndexServer] = []

    def start(files: dict[str, str | bytes] | None = None) -> IndexServer:
        served = target.cwd.parent / "served"
        if files is None:
            served.mkdir()
            shutil.copy(rcap.wheel, served)
        else:
            build_wheel(served, "rcap", "1.0", files)
        server = IndexServer(served)
        server.thread.start()
        started.append(server)
        target.env["PIP_INDEX_URL"] = server.url
        return server

    yield start
    for server in started:
        server.httpd.shutdown()
        server.httpd.server_close()


@pytest.fixture
def edited(target: Target) -> Path:
    """rcap/core.py edited by hand (EDITED_CORE): the edit most tests capture."""
    return target.edit("rcap/core.py", EDITED_CORE)


def entry_of(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return data


def unified(rel: str, before: str | None, after: str) -> str:
    old = [] if before is None else before.splitlines(keepends=True)
    head = ["--- /dev/null\n" if before is None else f"--- a/{rel}\n", f"+++ b/{rel}\n"]
    return "".join(head + list(difflib.unified_diff(old, after.splitlines(keepends=True), n=3))[2:])


# --- capturing ------------------------------------------------------------------------------------------


def test_hand_edits_are_captured_as_import_writes_them_read_applied_and_revert_to_record_bytes(
    target: Target, index: Any, edited: Path
) -> None:
    server = index()
    core = edited
    inode = core.stat().st_ino

    r = target.run("capture", "fix_core", "--distribution", "rcap", "--out", "reg", process=True)

    assert r.returncode == 0, r.stderr
    assert "captured rcap/core.py (rcap 1.0)" in r.stdout and "range requests" in r.stdout, r.stdout
    assert "fix_core: adopted: rcap.core already carries this patch's result" in r.stdout, r.stdout
    assert "left out rcap/table.json" not in r.stdout  # it is as installed
    # the status command it prints next, run as printed, reads the same environment (att54 #4: no --python)
    printed = shlex.split(r.stdout.rsplit("try: ", 1)[1].split(";")[0])
    assert printed[:3] == ["radpatch", "--python", str(target.venv.python)], r.stdout
    followed = subprocess.run(
        [sys.executable, "-m", "radpatch", *printed[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(),
        cwd=target.cwd,
        check=False,
    )
    assert followed.returncode == 0 and "fix_core" in followed.stdout and "applied" in followed.stdout, followed
    # the edited file was not rewritten: same bytes, same inode
    assert core.read_text() == EDITED_CORE and core.stat().st_ino == inode
    # read from the index by range requests: the zip's tail and core.py, not the 300 kB blob
    assert 0 < server.sent(".whl") < target.wheel.stat().st_size // 2
    assert all(h.status == 206 for h in server.requests("/files/"))

    # the entry is the one `radpatch import` writes for the same change as a unified diff
    patch = target.cwd / "fix_core.patch"
    patch.write_text(unified("rcap/core.py", CORE, EDITED_CORE))
    core.write_text(CORE)
    imported = target.run("import", "-p1", "--out", "imported", str(patch))
    assert imported.returncode == 0, imported.stderr
    core.write_text(EDITED_CORE)
    captured, want = entry_of(target.cwd / "reg" / "fix_core.yaml"), entry_of(target.cwd / "imported" / "fix_core.yaml")
    for key in ("distribution", "supported", "modules", "rewrites"):
        assert captured[key] == want[key], key
    assert {op for rw in captured["rewrites"] for op in rw} >= {"replace", "insert_definitions"}, captured
    assert captured["supported"] == "==1.0" and "rcap/core.py" in captured["description"]
    payloads = sorted(p.relative_to(target.cwd / "reg") for p in (target.cwd / "reg").rglob("*.py"))
    assert payloads == sorted(p.relative_to(target.cwd / "imported") for p in (target.cwd / "imported").rglob("*.py"))
    for rel in payloads:
        body = (target.cwd / "reg" / rel).read_text()
        assert "(written by `radpatch capture`)" in body.splitlines()[0]
        assert body.split("\n", 1)[1] == (target.cwd / "imported" / rel).read_text().split("\n", 1)[1]

    reg = target.cwd / "reg"
    status = json.loads(target.run("status", "--json", "fix_core", registry=reg).stdout)
    assert [s["state"] for s in status] == ["applied"], status
    record = json.loads((target.site / ".radpatch" / "record.json").read_text())["patches"]
    assert list(record) == ["fix_core"] and record["fix_core"]["files"][0]["patched_sha256"] == sha(
        EDITED_CORE.encode()
    )
    assert target.run("status", "--check", "fix_core", registry=reg).returncode == 0

    reverted = target.run("revert", "fix_core", registry=reg)
    assert reverted.returncode == 0, reverted.stderr
    assert sha(core.read_bytes()) == target.record_sha("rcap/core.py")
    assert target.run("status", "--check", "fix_core", registry=reg).returncode == 3


def test_wheel_file_reads_the_pristine_bytes_offline(target: Target) -> None:
    target.edit("rcap/sub/util.py", UTIL.replace("x * 2", "x * 3"))
    r = target.run("capture", "scale3", "rcap/sub/util.py", *target.offline)
    assert r.returncode == 0, r.stderr
    assert f"from {target.wheel.name} ({target.wheel})" in r.stdout, r.stdout
    entry = entry_of(target.cwd / "scale3.yaml")  # --out defaults to the current directory, as import's
    assert entry["modules"] == {"util": "rcap.sub.util"}
    assert entry["rewrites"] == [
        {"id": "replace-scale", "replace": {"scope": "scale", "find": "x * 2", "with": "x * 3"}}
    ], entry
    reg = target.cwd
    assert target.run("status", "--check", "scale3", registry=reg).returncode == 0
    assert target.run("revert", "scale3", registry=reg).returncode == 0
    assert sha((target.site / "rcap/sub/util.py").read_bytes()) == target.record_sha("rcap/sub/util.py")


def test_paths_as_module_names_absolute_paths_and_directories(target: Target) -> None:
    util = target.edit("rcap/sub/util.py", UTIL.replace("x * 2", "x * 5"))
    target.edit("rcap/core.py", CORE.replace("size = 4", "size = 6"))
    for i, paths in enumerate((("rcap.sub.util",), (str(util),), ("rcap/sub",), (str(util.parent),))):
        r = target.run("capture", f"e{i}", *paths, *target.offline, "--dry-run")
        assert r.returncode == 0, (paths, r.stderr)
        assert "rcap.sub.util" in r.stdout and "rcap.core" not in r.stdout, (paths, r.stdout)
    # a package's module name is its __init__ alone: said, with the directory to give (att54 #5)
    r = target.run("capture", "init", "rcap.sub", *target.offline, "--dry-run")
    assert r.returncode == 1 and "rcap.sub (the module rcap/sub/__init__.py" in r.stderr, r.stderr
    assert "its directory rcap/sub/" in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = target.run("capture", "both", "rcap/", *target.offline, "--dry-run")  # the package's directory: both edits
    assert "  core: rcap.core\n" in r.stdout and "  util: rcap.sub.util\n" in r.stdout, r.stdout
    assert list(target.cwd.iterdir()) == []  # --dry-run writes nothing


def test_dry_run_prints_the_entry_and_records_nothing(target: Target, edited: Path) -> None:
    before = target.snapshot()
    r = target.run("capture", "fix", "--distribution", "rcap", *target.offline, "--dry-run")
    assert r.returncode == 0, r.stderr
    said = "# rcap 1.0: the pristine bytes of 1 file from rcap-1.0-py3-none-any.whl ("
    assert r.stdout.startswith(said) and "\n# would write fix.yaml\nsummary: Hand edits to rcap/core.py" in r.stdout
    assert yaml.safe_load(r.stdout)["modules"] == {"core": "rcap.core"}  # the notes are YAML comments
    assert "# would write fix/define-_double.py (" in r.stdout, r.stdout
    assert target.snapshot() == before
    assert not (target.site / ".radpatch").exists()


def test_non_python_files_comment_edits_and_bytecode_are_left_out_and_said(target: Target) -> None:
    target.edit("rcap/table.json", '{"edited": true}\n')
    target.edit("rcap/notes.txt", "new, not a module\n")
    target.edit("rcap/__pycache__/core.cpython-311.pyc", "bytecode")
    target.edit("rcap/sub/util.py", "# a comment added by hand\n" + UTIL)
    target.edit("rcap/core.py", CORE.replace("size = 4", "size = 5"))
    r = target.run("capture", "five", "--distribution", "rcap", *target.offline)
    assert r.returncode == 0, r.stderr
    said = [ln for ln in r.stdout.splitlines() if ln.startswith("left out")]
    assert said == [
        "left out rcap/table.json: not a Python module",
        "left out rcap/notes.txt: not a Python module",
        "left out rcap/sub/util.py: only comments or layout changed: no code to capture",
    ], r.stdout
    assert entry_of(target.cwd / "five.yaml")["modules"] == {"core": "rcap.core"}


def test_a_new_module_is_left_out_never_a_module_the_entry_creates(target: Target) -> None:
    """fix64: no RECORD lists it and radpatch did not create it (tests/commands/test_capture_unlisted.py)."""
    target.edit("rcap/sub/extra.py", NEW_MODULE)
    target.edit("rcap/core.py", CORE.replace("size = 4", "size = 12"))
    r = target.run("capture", "extra", "--distribution", "rcap", "--dry-run", *target.offline)
    assert r.returncode == 0, r.stderr
    assert f"left out rcap/sub/extra.py: {UNLISTED}" in r.stdout, r.stdout
    assert "create_module:" not in r.stdout and "# would write extra/rcap/sub/extra.py" not in r.stdout, r.stdout


def test_without_path_the_vllm_package_is_the_default_even_from_a_fork(tmp_path: Path) -> None:
    """No PATH, no --distribution: the distribution installing the `vllm` package (here a fork's name)."""
    wheel = build_wheel(tmp_path / "w", "vllm-fork", "0.1.0", {"vllm/__init__.py": "", "vllm/x.py": "A = 1\n"})
    venv = installed(tmp_path / "venv", wheel)
    (venv.site / "vllm" / "x.py").write_text("A = 2\n")
    cmd = [sys.executable, "-m", "radpatch", "--python", str(venv.python), "capture", "a2", "--wheel", str(wheel)]
    r = subprocess.run([*cmd, "--dry-run"], capture_output=True, text=True, timeout=120, env=clean_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "distribution: vllm-fork\nsupported: ==0.1.0\n" in r.stdout and "  x: vllm.x\n" in r.stdout, r.stdout


# --- refusals: exit code, one clear message, nothing written -------------------------------------------


def bump_registry(target: Target) -> Path:
    """A registry `shipped` beside the target's working directory, holding `bump` (util's scale: x * 7)."""
    return write_entry(
        target.cwd.parent / "shipped",
        "bump",
        """\
        summary: bump
        description: bump
        distribution: rcap
        supported: ">=1.0"
        modules:
          util: rcap.sub.util
        rewrites:
          - id: bump
            replace: {scope: scale, find: "x * 2", with: "x * 7"}
        """,
    ).parent


def refused(target: Target, code: int, *args: str, says: tuple[str, ...]) -> str:
    before = target.snapshot()
    r = target.run(*args)
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.startswith("radpatch: error: "), r.stderr
    for s in says:
        assert s in r.stderr, r.stderr
    assert target.snapshot() == before
    return r.stderr


def test_nothing_differs(target: Target) -> None:
    refused(
        target,
        1,
        "capture",
        "none",
        "--distribution",
        "rcap",
        says=("nothing to capture: no module of rcap 1.0 differs from its RECORD in rcap 1.0's files", "hint: edit"),
    )
    refused(target, 1, "capture", "none", "rcap/core.py", says=("in rcap/core.py",))


def test_a_path_in_no_installed_distribution_or_not_a_module(target: Target, tmp_path: Path) -> None:
    (target.site / "loose.py").write_text("X = 1\n")
    refused(target, 2, "capture", "x", "loose.py", says=("loose.py is in no installed distribution",))
    outside = tmp_path / "elsewhere.py"
    outside.write_text("X = 1\n")
    refused(target, 2, "capture", "x", str(outside), says=("not under a directory of",))
    refused(target, 2, "capture", "x", "rcap/nothing_here.py", says=("no such file or module",))
    target.edit("rcap/table.json", "[]\n")
    refused(target, 2, "capture", "x", "rcap/table.json", says=("not a Python module; capture records",))
    refused(
        target, 2, "capture", "x", "--distribution", "nosuchdist", says=("--distribution nosuchdist: not installed",)
    )
    refused(target, 2, "capture", "x", says=("no installed distribution provides the vllm package",))


def test_the_pristine_bytes_must_hash_to_record(target: Target, index: Any, edited: Path, tmp_path: Path) -> None:
    index({**FILES, "rcap/core.py": CORE + "# rebuilt\n"})  # same name and version, other bytes
    refused(
        target,
        1,
        "capture",
        "fix",
        "rcap/core.py",
        says=(
            "does not hash to the installed RECORD's sha256: the wheel on the package index is not the one",
            "--wheel",
        ),
    )
    other = build_wheel(tmp_path / "other", "rcap", "1.0", {**FILES, "rcap/core.py": "X = 1\n"})
    refused(
        target,
        1,
        "capture",
        "fix",
        "rcap/core.py",
        "--wheel",
        str(other),
        says=("is not the wheel it was installed from",),
    )


def test_an_edit_that_does_not_parse_is_refused_at_its_line(target: Target) -> None:
    path = target.edit("rcap/core.py", CORE.replace("size = 4", "size = = 4"))
    line = CORE.splitlines().index("    size = 4") + 1
    refused(
        target,
        1,
        "capture",
        "fix",
        "rcap/core.py",
        *target.offline,
        says=(f"{path}:{line}: the edited module does not parse", "radpatch restore rcap/core.py"),
    )


def test_an_existing_entry_is_never_overwritten(target: Target, edited: Path) -> None:
    write_entry(target.cwd, "fix", "summary: mine\n")
    refused(target, 1, "capture", "fix", "--distribution", "rcap", says=("fix.yaml exists already",))
    refused(target, 2, "capture", "bad name", "--distribution", "rcap", says=("NAME 'bad name'",))
    refused(target, 2, "capture", "ok", "--supported", "1.0", says=("--supported '1.0' is not a PEP 440",))


def test_files_radpatch_patched_are_refused_when_named_and_left_out_of_a_scan(target: Target) -> None:
    reg = bump_registry(target)
    assert target.run("apply", "bump", registry=reg).returncode == 0
    refused(
        target,
        1,
        "capture",
        "x",
        "rcap/sub/util.py",
        says=("rcap/sub/util.py carries radpatch's patch bump", "radpatch revert bump"),
    )
    target.edit("rcap/core.py", CORE.replace("size = 4", "size = 9"))
    r = target.run("capture", "nine", "--distribution", "rcap", *target.offline, "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "left out rcap/sub/util.py: carries radpatch's patch bump" in r.stdout, r.stdout
    assert "rcap.sub.util" not in r.stdout.split("modules:")[1]
    # edited again after radpatch patched it: captured on top of bump, whose entry must be given
    target.edit("rcap/sub/util.py", UTIL.replace("x * 2", "x * 8"))
    refused(
        target,
        1,
        "capture",
        "x",
        "--distribution",
        "rcap",
        *target.offline,
        says=("x would require bump (rcap/sub/util.py was edited on top of it)", "--registry DIR"),
    )


def test_a_deleted_module_and_paths_of_two_distributions_are_refused(target: Target) -> None:
    (target.site / "rcap" / "sub" / "util.py").unlink()
    refused(
        target,
        1,
        "capture",
        "x",
        "--distribution",
        "rcap",
        says=("rcap/sub/util.py (rcap 1.0) was deleted; an entry cannot delete a module", "radpatch restore"),
    )
    target.edit("rother/m.py", "A = 2\n")
    target.edit("rcap/core.py", EDITED_CORE)
    refused(target, 2, "capture", "x", "rcap/core.py", "rother/m.py", says=("the paths belong to 2 distributions",))


def test_an_entry_apply_refuses_is_removed_again(target: Target, edited: Path) -> None:
    """--supported leaving out the installed version: apply refuses to record it, and capture keeps nothing."""
    err = refused(
        target,
        1,
        "capture",
        "fix",
        "rcap/core.py",
        *target.offline,
        "--supported",
        ">=2",
        says=("fix: cannot apply: incompatible",),
    )
    assert "hint: capture kept no entry (fix.yaml removed); install a supported version" in err, err


def test_a_long_list_of_left_out_files_is_cut_short(target: Target) -> None:
    for i in range(23):
        target.edit(f"rcap/data/{i:02}.txt", "not a module\n")
    target.edit("rcap/core.py", CORE.replace("size = 4", "size = 5"))
    r = target.run("capture", "five", "--distribution", "rcap", *target.offline, "--dry-run")
    assert r.returncode == 0, r.stderr
    said = [ln for ln in r.stdout.splitlines() if ln.startswith("# left out")]  # --dry-run: YAML comments
    assert said[:2] == [
        "# left out rcap/data/00.txt: not a Python module",
        "# left out rcap/data/01.txt: not a Python module",
    ]
    assert len(said) == 21 and said[-1] == "# left out 3 more files as well", said


# --- recorded by apply's adopt path: the record, comment edits, the proof ---------------------------------


def test_the_capture_is_in_radpatchs_record_and_reverts_byte_for_byte_with_comment_edits(target: Target) -> None:
    """A code edit and a comment edit in one file: recorded (status --check without names passes),
    and revert gives RECORD's bytes back, comment included, from the kept original."""
    core = target.edit("rcap/core.py", EDITED_CORE.replace("# the upstream size", "# size, tuned by hand"))
    edited = core.read_bytes()
    r = target.run("capture", "tuned", "rcap/core.py", *target.offline)
    assert r.returncode == 0, r.stderr
    assert "tuned: adopted: rcap.core already carries this patch's result" in r.stdout, r.stdout
    assert core.read_bytes() == edited
    record = json.loads((target.site / ".radpatch" / "record.json").read_text())["patches"]
    assert [f["path"] for f in record["tuned"]["files"]] == ["rcap/core.py"]
    assert record["tuned"]["files"][0]["original_sha256"] == target.record_sha("rcap/core.py")
    assert record["tuned"]["files"][0]["patched_sha256"] == sha(edited)
    assert target.run("status", "--check", registry=target.cwd).returncode == 0  # every recorded patch
    reverted = target.run("revert", "tuned", registry=target.cwd)
    assert reverted.returncode == 0, reverted.stderr
    assert "restored byte for byte" in reverted.stdout, reverted.stdout
    assert sha(core.read_bytes()) == target.record_sha("rcap/core.py")


def test_restore_of_a_file_carrying_a_captured_entry_names_revert_and_revert_gives_record_bytes(
    target: Target,
) -> None:
    """att20c F5: the refusal's hint is `radpatch revert NAME` (the kept wheel bytes), never a reinstall."""
    core = target.edit("rcap/core.py", EDITED_CORE)
    assert target.run("capture", "tuned", "rcap/core.py", *target.offline).returncode == 0
    err = refused(
        target, 1, "restore", "--wheel", str(target.wheel), "rcap.core", says=("carries radpatch's patch tuned",)
    )
    assert "radpatch revert tuned" in err and "pip install" not in err and "reinstall:" not in err, err
    assert len(err.strip().splitlines()) <= 2, err
    reverted = target.run("revert", "tuned", registry=target.cwd)
    assert reverted.returncode == 0, reverted.stderr
    assert sha(core.read_bytes()) == target.record_sha("rcap/core.py")


def test_an_edit_the_proof_refuses_leaves_no_entry(target: Target) -> None:
    """A hand edit that calls a name defined nowhere: apply's proof refuses to record it, so capture
    keeps nothing and the file stays as edited."""
    target.edit("rcap/sub/util.py", UTIL.replace("x * 2", "undefined_helper(x)"))
    err = refused(
        target,
        1,
        "capture",
        "bad",
        "rcap/sub/util.py",
        *target.offline,
        says=("undefined_helper", "hint: capture kept no entry (bad.yaml removed); "),
    )
    assert not (target.site / ".radpatch" / "record.json").exists(), err
    # the reason is the undefined name, at its file and line, not "other edits" in the file
    assert "other edits" not in err and "rcap/sub/util.py:2" in err, err


# --- a second round: edits on top of what radpatch recorded ------------------------------------------

ROUND_ONE = EDITED_CORE.replace("# the upstream size", "# size, tuned by hand")  # a comment the rewrites do not make
ROUND_TWO = ROUND_ONE.replace('"""rcap\'s planner."""\n', '"""rcap\'s planner."""\n# round two, by hand\n').replace(
    "size = 16", "size = 32"
)


def record_of(target: Target) -> dict[str, Any]:
    patches: dict[str, Any] = json.loads((target.site / ".radpatch" / "record.json").read_text())["patches"]
    return patches


def states(target: Target, reg: Path, *names: str) -> dict[str, str]:
    r = target.run("status", "--json", *names, registry=reg)
    return {s["patch"]: s["state"] for s in json.loads(r.stdout)}


def test_a_second_round_is_captured_on_top_of_the_first_and_reverts_to_its_bytes(target: Target) -> None:
    """Capture A, edit A's file again, capture B: B holds only the new edits (before: the bytes A
    left, kept by radpatch), requires A, and is recorded stacked on A; the files are never written."""
    from radpatch.plugin import Seen, check

    core = target.edit("rcap/core.py", ROUND_ONE)
    assert target.run("capture", "fix_a", "rcap/core.py", "--out", "reg", *target.offline).returncode == 0
    core.write_text(ROUND_TWO)
    inode, reg = core.stat().st_ino, target.cwd / "reg"

    r = target.run("capture", "fix_b", "rcap/core.py", "--out", "reg", *target.offline)

    assert r.returncode == 0, r.stderr
    assert "rcap/core.py: edited on top of fix_a; starts from the bytes fix_a left (kept by radpatch)" in r.stdout
    assert "pristine bytes" not in r.stdout  # no wheel is read for it
    assert "fix_b: adopted: rcap.core already carries this patch's result" in r.stdout, r.stdout
    assert core.read_text() == ROUND_TWO and core.stat().st_ino == inode  # the user's bytes, never rewritten
    entry = entry_of(reg / "fix_b.yaml")
    assert entry["requires"] == ["fix_a"] and "- rcap/core.py (on top of fix_a)" in entry["description"]
    assert entry["rewrites"] == [
        {"id": "replace-plan", "replace": {"scope": "plan", "find": "size = 16\n", "with": "size = 32\n"}}
    ], entry  # only what changed since fix_a
    record = record_of(target)
    (a,), (b,) = record["fix_a"]["files"], record["fix_b"]["files"]
    assert b["original_sha256"] == a["patched_sha256"] == sha(ROUND_ONE.encode())
    assert b["patched_sha256"] == sha(ROUND_TWO.encode()) and record["fix_b"]["requires"] == ["fix_a"]
    assert states(target, reg, "fix_a", "fix_b") == {"fix_a": "applied", "fix_b": "applied"}
    assert target.run("status", "--check", registry=reg).returncode == 0
    assert {c.name: c.state for c in check(target.site)} == {"fix_a": Seen.APPLIED, "fix_b": Seen.APPLIED}

    refusal = target.run("revert", "fix_a", registry=reg)
    assert refusal.returncode == 1 and "fix_b is applied and requires it" in refusal.stderr, refusal.stderr
    assert target.run("revert", "fix_b", registry=reg).returncode == 0
    assert core.read_bytes() == ROUND_ONE.encode()  # exactly the bytes fix_a left
    assert states(target, reg, "fix_a", "fix_b") == {"fix_a": "applied", "fix_b": "not-applied"}
    assert target.run("revert", "fix_a", registry=reg).returncode == 0
    assert sha(core.read_bytes()) == target.record_sha("rcap/core.py")


SPARE = "    def spare(self):\n        return 0\n\n"
PICK = "    def pick(self, sizes):\n        return max(sizes)\n"


@pytest.mark.parametrize("gone", ["pick", "spare"])
def test_a_second_round_that_deletes_a_method_is_captured_on_top_of_the_first(target: Target, gone: str) -> None:
    """Round one changes Planner.pick and adds Planner.spare; round two deletes one of them by hand
    (a whole def: no marker of radpatch's is left in the file). B is written, requires A, and both
    read applied; revert B gives A's bytes, revert A the RECORD bytes (as a statement edit does)."""
    one = ROUND_ONE.replace("class Planner:\n", "class Planner:\n" + SPARE)
    two = one.replace(PICK, "").rstrip("\n") + "\n" if gone == "pick" else one.replace(SPARE, "")
    assert one != two and one != ROUND_ONE
    core = target.edit("rcap/core.py", one)
    assert target.run("capture", "fix_a", "rcap/core.py", "--out", "reg", *target.offline).returncode == 0
    core.write_text(two)
    reg = target.cwd / "reg"

    r = target.run("capture", "fix_b", "rcap/core.py", "--out", "reg", *target.offline)

    assert r.returncode == 0, r.stderr
    assert core.read_text() == two  # the user's bytes, never rewritten
    assert entry_of(reg / "fix_b.yaml")["requires"] == ["fix_a"]
    assert states(target, reg, "fix_a", "fix_b") == {"fix_a": "applied", "fix_b": "applied"}
    assert target.run("status", "--check", registry=reg).returncode == 0
    assert target.run("revert", "fix_b", registry=reg).returncode == 0
    assert core.read_bytes() == one.encode()
    assert target.run("revert", "fix_a", registry=reg).returncode == 0
    assert sha(core.read_bytes()) == target.record_sha("rcap/core.py")


def test_a_second_round_on_a_file_radpatch_wrote_rebuilds_its_bytes_from_the_entry(target: Target) -> None:
    """The bytes an entry radpatch wrote left are rebuilt from its entry (checked against the
    record's sha256), so its registry must be given; without it capture says which to pass."""
    shipped = bump_registry(target)
    assert target.run("apply", "bump", registry=shipped).returncode == 0
    bumped = (target.site / "rcap/sub/util.py").read_bytes()
    target.edit("rcap/sub/util.py", UTIL.replace("x * 2", "x * 7 + 1"))

    refused(
        target,
        1,
        "capture",
        "plus",
        "rcap/sub/util.py",
        says=("plus would require bump (rcap/sub/util.py was edited on top of it)", "holding bump.yaml: radpatch"),
    )
    r = target.run("capture", "plus", "rcap/sub/util.py", registry=shipped)
    assert r.returncode == 0, r.stderr
    # apply keeps each patched result beside its original (hz21c): the bytes bump left are read back
    assert "starts from the bytes bump left (kept by radpatch)" in r.stdout, r.stdout
    assert entry_of(target.cwd / "plus.yaml")["requires"] == ["bump"]
    reg = (str(shipped), "--registry", str(target.cwd))
    assert target.run("--registry", *reg, "status", "--check", "bump", "plus").returncode == 0
    assert target.run("--registry", *reg, "revert", "plus").returncode == 0
    assert (target.site / "rcap/sub/util.py").read_bytes() == bumped


def test_a_second_round_elsewhere_requires_only_what_it_imports_and_a_created_module_stacks(target: Target) -> None:
    """A created a module (applied: radpatch wrote it); B edits another file without importing it
    (no `requires:`), C imports it (requires A), D edits A's module by hand (stacked on A: a rewrite
    of it, not a new module)."""
    creates = """\
        summary: a
        description: creates rcap.sub.extra
        distribution: rcap
        supported: ==1.0
        modules:
          extra: rcap.sub.extra
        rewrites:
          - {id: create-extra, file: extra, create_module: {content: extra.py}}
        """
    write_entry(target.cwd, "new_a", creates, {"extra.py": NEW_MODULE})
    assert target.run("apply", "new_a", registry=target.cwd).returncode == 0
    extra = target.site / "rcap/sub/extra.py"
    assert extra.read_text() == NEW_MODULE
    target.edit("rcap/core.py", CORE.replace("size = 4", "size = 6"))
    r = target.run("capture", "plain_b", "rcap/core.py", *target.offline, "--dry-run")
    assert r.returncode == 0 and "requires" not in yaml.safe_load(r.stdout), r.stdout
    target.edit("rcap/sub/util.py", "from rcap.sub.extra import helper\n\n\n" + UTIL.replace("x * 2", "x * helper()"))
    assert target.run("capture", "uses_c", "rcap/sub/util.py", *target.offline).returncode == 0
    assert entry_of(target.cwd / "uses_c.yaml")["requires"] == ["new_a"]
    extra.write_text(NEW_MODULE.replace("return 42", "return 43"))

    r = target.run("capture", "edit_d", "rcap/sub/extra.py")

    assert r.returncode == 0, r.stderr
    assert "captured rcap/sub/extra.py (rcap 1.0)\n" in r.stdout, r.stdout  # not "as a new module"
    entry = entry_of(target.cwd / "edit_d.yaml")
    assert entry["requires"] == ["new_a"] and "create_module" not in str(entry["rewrites"]), entry
    three = ("new_a", "uses_c", "edit_d")
    assert states(target, target.cwd, *three) == dict.fromkeys(three, "applied")
    assert target.run("revert", "edit_d", registry=target.cwd).returncode == 0
    assert extra.read_text() == NEW_MODULE
    assert target.run("revert", "uses_c", "new_a", registry=target.cwd).returncode == 0
    assert not extra.exists()


def test_recording_only_refuses_a_run_that_would_write(target: Target) -> None:
    """capture asks apply to record only: a run that would write a file (here an entry whose file
    is as installed) is refused before anything is written."""
    from radpatch.commands import change
    from radpatch.context import Context
    from radpatch.errors import RefusedError

    reg = bump_registry(target)
    before = target.snapshot()
    with pytest.raises(RefusedError, match="recording only, but apply would write rcap/sub/util.py instead"):
        change.apply(Context(str(target.venv.python), (str(reg),)), ("bump",), False, record_only=True)
    assert target.snapshot() == before


def test_a_statement_doubled_by_hand_is_captured_as_an_entry_the_pristine_release_takes(target: Target) -> None:
    """A statement inserted next to an identical one (att20 F1): the entry capture writes reads as
    applied on the edited file and as not applied on the release, so after revert `apply` puts it on
    the RECORD bytes again (it refused them as "already contains what the patch adds")."""
    core = target.site / "rcap/core.py"
    twin = '    if os.environ.get("RCAP_BIG"):\n        size = 16\n'
    doubled = CORE.replace(twin, twin + twin)
    assert doubled != CORE
    target.edit("rcap/core.py", doubled)
    r = target.run("capture", "dup", "rcap/core.py", *target.offline)
    assert r.returncode == 0, r.stderr
    assert target.run("revert", "dup", registry=target.cwd).returncode == 0
    assert sha(core.read_bytes()) == target.record_sha("rcap/core.py")
    applied = target.run("apply", "dup", registry=target.cwd)
    assert applied.returncode == 0, applied.stderr
    assert core.read_text() == doubled
    assert target.run("status", "--check", registry=target.cwd).returncode == 0
    assert target.run("revert", "dup", registry=target.cwd).returncode == 0
    assert sha(core.read_bytes()) == target.record_sha("rcap/core.py")


@pytest.mark.parametrize("how", ["scan", "named"])
@pytest.mark.parametrize("other", ["untouched", "edited-again"])
def test_a_second_round_that_takes_a_file_back_to_its_record_bytes_undoes_the_first_there(
    target: Target, how: str, other: str
) -> None:
    """Round one edits two modules; round two takes one of them back to its RECORD bytes by hand
    (and edits the other again, or not). That file is captured too, on top of round one (its
    record says round one changed it): B requires A, both read applied, revert B gives A's bytes
    and revert A the RECORD bytes (att20e F5)."""
    one_core = CORE.replace("size = 4", "size = 8")
    one_util = UTIL.replace("x * 2", "x * 3")
    core, util = target.edit("rcap/core.py", one_core), target.edit("rcap/sub/util.py", one_util)
    scan = ("--distribution", "rcap")
    first = target.run("capture", "fix_a", *scan, "--out", "reg", *target.offline)
    assert first.returncode == 0, first.stderr
    two_core = one_core.replace("size = 8", "size = 9") if other == "edited-again" else one_core
    named = ("rcap/core.py", "rcap/sub/util.py") if other == "edited-again" else ("rcap/sub/util.py",)
    paths = named if how == "named" else scan
    core.write_text(two_core)
    util.write_text(UTIL)
    reg = target.cwd / "reg"

    r = target.run("capture", "fix_b", *paths, "--out", "reg", *target.offline)

    assert r.returncode == 0, r.stdout + r.stderr
    assert core.read_text() == two_core and util.read_text() == UTIL  # the user's bytes, never rewritten
    assert entry_of(reg / "fix_b.yaml")["requires"] == ["fix_a"]
    assert states(target, reg, "fix_a", "fix_b") == {"fix_a": "applied", "fix_b": "applied"}
    assert target.run("status", "--check", registry=reg).returncode == 0
    assert target.run("revert", "fix_b", registry=reg).returncode == 0
    assert core.read_text() == one_core and util.read_text() == one_util
    assert target.run("revert", "fix_a", registry=reg).returncode == 0
    for rel in ("rcap/core.py", "rcap/sub/util.py"):
        assert sha((target.site / rel).read_bytes()) == target.record_sha(rel)


def test_a_recorded_entry_whose_files_are_all_back_at_record_bytes_is_not_captured_as_undone(target: Target) -> None:
    """Every file of round one back at its RECORD bytes (as a reinstall leaves them): a scan finds
    nothing to capture (undoing an entry whole is `revert`'s), and no entry is written."""
    target.edit("rcap/core.py", CORE.replace("size = 4", "size = 8"))
    target.edit("rcap/sub/util.py", UTIL.replace("x * 2", "x * 3"))
    scan = ("--distribution", "rcap")
    assert target.run("capture", "fix_a", *scan, "--out", "reg", *target.offline).returncode == 0
    target.edit("rcap/core.py", CORE)
    target.edit("rcap/sub/util.py", UTIL)

    r = target.run("capture", "fix_b", *scan, "--out", "reg", *target.offline)

    assert r.returncode == 1 and "nothing to capture" in r.stderr, r.stdout + r.stderr
    assert not (target.cwd / "reg" / "fix_b.yaml").exists()


@pytest.mark.parametrize("deleter", ["rcap/core.py", "rcap/sub/util.py"])
def test_a_second_round_deleting_a_def_in_one_file_and_rechanging_the_other_is_captured(
    target: Target, deleter: str
) -> None:
    """Round one changes a line in each of two modules; round two deletes a def in one of them and
    changes round one's line in the other again (att20e F1's shape, captured): B requires A, both
    read applied, and the reverts give A's bytes, then the RECORD bytes."""
    # round one also adds the def round two deletes (a method in core.py, a function in util.py)
    gone = {"rcap/core.py": SPARE, "rcap/sub/util.py": "\n\ndef spare():\n    return 0\n"}
    one = {
        "rcap/core.py": CORE.replace("size = 4", "size = 8").replace("class Planner:\n", "class Planner:\n" + SPARE),
        "rcap/sub/util.py": UTIL.replace("x * 2", "x * 3") + gone["rcap/sub/util.py"],
    }
    again = {"rcap/core.py": ("size = 8", "size = 9"), "rcap/sub/util.py": ("x * 3", "x * 5")}
    two = {r: t.replace(gone[r], "") if r == deleter else t.replace(*again[r]) for r, t in one.items()}
    assert all(one[r] != two[r] for r in one)
    for rel, text in one.items():
        target.edit(rel, text)
    scan = ("--distribution", "rcap")
    assert target.run("capture", "fix_a", *scan, "--out", "reg", *target.offline).returncode == 0
    for rel, text in two.items():
        target.edit(rel, text)
    reg = target.cwd / "reg"

    r = target.run("capture", "fix_b", *scan, "--out", "reg", *target.offline)

    assert r.returncode == 0, r.stdout + r.stderr
    assert all((target.site / rel).read_text() == text for rel, text in two.items())
    assert entry_of(reg / "fix_b.yaml")["requires"] == ["fix_a"]
    assert states(target, reg, "fix_a", "fix_b") == {"fix_a": "applied", "fix_b": "applied"}
    assert target.run("revert", "fix_b", registry=reg).returncode == 0
    assert all((target.site / rel).read_text() == text for rel, text in one.items())
    assert target.run("revert", "fix_a", registry=reg).returncode == 0
    for rel in one:
        assert sha((target.site / rel).read_bytes()) == target.record_sha(rel)


def test_a_scan_after_a_one_file_entry_is_undone_by_hand_names_revert(target: Target) -> None:
    """Round one edits one module; the user takes that edit out by hand (the file is back at its
    RECORD bytes). That entry is undone whole, as a reinstall leaves it (it reads not applied), and
    patch-package's user drops such a patch rather than adding one that undoes it: the scan captures
    nothing and names the entry, its file and `radpatch revert ENTRY`, which drops radpatch's record
    of it (writing no file); a scan after that says plain "nothing to capture"."""
    core = target.edit("rcap/core.py", CORE.replace("size = 4", "size = 8"))
    scan = ("--distribution", "rcap")
    reg = target.cwd / "reg"
    assert target.run("capture", "fix_a", *scan, "--out", "reg", *target.offline).returncode == 0
    core.write_text(CORE)

    err = refused(target, 1, "capture", "fix_b", *scan, "--out", "reg", *target.offline, says=("nothing to capture",))

    assert "fix_a's change was taken out (rcap/core.py is back at RECORD bytes" in err, err
    assert "`radpatch revert fix_a`" in err, err
    assert len(err.strip().splitlines()) == 2, err
    assert not (reg / "fix_b.yaml").exists()
    assert states(target, reg, "fix_a") == {"fix_a": "not-applied"}
    reverted = target.run("revert", "fix_a", registry=reg)
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    assert core.read_text() == CORE
    again = refused(target, 1, "capture", "fix_b", *scan, "--out", "reg", *target.offline, says=("nothing to capture",))
    assert "fix_a" not in again and "hint: edit the installed files first" in again, again


def test_a_capture_beside_an_entry_undone_by_hand_says_so_and_captures_the_rest(target: Target) -> None:
    """The same undone entry while another module is edited: that module is captured, and the undone
    entry is said in one line (not captured, `radpatch revert fix_a`); fix_b does not require fix_a."""
    core = target.edit("rcap/core.py", CORE.replace("size = 4", "size = 8"))
    scan = ("--distribution", "rcap")
    assert target.run("capture", "fix_a", *scan, "--out", "reg", *target.offline).returncode == 0
    core.write_text(CORE)
    target.edit("rcap/sub/util.py", UTIL.replace("x * 2", "x * 3"))

    r = target.run("capture", "fix_b", *scan, "--out", "reg", *target.offline)

    assert r.returncode == 0, r.stdout + r.stderr
    said = [ln for ln in r.stdout.splitlines() if "fix_a" in ln]
    assert len(said) == 1 and "not captured" in said[0] and "`radpatch revert fix_a`" in said[0], r.stdout
    assert "requires" not in entry_of(target.cwd / "reg" / "fix_b.yaml")


@pytest.mark.parametrize("util_after", ["record", "edited"])
def test_a_round_naming_only_some_files_of_the_entry_below_names_the_others_to_capture(
    target: Target, util_after: str
) -> None:
    """Round one edits two modules; round two edits one again and takes the other back to its RECORD
    bytes (or edits it too), but names only the first: round one would read drifted under it. The
    refusal names the left-out file and what works (capture it too, or scan), never `radpatch restore`
    (which throws the hand edits away); capturing with both named then works."""
    one_core, one_util = CORE.replace("size = 4", "size = 8"), UTIL.replace("x * 2", "x * 3")
    core, util = target.edit("rcap/core.py", one_core), target.edit("rcap/sub/util.py", one_util)
    assert target.run("capture", "fix_a", "--distribution", "rcap", "--out", "reg", *target.offline).returncode == 0
    core.write_text(one_core.replace("size = 8", "size = 9"))
    util.write_text(UTIL if util_after == "record" else UTIL.replace("x * 2", "x * 5"))

    err = refused(target, 1, "capture", "fix_b", "rcap/core.py", "--out", "reg", *target.offline, says=("fix_a",))

    assert "rcap/sub/util.py" in err and "radpatch restore" not in err, err
    assert "radpatch capture fix_b rcap/core.py rcap/sub/util.py" in err, err
    assert len(err.strip().splitlines()) == 2, err
    assert not (target.cwd / "reg" / "fix_b.yaml").exists()
    r = target.run("capture", "fix_b", "rcap/core.py", "rcap/sub/util.py", "--out", "reg", *target.offline)
    assert r.returncode == 0, r.stdout + r.stderr
    assert states(target, target.cwd / "reg", "fix_a", "fix_b") == {"fix_a": "applied", "fix_b": "applied"}


# A backup an install script leaves beside its edit (ContextPilot's vLLM installer copies block_pool.py
# to v1/core/backup_<date>/ and its edited file over the module): a new file holding a module's bytes
# as installed, under its name or its name with a suffix, is left out of a scan, said, and captured
# only when named. A new file with those bytes under another name, or a package's __init__, is new code.
BACKUPS = [
    ("rcap/backup_20260301_101500/core.py", "rcap/core.py"),
    ("rcap/sub/old/util.py", "rcap/sub/util.py"),
    ("rcap/core_orig.py", "rcap/core.py"),
    ("rcap/core_bak.py", "rcap/core.py"),
    ("rcap/core2.py", None),  # another name: a new module that happens to start as a copy
    ("rcap/sub/planner.py", None),
]


@pytest.mark.parametrize(("copy", "of"), sample(BACKUPS))
@pytest.mark.parametrize("how", ["scan", "directory", "named"])
def test_a_backup_of_an_installed_module_is_left_out_of_a_scan_and_said(
    target: Target, copy: str, of: str | None, how: str
) -> None:
    source = of or "rcap/core.py"
    pristine = (target.site / source).read_bytes()
    assert sha(pristine) == target.record_sha(source)  # the copy is of the module as RECORD has it
    target.edit(copy, pristine.decode())
    target.edit("rcap/core.py", EDITED_CORE)
    paths = {"scan": [], "directory": [str(target.site / "rcap")], "named": ["rcap/core.py", copy]}[how]
    r = target.run("capture", "fix", *paths, "--distribution", "rcap", *target.offline)
    if how == "named":  # no RECORD lists it, radpatch did not create it (fix64): refused, nothing written
        assert r.returncode == 1 and f"{copy} is no installed distribution's file ({UNLISTED}" in r.stderr, r.stderr
        assert not (target.cwd / "fix.yaml").exists() and (target.site / copy).read_bytes() == pristine
        return
    assert r.returncode == 0, r.stderr
    entry = entry_of(target.cwd / "fix.yaml")
    created = [rw for rw in entry["rewrites"] if "create_module" in rw]
    why = f"a copy of {of} as installed (a backup?)" if of is not None else UNLISTED
    assert any(line.startswith(f"left out {copy}: {why}") for line in r.stdout.splitlines()), r.stdout
    assert created == [], entry
    assert (target.site / copy).read_bytes() == pristine  # left as it was, and not recorded
    assert copy not in json.dumps(record_of(target)), record_of(target)
    assert "rcap.core" in entry["modules"].values(), entry["modules"]
    reverted = target.run("revert", "fix", registry=target.cwd)
    assert reverted.returncode == 0, reverted.stderr
    assert sha((target.site / "rcap/core.py").read_bytes()) == target.record_sha("rcap/core.py")
    assert (target.site / copy).read_bytes() == pristine  # revert never deletes a file radpatch did not create


def test_a_new_package_init_with_another_packages_bytes_is_new_code(target: Target) -> None:
    """vLLM's __init__.py files are often one license line, rcap's empty: a new package's __init__
    holding another package's bytes is not a backup (left out as new code no RECORD lists: fix64)."""
    assert target.record_sha("rcap/__init__.py") == sha(b"")
    target.edit("rcap/newpkg/__init__.py", "")
    target.edit("rcap/newpkg/mod.py", NEW_MODULE)
    r = target.run("capture", "pkg", "--distribution", "rcap", *target.offline)
    assert r.returncode == 1, r.stderr  # nothing else to capture
    assert "a backup" not in r.stdout + r.stderr, r.stdout
    assert f"left out rcap/newpkg/__init__.py: {UNLISTED}" in r.stdout, r.stdout


@pytest.mark.parametrize(
    "name", sample(["rcap/core.bak.py", "rcap/sub/util-backup.py", "rcap/my-dir/x.py", "rcap/2x.py"])
)
@pytest.mark.parametrize("how", ["scan", "named"])
def test_a_new_file_no_import_can_name_is_left_out_and_said(target: Target, name: str, how: str) -> None:
    """`core.bak.py` is not the module rcap.core.bak (that is rcap/core/bak.py): an entry's modules
    are dotted names, so a file whose path is not one is left out, said, never written elsewhere."""
    target.edit(name, NEW_MODULE)
    target.edit("rcap/core.py", EDITED_CORE)
    paths = [] if how == "scan" else ["rcap/core.py", name]
    before = {p: p.read_bytes() for p in (target.site / "rcap").rglob("*.py")}
    r = target.run("capture", "fix", *paths, "--distribution", "rcap", *target.offline)
    assert r.returncode == 0, r.stderr
    assert f"left out {name}: not an importable module name (an entry's modules are dotted names)" in r.stdout, r.stdout
    assert not [rw for rw in entry_of(target.cwd / "fix.yaml")["rewrites"] if "create_module" in rw]
    assert {p: p.read_bytes() for p in (target.site / "rcap").rglob("*.py")} == before
