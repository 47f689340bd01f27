"""A function whose docstring shares its line with code (`'doc'; return 1`): replace_body replaces
the code and keeps the docstring, wrap_body wraps the code and leaves the docstring first (issue 21:
replace_body refused it, saying the body was not `find`, because the docstring was read as code).

Each case runs through plan.plan as the engine runs it; tests/lib/rewrites.py's check compares the
whole patched module and proves the inverse, byte for byte where `exact`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.replace_body import ReplaceBody
from radpatch.rewrite.ops.wrap_body import WrapBody
from tests.lib.rewrites import check, patch_of

TRY = "try:\n    __body__\nfinally:\n    pass\n"

CASES = [
    # (before, operation, after, undone byte for byte)
    (
        "def f():\n    'doc'; return 1\n",
        ReplaceBody("f", "return 1", "return 2"),
        "def f():\n    'doc'; return 2\n",
        True,
    ),
    (
        'class C:\n    def f(self):\n        """Doc."""; x = 1; return x  # why\n\n\ndef g():\n    return 0\n',
        ReplaceBody("C.f", "x = 1; return x", "y = 2\nreturn y"),
        'class C:\n    def f(self):\n        """Doc."""; y = 2\n        return y\n\n\ndef g():\n    return 0\n',
        False,  # the comment goes with the code it was on
    ),
    (
        "def f(a):\n    'doc'; return 1\n",
        ReplaceBody("f", "return 1", "if a:\n    return 2\nreturn 3"),
        "def f(a):\n    'doc'\n    if a:\n        return 2\n    return 3\n",
        False,
    ),
    (
        "def f(): 'doc'; return 1\n",
        ReplaceBody("f", "return 1", "return 2"),
        "def f():\n    'doc'; return 2\n",
        False,  # a one-line suite becomes a block, as for any replaced body
    ),
    (
        "def f():\n    'doc'; return 1\n",
        WrapBody("f", TRY),
        "def f():\n    'doc'\n    try:\n        return 1\n    finally:\n        pass\n",
        False,
    ),
    (
        "def f():\n    'doc'; x = 1\n    return x\n",
        WrapBody("f", "y = 0\n__body__\n"),
        "def f():\n    'doc'; y = 0\n    x = 1\n    return x\n",
        True,
    ),
]


@pytest.mark.parametrize(("before", "op", "after", "exact"), CASES)
def test_the_docstring_beside_code_stays_the_docstring(before: str, op: Operation, after: str, exact: bool) -> None:
    check(before, op, after, exact=exact)
    patch = patch_of(op)
    patched = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after
    space: dict[str, object] = {}
    exec(compile(patched, "mod.py", "exec"), space)
    fn = space["f"] if "f" in space else space["C"].f  # type: ignore[attr-defined]
    assert textwrap.dedent(str(fn.__doc__)).strip() in ("doc", "Doc."), patched  # type: ignore[attr-defined]
