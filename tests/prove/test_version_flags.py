"""A module-level name bound once to a version test (`PY311 = sys.version_info >= (3, 11)`, then
`if PY311: import tomllib`) is decided for the target like the test written inline (issue 21: the
flag counted as a guard, so `import tomllib` under it passed on a 3.10 target).

Generated: for each real target interpreter other than radpatch's own whose standard library lacks
a module radpatch's has, flag spellings times the minor versions around the target's times how the
`if` reads the flag. The target runs each patched module: the proof refuses exactly those that fail.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.interpreters import fail_when_run, preferred_lacking, targets_lacking

FLAGS = (
    "PY = sys.version_info >= (3, {m})",
    "PY: bool = sys.version_info[:2] >= (3, {m})",
    "PY = _vi.minor >= {m}",
    "PY = not sys.version_info < (3, {m})",
    "_BASE = sys.version_info >= (3, {m})\nPY = _BASE and sys.version_info.major == 3",
)
USES = ("if PY:\n    import {missing}\n", "if not PY:\n    pass\nelse:\n    import {missing}\n")

HEAD = "import sys\nfrom sys import version_info as _vi\n"


def module(missing: str | None, flag: str, use: str) -> str:
    guarded = f"{flag}\n{use.format(missing=missing)}" if missing else ""
    return HEAD + guarded + "\n\ndef f():\n    return 1\n"


TARGETS = targets_lacking()


@pytest.mark.interpreters
@pytest.mark.skipif(not TARGETS, reason="no Python other than radpatch's own under /root/.pyenv")
@pytest.mark.parametrize("version", sorted(TARGETS))
def test_a_flag_bound_once_to_a_version_test_is_decided_for_the_target(version: str, tmp_path: Path) -> None:
    target = python_env(str(TARGETS[version]))
    missing = preferred_lacking(TARGETS[version])
    minor = int(version.split(".")[1])
    cases = list(itertools.product(FLAGS, range(minor - 1, minor + 2), USES))
    sources = [module(missing, flag.format(m=m), use) for flag, m, use in cases]
    truth = fail_when_run(target.executable, sources, tmp_path, "ModuleNotFoundError")
    assert any(truth) and not all(truth), truth
    before = module(None, "", "")
    for (flag, m, use), fails, after in zip(cases, truth, sources):
        refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target)
        assert (refused is not None) == fails, (flag.format(m=m), use, refused)
