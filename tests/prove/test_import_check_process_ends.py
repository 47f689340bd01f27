"""`apply --import-check` on imports that end or outlive the interpreter in ways an exception does
not tell (issue 21, impchk36; prove/import_process.py, prove/import_failures.py):

- an import that ends the interpreter without an answer (`os._exit`, a crash in an extension
  module, `abort()`): both the pristine and the patched import ending it alike is a failure they
  share, inconclusive (it was refused: two answerless ends never compared equal); the patch adding
  the end, or ending it another way, is refused;
- an import that leaves a process behind (a fork, a multiprocessing worker, a subprocess) holding
  what the interpreter had open: the check waits for the interpreter, not for the process, so the
  import reads as imported (it waited the whole time limit and said "did not finish"); what was left
  behind is killed;
- an import that prints more than fits in a file: the check keeps the tail of what it prints, and
  writes none of it to disk (it went to a temporary file, unbounded: an import printing without
  end filled the disk until the time limit). Shown under a file-size limit smaller than the output.

Generated: each way times who does it (the pristine module already, or the patch); every case
imports the module for real (the radpatch interpreter, in a subprocess) through the CLI.
"""

from __future__ import annotations

import itertools
import json
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

HEAD = "import os\nimport signal\nimport sys\nimport time\n\nN = 1\n\n\ndef helper():\n    return 3\n\n\n"
NOTE = "sys.stderr.write('ending the interpreter here\\n'); sys.stderr.flush()\n"
ENDS = {  # a module-level line that ends the interpreter without an answer
    "os-exit-3": "os._exit(3)",
    "os-exit-0": "os._exit(0)",
    "abort": "os.abort()",
    "segfault": "os.kill(os.getpid(), signal.SIGSEGV)",
    # the launcher passed SIGKILL on by setting its handler first, which raises: a traceback, exit 1 (perf49)
    "sigkill": "os.kill(os.getpid(), signal.SIGKILL)",
}
ENDINGS = {  # (the module's last line, find, with, what the check says: None inconclusive, else refusal words)
    "function-never-run": ("END", "return 3", "return 30", None),
    "ended-another-way": ("END", "END", "os._exit(7)", "does not import once patched: the interpreter ended"),
    "patch-adds-the-end": ("X = 1", "X = 1", "END", "it imports unpatched"),
}
END_CASES = sample(itertools.product(ENDS, ENDINGS))


def _registry(write_registry: Any, scope: str, find: str, with_: str) -> Path:
    spec = f"{{scope: {scope}, find: {json.dumps(find)}, with: {json.dumps(with_)}}}"
    entry = (
        entry_head("process ends", "icend", {"core": "icend.core"})
        + f"  - id: r\n    file: core\n    replace: {spec}\n"
    )
    return write_registry("pe", entry)


@pytest.mark.parametrize(("end", "ending"), END_CASES, ids=["-".join(c) for c in END_CASES])
def test_an_import_that_ends_the_interpreter_both_ways_alike_is_inconclusive(
    site: Site, write_registry: Any, radpatch: Any, end: str, ending: str
) -> None:
    last, find, with_, says = ENDINGS[ending]
    text = HEAD + NOTE + last.replace("END", ENDS[end]) + "\n"
    site.install("icend", "1.0", {"icend/__init__.py": "", "icend/core.py": text})
    core = site.root / "icend" / "core.py"
    find, with_ = find.replace("END", ENDS[end]), with_.replace("END", ENDS[end])
    reg = _registry(write_registry, "helper" if ending == "function-never-run" else "<module>", find, with_)

    r = radpatch("--registry", str(reg), "apply", "--import-check", "pe")

    if says is None:
        assert r.code == 0, r
        assert r.out.startswith(
            "pe: import check inconclusive for icend.core: the unpatched module does not import either "
            "(the interpreter ended during the import without an answer ("
        ), r.out
        assert "ending the interpreter here)" in r.out.splitlines()[0], r.out  # the tail of what it printed
        assert core.read_bytes() == text.replace(find, with_).encode()
    else:
        assert r.code == 1, r
        first = r.err.splitlines()[0]
        assert first.startswith("radpatch: error: pe: import check: icend.core does not import once patched: "), r.err
        assert says in first, first
        assert core.read_bytes() == text.encode()  # nothing written


LEAVES = {  # a module-level line that leaves a process behind, its pid in PIDFILE
    "os-fork": "_pid = os.fork() or time.sleep(600); _pid and open(PIDFILE, 'w').write(str(_pid))",
    "multiprocessing-fork": (
        "_p = __import__('multiprocessing').get_context('fork').Process(target=time.sleep, args=(600,), daemon=True)"
        "; _p.start(); open(PIDFILE, 'w').write(str(_p.pid))"
    ),
    "subprocess": "_p = __import__('subprocess').Popen(['sleep', '600']); open(PIDFILE, 'w').write(str(_p.pid))",
}
WHO = {"pristine-has-it": ("LEAVE", "return 3", "return 30"), "patch-adds-it": ("X = 1", "X = 1", "LEAVE")}
LEAVE_CASES = sample(itertools.product(LEAVES, WHO))


@pytest.mark.parametrize(("leave", "who"), LEAVE_CASES, ids=["-".join(c) for c in LEAVE_CASES])
def test_an_import_that_leaves_a_process_behind_imports_and_the_process_is_killed(
    site: Site,
    write_registry: Any,
    radpatch: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    leave: str,
    who: str,
) -> None:
    pidfile = tmp_path / "left.pid"
    line = LEAVES[leave].replace("PIDFILE", repr(str(pidfile)))
    last, find, with_ = (s.replace("LEAVE", line) for s in WHO[who])
    site.install("icend", "1.0", {"icend/__init__.py": "", "icend/core.py": HEAD + last + "\n"})
    reg = _registry(write_registry, "helper" if who == "pristine-has-it" else "<module>", find, with_)
    monkeypatch.setenv("RADPATCH_IMPORT_CHECK_TIMEOUT", "120")  # a bound the import is far within, not a timing

    r = radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "pe")

    assert r.code == 0, r
    assert r.out.splitlines()[0].startswith("pe: import check: icend.core imports once patched ("), r.out
    left = int(pidfile.read_text())
    # SIGKILL is delivered asynchronously: look a bounded number of times for it to have landed
    assert any(_gone(left) or _pause() for _ in range(500)), "the process the import left behind outlived the check"


def _pause() -> bool:
    import time

    time.sleep(0.02)
    return False


def _gone(pid: int) -> bool:
    """The process has ended: no such process, or a zombie not yet reaped by whoever inherited it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


LIMIT = 8 << 20  # bytes any file this process and its children write may hold
PRINTS = {  # a module-level line printing 4 * LIMIT bytes
    "print": "print('x' * (1 << 20), end='', flush=True)",
    "stderr-write": "sys.stderr.write('x' * (1 << 20)); sys.stderr.flush()",
    "os-write-1": "os.write(1, b'x' * (1 << 20))",
    "os-write-2": "os.write(2, b'x' * (1 << 20))",
}
PRINT_CASES = sample(itertools.product(PRINTS, WHO))


@contextmanager
def _file_size_limit(limit: int) -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


@pytest.mark.parametrize(("prints", "who"), PRINT_CASES, ids=["-".join(c) for c in PRINT_CASES])
def test_what_an_import_prints_takes_no_disk(
    site: Site, write_registry: Any, radpatch: Any, prints: str, who: str
) -> None:
    each = f"({PRINTS[prints].replace('; ', ', ')}) for _ in range({4 * LIMIT >> 20})"
    if who == "pristine-has-it":
        text, find, with_ = HEAD + f"X = [{each}]\n", "return 3", "return 30"
    else:
        text, find, with_ = HEAD + "X = 1\n", "X = 1", f"X = [{each}]"
    site.install("icend", "1.0", {"icend/__init__.py": "", "icend/core.py": text})
    reg = _registry(write_registry, "helper" if who == "pristine-has-it" else "<module>", find, with_)

    with _file_size_limit(LIMIT):
        r = radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "pe")

    assert r.code == 0, r
    assert r.out.splitlines()[0].startswith("pe: import check: icend.core imports once patched ("), r.out


STARTS = {  # a module-level line starting another interpreter that imports a module of the package
    "subprocess-run": "_r = __import__('subprocess').run([sys.executable, '-c', 'import icend.util'], env=ENV)",
    "os-system": "_r = os.system(f'PYTHONPATH={ROOT} {sys.executable} -c \"import icend.util\"')",
}


START_CASES = sample(itertools.product(STARTS, WHO))


@pytest.mark.parametrize(("starts", "who"), START_CASES, ids=["-".join(c) for c in START_CASES])
def test_an_interpreter_the_import_starts_writes_no_bytecode_into_the_install(
    site: Site, write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch, starts: str, who: str
) -> None:
    """-B keeps the check's own interpreter from writing __pycache__; one the import starts (without
    -I) reads PYTHONDONTWRITEBYTECODE instead, which the check sets."""
    root = repr(str(site.root))
    env = f"dict(os.environ, PYTHONPATH={root})"
    line = STARTS[starts].replace("ENV", env).replace("{ROOT}", str(site.root))
    last, find, with_ = (s.replace("LEAVE", line) for s in WHO[who])
    site.install(
        "icend", "1.0", {"icend/__init__.py": "", "icend/util.py": "U = 1\n", "icend/core.py": HEAD + last + "\n"}
    )
    reg = _registry(write_registry, "helper" if who == "pristine-has-it" else "<module>", find, with_)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)  # the check's own setting, not the test's
    before = site.snapshot()

    r = radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "pe")

    assert r.code == 0, r
    assert r.out.splitlines()[0].startswith("pe: import check: icend.core imports once patched ("), r.out
    assert site.snapshot() == before  # no icend/__pycache__
