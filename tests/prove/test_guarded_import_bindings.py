"""A name bound only by a guarded standard-library import that surely fails on the target is not bound
there (issue 21: `try: from itertools import batched` / `except ImportError: pass`, then a new read of
`batched`, was accepted on 3.11 and raised NameError); one that surely succeeds binds it, whatever
the handler does.

Generated: which import (a name some Pythons' itertools, math, typing, locale, inspect lack or have, a whole module only
newer Pythons have), what the handler does (nothing, a fallback constant, another import), which
exception it catches, and where the patch reads the name (at import, in a function called). The oracle
runs each patched module with the target interpreter (this one in the fast tier; each other under
pyenv in the real one): the proof refuses exactly those that raise NameError.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.generated import sample
from tests.lib.interpreters import OTHER_TARGETS, fail_when_run

IMPORTS = (
    "from itertools import batched as chain",
    "from itertools import chain",
    "from math import cbrt as chain",
    "from typing import Self as chain",
    "from typing import override as chain",
    "from math import fma as chain",
    "from locale import resetlocale as chain",
    "from inspect import getargspec as chain",
    "import tomllib as chain",
    "import os as chain",
)
HANDLERS = {"nothing": "pass", "constant": "chain = None", "other-import": "from itertools import chain"}
CATCHES = ("ImportError", "Exception")
READS = {"import-time": "X = chain\n\n\ndef f():\n    return X\n", "called": "def f():\n    return chain\n"}
ALL_CASES = list(itertools.product(IMPORTS, HANDLERS, CATCHES, READS))
CASES = sample(ALL_CASES)


def module(imported: str, handler: str, caught: str) -> str:
    return f"try:\n    {imported}\nexcept {caught}:\n    {HANDLERS[handler]}\n"


def check(executable: str, tmp_path: Path) -> None:
    target = python_env(executable)
    befores = [module(i, h, e) + "\n\ndef f():\n    return 1\n" for i, h, e, _ in CASES]
    afters = [module(i, h, e) + "\n\n" + READS[r] for i, h, e, r in CASES]
    assert not any(fail_when_run(executable, befores, tmp_path, "NameError"))
    truth = fail_when_run(executable, afters, tmp_path, "NameError")
    every = fail_when_run(
        executable, [module(i, h, e) + "\n\n" + READS[r] for i, h, e, r in ALL_CASES], tmp_path, "NameError"
    )
    assert any(every) and not all(every), every  # the family has both outcomes, whichever cases this run takes
    wrong = []
    for case, fails, before, after in zip(CASES, truth, befores, afters):
        refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target)
        if (refused is not None) != fails:
            wrong.append((case, fails, refused and refused.why))
    assert not wrong, wrong[:5]


def test_a_guarded_import_that_fails_on_the_target_binds_nothing(tmp_path: Path) -> None:
    check(sys.executable, tmp_path)


@pytest.mark.interpreters
@pytest.mark.skipif(not OTHER_TARGETS, reason="no Python other than radpatch's own under /root/.pyenv")
@pytest.mark.parametrize("version", sorted(OTHER_TARGETS))
def test_a_guarded_import_that_fails_on_another_target_binds_nothing(version: str, tmp_path: Path) -> None:
    check(str(OTHER_TARGETS[version]), tmp_path)
