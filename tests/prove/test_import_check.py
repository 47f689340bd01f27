"""`apply --import-check` on a site-packages whose interpreter is radpatch's own: every check here
really runs that interpreter in a subprocess and imports the served module (the 3.10 and 3.12
targets are in test_import_check_targets.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import import_check
from radpatch.prove.plan import PlannedFile
from tests.lib.registry import entry_head
from tests.lib.site import Site

CORE = textwrap.dedent("""\
    import os


    def limit(n):
        cap = 10
        return min(n, cap)
    """)

ENTRY = entry_head("import check test patch", "icpkg", {"core": "icpkg.core"})

CAP = textwrap.dedent("""\
      - id: cap
        file: core
        replace: {scope: limit, find: cap = 10, with: cap = 20}
    """)

SELF_IMPORT = textwrap.dedent("""\
      - id: helper
        file: core
        insert_definitions: {payload: payload.py, before: limit}
    """)

# A cycle through another module that takes a name back in a way the static proofs do not read (an
# `exec`): the import sees the cycle (a payload importing from icpkg.core itself is refused by the
# names proof before any import, and so is a plain `from icpkg.core import limit` in icpkg.twice:
# prove.cycle_reads, tests/prove/test_cycle_reads.py).
SELF_IMPORT_PAYLOAD = textwrap.dedent("""\
    from icpkg.twice import twice as _twice


    def _ic_helper(n):
        return _twice(n)
    """)
TWICE = 'exec("from icpkg.core import limit")\n\n\ndef twice(n):\n    return limit(n) * 2\n'


def install(site: Site, core: str = CORE, **more: str) -> Path:
    site.install("icpkg", "1.0", {"icpkg/__init__.py": "", "icpkg/core.py": core, "icpkg/twice.py": TWICE, **more})
    return site.root / "icpkg" / "core.py"


def test_a_self_import_is_refused_and_nothing_is_written(site: Site, write_registry: Any, radpatch: Any) -> None:
    core = install(site)
    reg = write_registry("ic", ENTRY + SELF_IMPORT, {"payload.py": SELF_IMPORT_PAYLOAD})
    before = site.snapshot()

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 1, r
    first, hint = r.err.splitlines()
    assert first.startswith("radpatch: error: ic: import check: icpkg.core does not import once patched: ImportError: ")
    assert "cannot import name 'limit' from partially initialized module 'icpkg.core'" in first
    assert "raised at icpkg.core line 2; it imports unpatched" in first  # the payload import goes after `import os`
    assert hint.startswith("  hint: ") and "nothing was written" in hint
    assert site.snapshot() == before  # no file, no record, no __pycache__ (-B)
    assert b"_ic_helper" not in core.read_bytes()


def test_the_environment_variable_turns_it_on_and_the_flag_off(
    site: Site, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = install(site)
    reg = write_registry("ic", ENTRY + SELF_IMPORT, {"payload.py": SELF_IMPORT_PAYLOAD})
    monkeypatch.setenv("RADPATCH_IMPORT_CHECK", "1")
    assert radpatch("--registry", str(reg), "apply", "--dry-run", "ic").code == 1
    monkeypatch.setenv("RADPATCH_IMPORT_CHECK", "yes-please")
    bad = radpatch("--registry", str(reg), "apply", "ic")
    assert bad.code == 2 and "RADPATCH_IMPORT_CHECK" in bad.err and "Traceback" not in bad.err
    monkeypatch.setenv("RADPATCH_IMPORT_CHECK", "1")
    r = radpatch("--registry", str(reg), "apply", "--no-import-check", "ic")
    assert r.code == 0, r  # without the check the self-import is written (what the check exists for)
    assert b"_ic_helper" in core.read_bytes()


def test_a_module_that_already_fails_to_import_is_inconclusive_with_the_reason(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    core = install(site, "import rp_missing_optional_dependency\n" + CORE.replace("import os\n", "", 1))
    reg = write_registry("ic", ENTRY + CAP)

    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

    assert r.code == 0, r
    assert r.out.splitlines() == [
        "ic: import check inconclusive for icpkg.core: the unpatched module does not import either "
        "(ModuleNotFoundError: No module named 'rp_missing_optional_dependency', raised at icpkg.core line 1); "
        "not a refusal",
        "ic: applied to icpkg 1.0 (icpkg.core)",
    ]
    assert b"cap = 20" in core.read_bytes()


def test_a_failure_only_the_patched_module_raises_before_the_shared_one_is_refused(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    """The pristine module fails late (an optional module missing on this image); the patch adds a
    line that raises KeyError earlier: that failure is the patch's own, not the image's. A new
    import that is missing too stays inconclusive (a CPU image lacking GPU-only modules)."""
    late = CORE.replace("import os\n", "import os\n", 1) + "\nimport rp_missing_optional_dependency\n"
    core = install(site, late, **{"icpkg/gpu_only.py": "raise ImportError('this build has no CUDA kernels')\n"})
    before = core.read_bytes()
    reg = write_registry(
        "ic",
        ENTRY
        + textwrap.dedent("""\
          - id: env
            file: core
            insert_after: {scope: <module>, find: import os, code: "LIMIT = os.environ['RP_SURELY_UNSET_VARIABLE']"}
        """),
    )
    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")
    assert r.code == 1, r
    first = r.err.splitlines()[0]
    assert "KeyError" in first and "the unpatched module fails elsewhere (ModuleNotFoundError" in first, r.err
    assert core.read_bytes() == before  # nothing written

    missing = write_registry(
        "ic2",
        ENTRY
        + textwrap.dedent("""\
          - id: gpu
            file: core
            insert_after: {scope: <module>, find: import os, code: "import icpkg.gpu_only"}
        """),
        dirname="registry2",
    )
    r = radpatch("--registry", str(missing), "apply", "--import-check", "ic2")
    assert r.code == 0, r
    assert "import check inconclusive for icpkg.core" in r.out


def test_a_module_that_imports_once_patched_is_applied(site: Site, write_registry: Any, radpatch: Any) -> None:
    core = install(site)
    reg = write_registry("ic", ENTRY + CAP)
    dry = radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "ic")
    assert dry.code == 0, dry
    assert dry.out.splitlines()[0] == f"ic: import check: icpkg.core imports once patched ({sys.executable})"
    assert b"cap = 10" in core.read_bytes()  # --dry-run: checked, not written
    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")
    assert r.code == 0 and b"cap = 20" in core.read_bytes(), r


def test_every_changed_file_is_served_patched_together(site: Site, write_registry: Any, radpatch: Any) -> None:
    """core imports a name the same run adds to util: only served together does patched core import."""
    install(site, **{"icpkg/util.py": "def scale(x):\n    return x * 2\n"})
    entry = entry_head("import check test patch", "icpkg", {"core": "icpkg.core", "util": "icpkg.util"}) + (
        "  - id: new-helper\n"
        "    file: util\n"
        "    insert_definitions: {payload: helper.py, after: scale}\n"
        "  - id: use-helper\n"
        "    file: core\n"
        "    add_import: {import: from icpkg.util import ic_triple}\n"
    )
    reg = write_registry("ic", entry, {"helper.py": "def ic_triple(x):\n    return x * 3\n"})
    r = radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "ic")
    assert r.code == 0, r
    assert "ic: import check: icpkg.core imports once patched" in r.out
    assert "ic: import check: icpkg.util imports once patched" in r.out


@pytest.mark.processes  # waits out the check's own timeout, then kills what the import started
def test_a_hanging_import_is_killed_with_what_it_started_and_is_inconclusive(
    site: Site, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pidfile = tmp_path / "sleeper.pid"
    hang = (
        "import subprocess\n"
        f"_p = subprocess.Popen(['sleep', '600'])\nopen({str(pidfile)!r}, 'w').write(str(_p.pid))\n"
        "_forever = True\nwhile _forever:\n    pass\n"
    )
    install(site, hang + CORE.replace("import os\n", "", 1))
    reg = write_registry("ic", ENTRY + CAP)
    # long enough for a loaded machine to start the child and reach its loop (the pid file is
    # written first); the bound is on the check's own timeout, not on this test's duration
    monkeypatch.setenv("RADPATCH_IMPORT_CHECK_TIMEOUT", "8")

    r = radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "ic")

    assert r.code == 0, r
    assert r.out.splitlines()[0] == (
        "ic: import check inconclusive for icpkg.core: the patched import did not finish within 8 s (killed); "
        "the unpatched import did not finish within 8 s (killed); not a refusal"
    )
    sleeper = int(pidfile.read_text())
    # SIGKILL is delivered asynchronously: look a bounded number of times for it to have landed
    landed = any(_gone(sleeper) or time.sleep(0.02) for _ in range(500))
    assert landed, "the process the import started outlived the check"


def _gone(pid: int) -> bool:
    """The process has ended: no such process, or a zombie not yet reaped by whoever inherited it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


@pytest.mark.parametrize(
    ("call", "event"),
    [
        ('socket.create_connection(("127.0.0.1", {port}))', "socket.getaddrinfo"),
        ('socket.socket().connect(("127.0.0.1", {port}))', "socket.connect"),
    ],
)
def test_the_import_has_no_network(site: Site, write_registry: Any, radpatch: Any, call: str, event: str) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        install(site)
        entry = ENTRY + (
            "  - id: phone-home\n"
            "    file: core\n"
            "    add_import: {import: import socket}\n"
            "  - id: connect\n"
            "    file: core\n"
            f"    set_constant: {{name: _IC_CONN, value: '{call.format(port=port)}'}}\n"
        )
        reg = write_registry("ic", entry)

        r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")

        assert r.code == 1, r
        assert f"OSError: [Errno 101] no network during radpatch's import check ({event})" in r.err
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing connected


def test_a_bad_timeout_is_a_usage_error(
    site: Site, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(site)
    reg = write_registry("ic", ENTRY + CAP)
    monkeypatch.setenv("RADPATCH_IMPORT_CHECK_TIMEOUT", "soon")
    r = radpatch("--registry", str(reg), "apply", "--import-check", "ic")
    assert r.code == 2 and r.err.startswith("radpatch: error: RADPATCH_IMPORT_CHECK_TIMEOUT='soon' is not a number")


class _Launches:
    """subprocess.Popen, recording every command line it starts."""

    def __init__(self) -> None:
        self.argvs: list[list[str]] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = subprocess.Popen
        seen = self.argvs

        class Recording(real):  # type: ignore[valid-type,misc]
            def __init__(self, args: Any, *a: Any, **kw: Any) -> None:
                seen.append([str(x) for x in args] if isinstance(args, (list, tuple)) else [str(args)])
                super().__init__(args, *a, **kw)

        monkeypatch.setattr(subprocess, "Popen", Recording)


def test_a_plain_apply_never_starts_the_check(
    site: Site, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted, not timed: a plain apply loads no import-check code and launches no interpreter."""
    core = install(site)
    reg = write_registry("ic", ENTRY + CAP)
    monkeypatch.delitem(sys.modules, "radpatch.prove.import_check")
    launches = _Launches()
    launches.install(monkeypatch)

    assert radpatch("--registry", str(reg), "apply", "ic").code == 0
    assert b"cap = 20" in core.read_bytes()
    assert launches.argvs == [] and "radpatch.prove.import_check" not in sys.modules

    assert radpatch("--registry", str(reg), "revert", "ic").code == 0
    assert radpatch("--registry", str(reg), "apply", "--import-check", "ic").code == 0
    checks = [a for a in launches.argvs if a[1:5] == ["-I", "-S", "-B", "-c"]]
    assert len(checks) == 1 and checks[0][0] == sys.executable  # the counter sees the check when it runs


def test_the_check_starts_only_under_import_check_in_a_real_process(site: Site, write_registry: Any) -> None:
    """The fault hook on the check's first line: a plain apply passes it by, --import-check dies there."""
    install(site)
    reg = write_registry("ic", ENTRY + CAP)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RADPATCH_")}
    env.update(RADPATCH_FAULT="import-check:1", PYTHONPATH=str(site.root))
    argv = [sys.executable, "-m", "radpatch", "--registry", str(reg), "apply", "--dry-run"]
    plain = subprocess.run(argv + ["ic"], capture_output=True, text=True, env=env, timeout=120)
    assert plain.returncode == 0, plain.stderr
    checked = subprocess.run(argv + ["--import-check", "ic"], capture_output=True, text=True, env=env, timeout=120)
    assert checked.returncode == -9, checked.stderr


def test_the_verdicts_of_check_directly(site: Site) -> None:
    """check() on hand-made planned changes: ok, refused (patched only) and inconclusive (both), in order."""
    install(site, **{"icpkg/bad.py": "import rp_missing_optional_dependency\n"})
    env = PythonEnv(sys.executable, (site.root,), site.root, (sys.version_info[0], sys.version_info[1]))
    core = site.root / "icpkg" / "core.py"
    bad = site.root / "icpkg" / "bad.py"
    init = site.root / "icpkg" / "__init__.py"
    planned = [
        ("p1", PlannedFile("icpkg.__init__", init, b"", b"VERSION = 2\n")),
        ("p1", PlannedFile("icpkg.core", core, core.read_bytes(), core.read_bytes() + b"raise KeyError('x')\n")),
        ("p2", PlannedFile("icpkg.core", core, core.read_bytes() + b"raise KeyError('x')\n", core.read_bytes())),
        ("p2", PlannedFile("icpkg.bad", bad, bad.read_bytes(), bad.read_bytes() + b"x = 1\n")),
    ]
    verdicts = list(import_check.check(env, planned, timeout=60))
    assert [(v.module, v.patches, v.result) for v in verdicts] == [
        ("icpkg", ("p1",), import_check.Result.OK),
        ("icpkg.core", ("p1", "p2"), import_check.Result.OK),  # p2 takes back what p1 broke: the last bytes count
        ("icpkg.bad", ("p2",), import_check.Result.INCONCLUSIVE),
    ]
    planned[2] = ("p2", PlannedFile("icpkg.core", core, planned[1][1].after, planned[1][1].after + b"\n"))
    (_, refused, _) = import_check.check(env, planned, timeout=60)
    assert refused.result is import_check.Result.REFUSED
    assert refused.reason == "KeyError: 'x', raised at icpkg.core line 7"
    planned[3] = ("p2", PlannedFile("icpkg.bad", bad, bad.read_bytes(), b"import rp_other\n" + bad.read_bytes()))
    (_, _, both) = import_check.check(env, planned, timeout=60)
    assert (both.result, both.reason) == (  # the patch's own new line raises first: its failure (att21 N6)
        import_check.Result.REFUSED,
        "ModuleNotFoundError: No module named 'rp_other', raised at icpkg.bad line 1, a line the patch added; "
        "the unpatched module fails elsewhere (ModuleNotFoundError: No module named "
        "'rp_missing_optional_dependency', raised at icpkg.bad line 1)",
    )


def test_import_name() -> None:
    assert import_check.import_name("vllm.platforms.__init__") == "vllm.platforms"
    assert import_check.import_name("vllm.v1.core.kv_cache_utils") == "vllm.v1.core.kv_cache_utils"
