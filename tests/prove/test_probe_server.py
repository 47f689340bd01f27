"""The later probes of a target (prove.target_probe) go to its long-lived server (prove.probe_server):
the first probe of a target in a process runs one-shot and starts no server; the server's answers
are the one-shot probe's, for generated patches on every other target; it sees a module file
added to the target's path since its last request; a server that died is replaced and the probe
still answered; a forked child never uses its parent's server nor starts one (it may end without
atexit); closing reaps every server; one that does not answer in time is killed."""

from __future__ import annotations

import itertools
import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from radpatch.prove import probe_server, target_probe
from tests.lib.generated import sample
from tests.lib.interpreters import BEFORE, OTHER_TARGETS, PROBED, preferred_lacking, targets_lacking

AFTERS = {**PROBED, "shadowed": BEFORE + "\n\ndef f():\n    return 1\n"}
CASES = sample(itertools.product(OTHER_TARGETS, AFTERS))


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No kept code and no server: the next probe of each target is its first in this process."""
    probe_server.close_all()
    monkeypatch.setattr(target_probe, "_code_memo", {})
    yield
    probe_server.close_all()


def one_shot(probe: target_probe.Probe, after: str) -> target_probe.ProbeResult:
    return target_probe._ask(probe, BEFORE, after.encode(), after, "m.py")


def served(probe: target_probe.Probe, after: str) -> target_probe.ProbeResult:
    return target_probe._answer(probe, BEFORE, after.encode(), after, "m.py")


def server_of(executable: str) -> probe_server._Server | None:
    return next((s for (exe, _), s in probe_server._servers.items() if exe == executable), None)


@pytest.mark.parametrize(("version", "after"), CASES, ids=["-".join(c) for c in CASES])
def test_the_server_answers_as_the_one_shot_probe(version: str, after: str, fresh: None) -> None:
    probe = target_probe.Probe(str(OTHER_TARGETS[version]), (), "m")
    expected = one_shot(probe, AFTERS[after])
    target_probe._code_memo.clear()
    assert served(probe, AFTERS["same"]) == one_shot(probe, AFTERS["same"])  # the first probe: one-shot
    assert server_of(probe.executable) is None
    assert served(probe, AFTERS[after]) == expected  # the server's first request
    assert server_of(probe.executable) is not None
    other = list(AFTERS)[(list(AFTERS).index(after) + 1) % len(AFTERS)]
    assert served(probe, AFTERS[other]) == one_shot(probe, AFTERS[other])  # a later one
    assert served(probe, AFTERS[after]) == expected


def test_the_cases_hold_each_outcome() -> None:
    """The family has a patch the target accepts, one it refuses to compile, one with a problem."""
    if not OTHER_TARGETS:
        pytest.skip("no other target Python")
    probe = target_probe.Probe(str(next(iter(OTHER_TARGETS.values()))), (), "m")
    answers = {name: one_shot(probe, after) for name, after in AFTERS.items()}
    assert answers["same"] == target_probe.ProbeResult(None, (), ())
    assert answers["syntax-error"].compile_error is not None
    assert answers["new-name"].problems and answers["unreachable"].placement and answers["shadowed"].placement


def put(entry: Path, where: str, name: str | None) -> None:
    """The target's path entry `entry` holding a module `name` (None: not), as a directory or a zip archive."""
    if where == "directory":
        entry.mkdir(exist_ok=True)
        for old in entry.iterdir():
            old.unlink()
        if name is not None:
            (entry / f"{name}.py").write_text("")
    else:
        with zipfile.ZipFile(entry, "w") as archive:
            archive.writestr("other.py", "")
            if name is not None:
                archive.writestr(f"{name}.py", "")


@pytest.mark.parametrize("where", ["directory", "zip archive"])
def test_the_server_finds_a_module_added_since_its_last_request(where: str, tmp_path: Path, fresh: None) -> None:
    if not targets_lacking():
        pytest.skip("no other target lacks a module radpatch's standard library has")
    executable = next(iter(targets_lacking().values()))
    lacking = preferred_lacking(executable)
    assert lacking is not None
    entry = tmp_path / "later"  # a directory that does not exist yet (the import system caches that), or an archive
    if where == "zip archive":
        put(entry, where, None)
    probe = target_probe.Probe(str(executable), (str(entry),), "m")
    after = f"import {lacking}\n" + BEFORE
    served(probe, BEFORE)  # one-shot
    missing = served(probe, after)
    assert server_of(probe.executable) is not None
    assert missing == one_shot(probe, after) and any(p.name == lacking for p in missing.problems)
    put(entry, where, lacking)  # a backport on the target's path
    found = served(probe, after)
    assert found == one_shot(probe, after) and not any(p.name == lacking for p in found.problems)
    put(entry, where, None)
    assert served(probe, after) == missing


def _served_twice() -> target_probe.Probe:
    """A probe of another target Python whose second answer came from its server (skip: none here)."""
    if not OTHER_TARGETS:
        pytest.skip("no other target Python")
    probe = target_probe.Probe(str(next(iter(OTHER_TARGETS.values()))), (), "m")
    served(probe, BEFORE)
    served(probe, AFTERS["same"])
    return probe


def test_a_dead_server_is_replaced_and_the_probe_still_answered(fresh: None) -> None:
    probe = _served_twice()
    server = server_of(probe.executable)
    assert server is not None
    server.proc.kill()
    server.proc.wait()
    assert served(probe, AFTERS["new-name"]) == one_shot(probe, AFTERS["new-name"])
    again = server_of(probe.executable)
    assert again is not None and again is not server and again.proc.poll() is None
    assert served(probe, AFTERS["syntax-error"]) == one_shot(probe, AFTERS["syntax-error"])


def test_a_forked_child_does_not_use_its_parents_server(fresh: None) -> None:
    probe = _served_twice()
    parents = server_of(probe.executable)
    assert parents is not None
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no server of its parent's, none of its own; its probe answers one-shot
        os.close(read)
        try:
            mine = server_of(probe.executable)
            answer = served(probe, AFTERS["new-name"])
            ok = mine is None and server_of(probe.executable) is None and answer == one_shot(probe, AFTERS["new-name"])
            os.write(write, json.dumps([ok, answer.problems[0].name]).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        told = json.loads(pipe.read() or "null")
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert told == [True, "undefined_name"]
    assert server_of(probe.executable) is parents and parents.proc.poll() is None
    assert served(probe, AFTERS["syntax-error"]) == one_shot(probe, AFTERS["syntax-error"])


def test_closing_reaps_every_server(fresh: None) -> None:
    if not OTHER_TARGETS:
        pytest.skip("no other target Python")
    started = []
    for executable in OTHER_TARGETS.values():
        probe = target_probe.Probe(str(executable), (), "m")
        served(probe, BEFORE)
        served(probe, AFTERS["same"])
        started.append(server_of(probe.executable))
    probe_server.close_all()
    assert not probe_server._servers
    for server in started:
        assert server is not None and server.proc.returncode is not None
        with pytest.raises(ChildProcessError):
            os.waitpid(server.proc.pid, 0)  # reaped: no zombie left


def test_a_server_that_does_not_answer_is_killed(tmp_path: Path) -> None:
    silent = tmp_path / "silent"  # reads nothing, answers nothing
    silent.write_text("#!/bin/sh\nexec sleep 600\n")
    silent.chmod(0o755)
    server = probe_server._Server(str(silent), "probe")
    with pytest.raises(probe_server.Hung):
        server.ask(b"{}", 1)
    assert server.proc.returncode is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(server.proc.pid, 0)  # reaped: no zombie left
