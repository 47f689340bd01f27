"""Files as they are installed: CRLF line endings, no final newline and latin-1 files keep their form
through a rewrite and its inverse.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_parameter import AddParameter
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from tests.lib.rewrites import patch_of
from tests.lib.sources import MODULE, PAYLOAD


def plan_bytes(before: bytes, op: Operation) -> bytes:
    patch = patch_of(op)
    change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before)
    assert runner.backward(patch, patch.rewrites, change.after, "mod.py") == before
    return change.after


@pytest.mark.parametrize(
    "op",
    [
        InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), "f", "before"),
        InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), "f", "after"),
        AddParameter("f", "cfg", "None"),
        InsertStatements("f", "x = 1", "y = 2", "after"),
        Replace("f", "x = 1", "x = 2"),
    ],
    ids=["defs-before", "defs-after", "add-parameter", "insert-after", "replace"],
)
def test_crlf_files_keep_crlf_line_endings(op: Operation) -> None:
    before = b"import os\r\n\r\n\r\ndef f(a):\r\n    x = 1\r\n    return a\r\n\r\n\r\nZ = 1\r\n"
    after = plan_bytes(before, op)
    assert after != before
    assert after.count(b"\n") == after.count(b"\r\n"), after


def test_insert_definitions_after_the_last_def_of_a_file_without_final_newline() -> None:
    before = b"import os\n\n\ndef f(a):\n    return a"
    after = plan_bytes(before, InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), "f", "after"))
    assert ast.dump(ast.parse(after)) == ast.dump(ast.parse(before + b"\n\n\ndef _rp_helper(x):\n    return x + 1\n"))


def test_a_latin_1_file_stays_latin_1() -> None:
    before = "# -*- coding: latin-1 -*-\nNAME = 'café'\n\n\ndef f(a):\n    return a\n".encode("latin-1")
    after = plan_bytes(before, AddParameter("f", "cfg", "None"))
    assert after == before.replace(b"def f(a):", b"def f(a, cfg=None):")


@pytest.mark.parametrize("module_newline", ["\n", "\r\n"])
def test_a_crlf_or_latin1_payload_takes_the_target_files_line_endings(module_newline: str) -> None:
    crlf = PAYLOAD.replace(b"\n", b"\r\n")
    latin1 = b"# -*- coding: latin-1 -*-\n" + PAYLOAD.replace(b"Docstring kept.", b"Docstring kept \xe9.")
    for payload in (crlf, latin1):
        op = InsertDefinitions(Path("payload.py"), payload, ("_rp_helper", "_rp_glue"), "target", "after")
        patch = patch_of(op)
        original = textwrap.dedent(MODULE).replace("\n", module_newline).encode()
        change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original)
        lines = change.after.split(b"\n")[:-1]
        assert all(line.endswith(b"\r") == (module_newline == "\r\n") for line in lines)
        assert b"\r\r" not in change.after
