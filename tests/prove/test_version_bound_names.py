"""A name bound only in a branch the target's version rules out is not bound there: a new read of it
is refused (issue 21: `if sys.version_info >= (3, 12): chain = 1`, then a new `X = chain` on 3.11
was proven, applied, and raised NameError on import). A branch the version rules in binds for sure,
so its twin read is accepted.

Generated: how the version is tested (comparisons of `sys.version_info`, sliced, indexed, by field,
`not`, `and`/`or`, a flag bound to the test), at which minor version, how the name is bound under it
(assignment, a def, an import only newer Pythons' itertools has), in which branch (`if`, `else`,
`elif`), and where the patch reads it (at import, in a function called). The oracle runs each
patched module with the target interpreter (this one in the fast tier; each other under pyenv in
the real one): the proof refuses exactly those that raise NameError or ImportError.
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

TESTS = (
    "sys.version_info >= (3, {m})",
    "sys.version_info < (3, {m})",
    "sys.version_info[:2] == (3, {m})",
    "sys.version_info[:2] != (3, {m})",
    "sys.version_info[1] >= {m}",
    "sys.version_info[0] == 3 and sys.version_info.minor >= {m}",
    "sys.version_info.major > 3 or sys.version_info.minor < {m}",
    "not sys.version_info >= (3, {m})",
    "PY_NEW",
)
BINDINGS = {
    "assign": "    chain = 1\n",
    "def": "    def chain():\n        return 1\n",
    "import-newer": "    from itertools import batched as chain\n",
}
BRANCHES = ("if", "else", "elif")
READS = {"import-time": "X = chain\n\n\ndef f():\n    return X\n", "called": "def f():\n    return chain\n"}
MINORS = (10, 11, 12, 13, 99)


def module(test: str, binding: str, branch: str, m: int) -> str:
    """The original: `chain` bound in one branch of a version test at minor `m`, nothing reading it."""
    test = test.format(m=m)
    head = f"import sys\n\nPY_NEW = sys.version_info >= (3, {m})\n"
    if branch == "if":
        return head + f"if {test}:\n{binding}"
    if branch == "else":
        return head + f"if {test}:\n    pass\nelse:\n{binding}"
    return head + f"if sys.version_info < (3, 0):\n    pass\nelif {test}:\n{binding}"


def patched(original: str, read: str) -> str:
    return original + "\n\n" + read


CASES = sample(itertools.product(TESTS, BINDINGS, BRANCHES, READS, MINORS))


def check(executable: str, tmp_path: Path) -> None:
    target = python_env(executable)
    originals = [module(t, BINDINGS[b], br, m) + "\n\ndef f():\n    return 1\n" for t, b, br, _, m in CASES]
    runs = fail_when_run(executable, originals, tmp_path, "ImportError")  # batched where the target lacks it
    cases = [c for c, failed in zip(CASES, runs) if not failed]
    afters = [patched(module(t, BINDINGS[b], br, m), READS[r]) for t, b, br, r, m in cases]
    truth = fail_when_run(executable, afters, tmp_path, "(NameError, ImportError)")
    assert any(truth) and not all(truth), truth
    wrong = []
    for case, fails, after in zip(cases, truth, afters):
        before = module(case[0], BINDINGS[case[1]], case[2], case[4]) + "\n\ndef f():\n    return 1\n"
        refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target)
        if (refused is not None) != fails:
            wrong.append((case, fails, refused and refused.why))
    assert not wrong, wrong[:5]


def test_a_name_the_target_version_rules_out_is_not_bound(tmp_path: Path) -> None:
    check(sys.executable, tmp_path)


@pytest.mark.interpreters
@pytest.mark.skipif(not OTHER_TARGETS, reason="no Python other than radpatch's own under /root/.pyenv")
@pytest.mark.parametrize("version", sorted(OTHER_TARGETS))
def test_a_name_another_target_version_rules_out_is_not_bound(version: str, tmp_path: Path) -> None:
    check(str(OTHER_TARGETS[version]), tmp_path)


@pytest.mark.parametrize("fallback", [False, True], ids=["one-branch", "both-branches"])
def test_a_version_test_major_minor_cannot_decide_is_an_unknown_condition(fallback: bool) -> None:
    """`>= (3, N, 2)` holds on some micro versions of the target and not on others: a name bound under it
    alone is bound on some paths only (any other condition's rule); bound in both branches, it is bound."""
    minor = sys.version_info[1]
    original = f"import sys\n\nif sys.version_info >= (3, {minor}, 2):\n    chain = 1\n"
    original += "else:\n    chain = 2\n" if fallback else ""
    after = patched(original, READS["import-time"])
    refused = names_check.names_refusal(original.encode(), after.encode(), "m.py", python_env(sys.executable))
    assert (refused is None) == fallback, refused
    assert refused is None or "`chain`" in refused.why and "some paths only" in refused.why, refused.why
