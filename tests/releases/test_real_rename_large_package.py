"""A rename in vLLM's own package, read by range requests from the package index (issue 23, port49):
0.27.1 defines `minimax_m3_build_sparse_block_table` in vllm.models.minimax_m3.amd.ops.sparse_pa, and
0.32.0 binds that old name to `minimax_m3_build_sparse_block_table_decode` at module level. vLLM has
3,000-odd `.py` files, more than verify reads for a package, so the cell said "a store from another
module of the package cannot be ruled out"; now the release's store index picks the modules that may
store either name and the rules read those: the rename is followed (verify's `match` failure says
moved, naming the binding's line), or refused at the file:line of a store; in 0.32.0 an `exec` of
computed code in vllm/compilation/codegen.py (port49, #4: its code may store any name; exec51: named with
the `vouched_exec:` YAML that vouches for it, tests/releases/test_real_rename_exec_vouched.py). The binding,
the definitions and the `exec` are read off the release's own modules with `ast`."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.releases.wheels import Releases
from tests.lib.registry import write_entry

pytestmark = [pytest.mark.network, pytest.mark.vllm]  # the package index's vLLM wheels

MODULE = "vllm.models.minimax_m3.amd.ops.sparse_pa"
OLD, NEW = "minimax_m3_build_sparse_block_table", "minimax_m3_build_sparse_block_table_decode"
ENTRY = f"""\
summary: s
description: d
distribution: vllm
supported: ">=0.27.1,<0.28"
modules:
  ops: {MODULE}
rewrites:
  - insert_after: {{scope: {OLD}, find: "topk = topk_idx.shape[-1]", code: "topk = int(topk)"}}
"""


def _top(version: str) -> dict[str, ast.stmt]:
    rel = MODULE.replace(".", "/") + ".py"
    data = Releases.from_env().get("vllm", Version(version), frozenset({rel})).read(rel)
    assert data is not None
    out: dict[str, ast.stmt] = {}
    for node in ast.parse(data).body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = node
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node
    return out


def test_a_rename_in_vllms_package_is_followed(real_index: None, radpatch: Any, tmp_path: Path) -> None:
    old, new = _top("0.27.1"), _top("0.32.0")
    assert isinstance(old[OLD], ast.FunctionDef) and isinstance(new[NEW], ast.FunctionDef)
    alias = new[OLD]
    assert isinstance(alias, ast.Assign) and ast.unparse(alias.value) == NEW  # the rename, as Python reads it
    reg = tmp_path / "reg"
    write_entry(reg, "mm", ENTRY)
    for _ in range(2):  # the second run reads the kept store index
        report = json.loads(radpatch("--registry", str(reg), "verify", "mm", "--versions", "0.32.0", "--json").out)
        (result,) = report["results"]
        error = result["error"] or ""
        assert "cannot be ruled out" not in error, error
        said = f"moved: {OLD} is now {NEW} in {MODULE} (renamed; `{OLD} = {NEW}` in {MODULE}, line {alias.lineno}"
        unread = r"is not followed as a rename: code run by exec/eval .*?: (\S+):(\d+) `(exec|eval)\("
        refused = re.search(unread, error)
        assert said in error or refused, error
        if refused:  # the store index found code run by exec elsewhere (port49, #4): there, as Python reads it
            rel, line = refused.group(1), int(refused.group(2))
            data = Releases.from_env().get("vllm", Version("0.32.0"), frozenset({rel})).read(rel)
            calls = [n for n in ast.walk(ast.parse(data or b"")) if isinstance(n, ast.Call) and n.lineno == line]
            assert any(isinstance(c.func, ast.Name) and c.func.id == refused.group(3) for c in calls), (rel, line)
