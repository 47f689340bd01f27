"""A name taken from a standard-library module that the target's version of that module does not
bind (`from typing import Self` on 3.10, `from typing import override` on 3.11, `from enum import
StrEnum` on 3.10, `from locale import resetlocale` on 3.13) is refused, on every target, radpatch's
own Python included: the standard library binds names its files do not show (C modules' star
imports, `enum.global_enum`), so the target interpreter is asked.

Generated: (module, name) pairs that some supported Python has and another lacks, times how the
patch imports them (module level, inside the function, under a version guard that holds for the
target or does not, in `try/except ImportError`). Each patched module is run by the target: the
proof must refuse exactly the ones that raise ImportError."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check, refusal
from tests.lib.interpreters import OTHER_TARGETS, fail_when_run

NAMES = [
    ("typing", "Self"),  # 3.11
    ("typing", "override"),  # 3.12
    ("enum", "StrEnum"),  # 3.11
    ("locale", "resetlocale"),  # gone in 3.13
    ("re", "NOFLAG"),  # 3.11, bound by enum.global_enum: no file shows it
    ("os", "path"),  # every version (a star import from posix binds most of os)
    ("typing", "List"),
    ("concurrent", "futures"),  # a submodule
    ("json", "rp_no_such_name"),
]
SHAPES = {
    "module": ("from {m} import {n}\n", "    return 1\n"),
    "function": ("", "    from {m} import {n}\n    return 1\n"),
    "guard-holds": ("if sys.version_info >= (3, 0):\n    from {m} import {n}\n", "    return 1\n"),
    "guard-fails": ("if sys.version_info >= (3, 99):\n    from {m} import {n}\n", "    return 1\n"),
    "try": ("try:\n    from {m} import {n}\nexcept ImportError:\n    pass\n", "    return 1\n"),
}


def source(pair: tuple[str, str] | None, shape: str) -> str:
    top, body = SHAPES[shape]
    if pair is None:
        top, body = "", "    return 1\n"
    m, n = pair or ("", "")
    return "import sys\n" + top.format(m=m, n=n) + "\n\ndef f():\n" + body.format(m=m, n=n)


def check(executable: str, tmp: Path) -> None:
    target = python_env(executable)
    cases = list(itertools.product(NAMES, SHAPES))
    truth = fail_when_run(target.executable, [source(p, s) for p, s in cases], tmp)
    assert any(truth) and not all(truth), truth  # both outcomes are exercised
    for (pair, shape), fails in zip(cases, truth):
        before, after = source(None, shape), source(pair, shape)
        refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target)
        assert (refused is not None) == fails, (target.version, pair, shape, refused)
        if refused is not None:
            assert refused.hint == refusal.MISSING_MODULE_HINT
            assert f"`{pair[1]}` (line " in refused.why and f"is not in {pair[0]}" in refused.why, refused.why


def test_a_name_radpatchs_own_pythons_standard_library_lacks_is_refused(tmp_path: Path) -> None:
    check(sys.executable, tmp_path)


OTHERS = [str(p) for p in OTHER_TARGETS.values()]


@pytest.mark.interpreters
@pytest.mark.skipif(not OTHERS, reason="no Python other than radpatch's own under /root/.pyenv")
@pytest.mark.parametrize("executable", OTHERS)
def test_a_name_the_targets_standard_library_lacks_is_refused(executable: str, tmp_path: Path) -> None:
    check(executable, tmp_path)
