"""A version guard around an import the target's standard library lacks is decided for the target's
version however it is spelled (att21 N4: `(3, 10) <= sys.version_info`, `from sys import
version_info`, `sys.version_info.minor >= 10` counted as guards, so `import tomllib` passed on 3.10).

Generated: for each real target interpreter other than radpatch's own, a module its standard
library lacks, times each spelling of a version test, times the minor versions around the
target's. The target runs each patched module: the proof refuses exactly those that fail.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.interpreters import fail_when_run, preferred_lacking, targets_lacking

SPELLINGS = (
    "sys.version_info >= (3, {m})",
    "(3, {m}) <= sys.version_info",
    "version_info >= (3, {m})",
    "sys.version_info.minor >= {m}",
    "sys.version_info[1] >= {m}",
    "sys.version_info[:2] >= (3, {m})",
    "sys.version_info > (3, {m})",
    "(3, {m}) < sys.version_info",
    "not sys.version_info < (3, {m})",
    "not (3, {m}) > sys.version_info",
    "sys.version_info[0] == 3 and sys.version_info[1] >= {m}",
    "(3, {m}) <= sys.version_info < (4, 0)",
    "sys.hexversion >= 0x030{m:X}0000",
    "0x030{m:X}0000 <= sys.hexversion",
    "sys.version_info < (3, {m}) or sys.version_info.major > 3",
    "_vi >= (3, {m})",
    "_hv >= 0x030{m:X}0000",
)

HEAD = "import sys\nfrom sys import version_info\nfrom sys import version_info as _vi, hexversion as _hv\n"


def module(missing: str | None, test: str) -> str:
    guarded = f"if {test}:\n    import {missing}\n" if missing else ""
    return HEAD + guarded + "\n\ndef f():\n    return 1\n"


TARGETS = targets_lacking()


@pytest.mark.interpreters
@pytest.mark.skipif(not TARGETS, reason="no Python other than radpatch's own under /root/.pyenv")
@pytest.mark.parametrize("version", sorted(TARGETS))
def test_a_version_guard_is_decided_for_the_target_however_spelled(version: str, tmp_path: Path) -> None:
    target = python_env(str(TARGETS[version]))
    missing = preferred_lacking(TARGETS[version])
    minor = int(version.split(".")[1])
    cases = list(itertools.product(SPELLINGS, range(minor - 1, minor + 2)))
    sources = [module(missing, s.format(m=m)) for s, m in cases]
    truth = fail_when_run(target.executable, sources, tmp_path, "ModuleNotFoundError")
    assert any(truth) and not all(truth), truth
    for (spelling, m), fails, after in zip(cases, truth, sources):
        before = module(None, "")
        refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target)
        assert (refused is not None) == fails, (spelling.format(m=m), refused)


@pytest.mark.interpreters
@pytest.mark.skipif("3.10" not in TARGETS, reason="no Python 3.10 other than radpatch's own")
@pytest.mark.parametrize("test", ["sys.version_info >= (3, 10, 0)", "sys.version_info.micro >= 0"])
def test_a_version_test_not_understood_guards_neither_branch(test: str, tmp_path: Path) -> None:
    """One that needs the micro version cannot be decided from major.minor: it guards nothing."""
    target = python_env(str(TARGETS["3.10"]))
    after = module("tomllib", test)
    assert fail_when_run(target.executable, [after], tmp_path, "ModuleNotFoundError") == [True]
    refused = names_check.names_refusal(module(None, "").encode(), after.encode(), "m.py", target)
    assert refused is not None and "`tomllib`" in refused.why
