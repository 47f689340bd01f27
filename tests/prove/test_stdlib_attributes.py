"""A name read as an attribute of an imported standard-library module that the target's version of
that module does not bind (`enum.StrEnum`, `typing.Self` on 3.10, `locale.resetlocale` on 3.13) is
refused as `from enum import StrEnum` is: the target interpreter is asked (issue 21, att21c F5).

Generated: (module, name) pairs some supported Python has and another lacks, times where the patch
reads them (a module-level value, a class body, an evaluated annotation, a function body, a default,
under a version guard that holds or does not, in `try/except AttributeError`, behind `hasattr`,
through `import m as alias`). Each patched module is run by the target (f() called): the proof must
refuse exactly the ones that raise AttributeError."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.interpreters import OTHER_TARGETS, fail_when_run

NAMES = [
    ("typing", "Self"),  # 3.11
    ("typing", "override"),  # 3.12
    ("enum", "StrEnum"),  # 3.11
    ("locale", "resetlocale"),  # gone in 3.13
    ("re", "NOFLAG"),  # 3.11, bound by enum.global_enum: no file shows it
    ("os", "path"),  # every version
    ("typing", "List"),
    ("json", "rp_no_such_name"),
]
SHAPES = {  # (module level, body of f); `M` is how the module is spelled
    "value": ("X = M.{n}\n", "    return 1\n"),
    "class-body": ("class C:\n    A = M.{n}\n", "    return 1\n"),
    "annotation": ("x: M.{n} = 1\n", "    return 1\n"),
    "function": ("", "    return M.{n}\n"),
    "default": ("def g(a=M.{n}):\n    return a\n", "    return 1\n"),
    "local-annotation": ("", "    y: M.{n} = 1\n    return y\n"),
    "guard-holds": ("if sys.version_info >= (3, 0):\n    X = M.{n}\n", "    return 1\n"),
    "guard-fails": ("if sys.version_info >= (3, 99):\n    X = M.{n}\n", "    return 1\n"),
    "try": ("try:\n    X = M.{n}\nexcept AttributeError:\n    X = None\n", "    return 1\n"),
    "hasattr": ("X = hasattr(M, '{n}') and M.{n}\n", "    return 1\n"),
}
SPELLINGS = {"plain": ("import {m}\n", "{m}"), "alias": ("import {m} as _mod\n", "_mod")}


def source(pair: tuple[str, str] | None, shape: str, spelling: str) -> str:
    top, body = SHAPES[shape]
    imp, ref = SPELLINGS[spelling]
    if pair is None:
        return "import sys\n" + imp.format(m="os") + "\n\ndef f():\n    return 1\n"
    m, n = pair
    ref = ref.format(m=m)
    return (
        "import sys\n"
        + imp.format(m=m)
        + top.replace("M.", f"{ref}.").replace("(M,", f"({ref},").format(n=n)
        + "\n\ndef f():\n"
        + body.replace("M.", f"{ref}.").format(n=n)
    )


def check(executable: str, tmp: Path) -> None:
    target = python_env(executable)
    cases = [*itertools.product(NAMES, SHAPES, ["plain"]), *itertools.product(NAMES, ["value"], ["alias"])]
    truth = fail_when_run(target.executable, [source(p, s, sp) for p, s, sp in cases], tmp, "AttributeError")
    assert any(truth) and not all(truth), truth  # both outcomes are exercised
    for (pair, shape, spelling), fails in zip(cases, truth):
        before = source(None, shape, spelling).replace("import os\n", f"import {pair[0]}\n")
        if spelling == "alias":
            before = before.replace("import os as _mod\n", f"import {pair[0]} as _mod\n")
        after = source(pair, shape, spelling)
        refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target)
        assert (refused is not None) == fails, (target.version, pair, shape, spelling, refused)
        if refused is not None:
            assert f"`{pair[1]}` (line " in refused.why and f"is not in {pair[0]}" in refused.why, refused.why


def test_an_attribute_radpatchs_own_pythons_standard_library_lacks_is_refused(tmp_path: Path) -> None:
    check(sys.executable, tmp_path)


OTHERS = [str(p) for p in OTHER_TARGETS.values()]


@pytest.mark.interpreters
@pytest.mark.skipif(not OTHERS, reason="no Python other than radpatch's own under /root/.pyenv")
@pytest.mark.parametrize("executable", OTHERS)
def test_an_attribute_the_targets_standard_library_lacks_is_refused(executable: str, tmp_path: Path) -> None:
    check(executable, tmp_path)
