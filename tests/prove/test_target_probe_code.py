"""The compile probe of another target Python (prove/target_probe) loads radpatch's analysis
packages from the code the target compiled in the process's first probe (_code_memo) instead of
compiling them again: the same answers as a probe that compiles them, for generated patches (new
names, a missing module, a syntax error, an unreachable change), on every other target; code the
target's magic number does not match is compiled again, never loaded."""

from __future__ import annotations

import itertools

import pytest

from radpatch.errors import EnvironmentProblem
from radpatch.prove import target_probe
from tests.lib.generated import sample
from tests.lib.interpreters import BEFORE, OTHER_TARGETS, PROBED

AFTERS = {**PROBED, "submodule-read": "import xml\n\n\ndef f():\n    return xml.dom.minidom\n"}
CASES = sample(itertools.product(OTHER_TARGETS, AFTERS))


def ask(version: str, after: str) -> target_probe.ProbeResult:
    probe = target_probe.Probe(str(OTHER_TARGETS[version]), (), "m")
    return target_probe._ask(probe, BEFORE, after.encode(), after, "m.py")


@pytest.mark.parametrize(("version", "after"), CASES, ids=["-".join(c) for c in CASES])
def test_a_probe_from_the_kept_code_answers_as_one_that_compiles(
    version: str, after: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(target_probe, "_code_memo", {})
    compiled = ask(version, AFTERS[after])  # compiles, and keeps the code
    (magic, code), *_ = target_probe._code_memo.values()
    assert len(target_probe._code_memo) == 1 and "radpatch_names" in code and "radpatch_placement" in code
    assert ask(version, AFTERS[after]) == compiled  # loads the kept code
    garbled = {name: "AAAA" for name in code}  # not code: loading it fails the probe
    (key,) = target_probe._code_memo
    target_probe._code_memo[key] = (magic, garbled)
    with pytest.raises(EnvironmentProblem):  # the kept code is what the probe runs
        ask(version, AFTERS[after])
    target_probe._code_memo[key] = ("00" + magic[2:], garbled)
    assert ask(version, AFTERS[after]) == compiled  # another magic number: compiled again, not loaded


def test_the_cases_are_real_answers() -> None:
    """The family holds a patch each way: one the target accepts, one it refuses to compile."""
    if not OTHER_TARGETS:
        pytest.skip("no other target Python")
    version = next(iter(OTHER_TARGETS))
    assert ask(version, AFTERS["same"]).compile_error is None
    assert ask(version, AFTERS["syntax-error"]).compile_error is not None
