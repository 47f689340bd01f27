"""A tuple (or `:=`) given where a comma or `=` would split it, as a set_keyword or set_default
value or as a replace inside a subscript, is written parenthesised: the patched module runs and
means the value given, and the inverse gives back the file's bytes (issue 21, att21c F10).

Generated: the three places times values written bare and parenthesised. Each patched module is
run by this interpreter in a subprocess and f() compared with the value evaluated on its own."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite import runner
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_default import SetDefault
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.rewrites import patch_of

VALUES = ["2, 3", "(2, 3)", "2,", "(y := 2)", "y := 2", "1, (2, 3)", "4"]
# (module, the operation for a value)
PLACES = {
    "keyword": (
        "def h(a=None):\n    return a\n\n\ndef f():\n    y = 0\n    return h(a=1)\n",
        lambda v: SetKeyword("f", "h", "a", "1", v),
    ),
    "default": ("def f(x=1):\n    y = 0\n    return x\n", lambda v: SetDefault("f", "x", "1", v)),
    "subscript": (
        "def f():\n    y = 0\n    d = {k: k for k in [1, 2, (2, 3), (2,), (1, (2, 3)), 4]}\n"
        "    k = 1\n    return d[k]\n",
        lambda v: Replace("f", "k", v, within="return d[k]"),
    ),
}


def _patched(place: str, value: str) -> tuple[bytes, bytes, bytes]:
    module, make = PLACES[place]
    original = module.encode()
    op: Operation = make(value)
    patch = patch_of(op)
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original).after
    undone = runner.backward(patch, patch.rewrites, after, "mod.py")
    return original, after, undone


def _run(sources: list[str]) -> list[str]:
    code = textwrap.dedent(
        """
        import json, sys
        out = []
        for s in json.load(sys.stdin):
            ns = {}
            exec(compile(s, "mod.py", "exec"), ns)
            out.append(repr(ns["f"]()))
        print(json.dumps(out))
        """
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], input=json.dumps(sources), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    result: list[str] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("place", PLACES)
def test_a_tuple_in_a_comma_place_is_parenthesised_and_reverts(place: str) -> None:
    results = [_patched(place, v) for v in VALUES]
    for original, _, undone in results:
        assert undone == original
    ran = _run([after.decode() for _, after, _ in results])
    wanted = _run([f"def f():\n    return ({v})\n" for v in VALUES])
    assert ran == wanted, [after.decode() for _, after, _ in results]
