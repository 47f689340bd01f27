"""A rename in real vLLM refused for its generated code run by `exec`, then vouched for (issue 23, exec51).

vLLM 0.32.0 and 0.33.0 bind `minimax_m3_build_sparse_block_table` to `..._decode` in
vllm.models.minimax_m3.amd.ops.sparse_pa (a rename), and `vllm/compilation/codegen.py` runs generated
code with `exec(code, namespace)`: every rename in vLLM was refused there. The refusal names that call
(its line read off the release with `ast`) and prints the `vouched_exec:` YAML; with the YAML added, the
rename is followed (verify's match failure says moved, renamed), and the entry as port writes it (a
`versions:` variant under the new name) verifies on both releases, saying the assumption."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.version import Version

from radpatch.releases.wheels import Releases
from tests.lib.registry import write_entry

pytestmark = [pytest.mark.network, pytest.mark.vllm]  # the package index's vLLM wheels

MODULE = "vllm.models.minimax_m3.amd.ops.sparse_pa"
OLD, NEW = "minimax_m3_build_sparse_block_table", "minimax_m3_build_sparse_block_table_decode"
REWRITE = '{{scope: {scope}, find: "topk = topk_idx.shape[-1]", code: "topk = int(topk)"}}'
ENTRY = f"""\
summary: s
description: d
distribution: vllm
supported: ">=0.27.1,<0.28"
modules:
  ops: {MODULE}
rewrites:
  - insert_after: {REWRITE.format(scope=OLD)}
"""
PORTED = f"""\
summary: s
description: d
distribution: vllm
supported: ">=0.27.1,<0.34"
modules:
  ops: {MODULE}
rewrites:
  - versions: "<0.32.0"
    insert_after: {REWRITE.format(scope=OLD)}
  - versions: ">=0.32.0"
    insert_after: {REWRITE.format(scope=NEW)}
"""
CODEGEN = "vllm/compilation/codegen.py"


def _exec_line(version: str) -> int:
    data = Releases.from_env().get("vllm", Version(version), frozenset({CODEGEN})).read(CODEGEN)
    calls = [n for n in ast.walk(ast.parse(data or b"")) if isinstance(n, ast.Call)]
    (line,) = [c.lineno for c in calls if isinstance(c.func, ast.Name) and c.func.id == "exec"]
    return line


@pytest.mark.parametrize("version", ["0.32.0", "0.33.0"])
def test_vllms_generated_exec_is_refused_then_vouched_for(
    real_index: None, radpatch: Any, tmp_path: Path, version: str
) -> None:
    reg = tmp_path / "reg"
    write_entry(reg, "mm", ENTRY)
    report = json.loads(radpatch("--registry", str(reg), "verify", "mm", "--versions", version, "--json").out)
    error = report["results"][0]["error"] or ""
    assert f"{CODEGEN}:{_exec_line(version)} `exec(code, namespace)`" in error, error
    added = error.split("add to the entry: ", 1)[1]
    vouched = yaml.safe_load(added)["vouched_exec"]
    assert any(v["file"] == CODEGEN and v["code"] == "exec(code, namespace)" for v in vouched), vouched

    write_entry(reg, "mm", ENTRY + added + "\n")
    report = json.loads(radpatch("--registry", str(reg), "verify", "mm", "--versions", version, "--json").out)
    error = report["results"][0]["error"] or ""
    assert f"moved: {OLD} is now {NEW} in {MODULE} (renamed;" in error, error

    write_entry(reg, "mm", PORTED + added + "\n")
    report = json.loads(radpatch("--registry", str(reg), "verify", "mm", "--versions", version, "--json").out)
    assert report["results"][0]["ok"], report["results"][0]
    assert report["vouched_exec"] == [{"occurrence": 1, "binds": [], **v} for v in vouched]
