"""Line endings a rewrite meets (att51 #6): a module whose lines end with a lone carriage return
(`\\r`, valid Python) was refused with a wrong reason ("undoing the patch ... does not give back the
original code"), and some operations wrote it wrong (set_constant dropped the final `\\r`).

Generated: the line endings (`\\n`, `\\r\\n`, `\\r`, and each mixture of two) x the operation
(insert_after, set_constant, add_parameter, replace) x a final line ending or none. The oracle is
Python: where the file has a lone `\\r`, the refusal says the line ending is not supported (and
which line Python's own line splitting puts it on); elsewhere the rewrite applies, the patched module
is AST-equal to the same rewrite on the module written with `\\n`, and the inverse gives back the
original bytes."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_parameter import AddParameter
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.generated import sample
from tests.lib.rewrites import patch_of

LINES = ["import os", "def f(a=0, b=1):", "    y = b", "    return y", "def g():", "    return 'g'", "Z = 1"]
ENDINGS = {
    "lf": ("\n",),
    "crlf": ("\r\n",),
    "cr": ("\r",),
    "crlf+lf": ("\r\n", "\n"),
    "cr+lf": ("\r", "\n"),
    "cr+crlf": ("\r", "\r\n"),
}
OPS: dict[str, Operation] = {
    "insert_after": InsertStatements("f", "y = b", "y = y + 100", "after"),
    "set_constant": SetConstant("Z", "2", "1"),
    "add_parameter": AddParameter("f", "c", "None"),
    "replace": Replace("g", "return 'g'", "return 'h'"),
}


def module(endings: tuple[str, ...], final: bool) -> str:
    ends = [endings[i % len(endings)] for i in range(len(LINES))]
    text = "".join(line + end for line, end in zip(LINES, ends))
    return text if final else text[: -len(ends[-1])]


def patched(text: str, op: Operation) -> bytes:
    patch = patch_of(op)
    return plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), text.encode()).after


CASES = sample(list(itertools.product(ENDINGS, OPS, (True, False))))


@pytest.mark.parametrize(("endings", "op", "final"), CASES, ids=[f"{e}-{o}-{f}" for e, o, f in CASES])
def test_a_lone_cr_is_refused_as_a_line_ending_and_the_others_apply(endings: str, op: str, final: bool) -> None:
    text = module(ENDINGS[endings], final)
    compile(text, "mod.py", "exec")  # valid Python, whatever its line endings
    if "\r" in ENDINGS[endings]:
        with pytest.raises(RefusedError) as info:
            patched(text, OPS[op])
        first = text.index("\r")
        while text.startswith("\r\n", first):
            first = text.index("\r", first + 2)
        line = len(text[:first].splitlines()) + (1 if text[:first].endswith(("\n", "\r")) else 0)
        assert f"ends line {line} with a lone carriage return" in info.value.message
        assert "does not support that line ending" in info.value.message
        assert "undoing" not in info.value.message
        return
    after = patched(text, OPS[op])
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(patched(module(("\n",), final), OPS[op])))
    patch = patch_of(OPS[op])
    assert runner.backward(patch, patch.rewrites, after, "mod.py") == text.encode()
