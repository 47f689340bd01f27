"""`radpatch port` end to end on real vLLM with an entry carrying `vouched_exec:` items (issue 23, vouch2 #3).

vLLM 0.33.0 binds `minimax_m3_build_sparse_block_table` to `..._decode` (a rename, read off the release
by tests/releases/test_real_rename_large_package.py); an entry written for 0.27.1 names the old one.
Port to 0.33.0 follows the rename only where no module of the package may store either name: code run
by `exec` it cannot read may. The entry vouches for vllm/compilation/codegen.py's `exec(code,
namespace)` as read on 0.27.1 (its `reads:` digest, off 0.27.1's file): port refuses, naming that call
(the code it depends on changed since) and each other such call 0.33.0 has, printing the items; the
file is left as it was. With the items it prints, written in block style under a comment, port follows
the rename on 0.33.0 (moved) and its edit (the variant under the new name) leaves the items and their
comments alone; the range it widens to holds 0.29 to 0.32, whose own exec calls no item vouches for,
so the edit does not prove there and is not written. Read by range requests (cached)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.version import Version

from radpatch.releases import exec_sites
from radpatch.releases.wheels import Releases
from tests.lib.registry import write_entry

pytestmark = [pytest.mark.network, pytest.mark.vllm]  # the package index's vLLM wheels

MODULE = "vllm.models.minimax_m3.amd.ops.sparse_pa"
OLD, NEW = "minimax_m3_build_sparse_block_table", "minimax_m3_build_sparse_block_table_decode"
CODEGEN = "vllm/compilation/codegen.py"
HEAD = f"""\
# the minimax decode fix: a comment port keeps
summary: s
description: d
distribution: vllm
supported: ">=0.27.1,<0.28"  # where it was written
modules:
  ops: {MODULE}
rewrites:
  - insert_after: {{scope: {OLD}, find: "topk = topk_idx.shape[-1]", code: "topk = int(topk)"}}
"""


def _codegen_site(version: str) -> exec_sites.Site:
    data = Releases.from_env().get("vllm", Version(version), frozenset({CODEGEN})).read(CODEGEN)
    (site,) = exec_sites.sites(CODEGEN, ast.parse(data or b""))
    return site


def _block(items: list[dict[str, Any]], note: str) -> str:
    """The items as an author writes them: block style, a comment above each."""
    out = ["vouched_exec:"]
    for v in items:
        out += [f"  # {note}", f"  - file: {v['file']}", f"    scope: {json.dumps(v['scope'])}"]
        out += [f"    code: {json.dumps(v['code'])}"]
        out += [f"    occurrence: {v['occurrence']}"] if "occurrence" in v else []
        out += [f"    binds: {json.dumps(v.get('binds', []))}", f"    reads: {json.dumps(v['reads'])}  # as read"]
    return "\n".join(out) + "\n"


def test_port_refuses_then_follows_on_the_items_it_prints_keeping_them(
    real_index: None, radpatch: Any, tmp_path: Path
) -> None:
    old, new = _codegen_site("0.27.1"), _codegen_site("0.33.0")
    assert old.reads != new.reads and old.binds == new.binds  # codegen's exec: same statement, its code changed
    vouched = {"file": CODEGEN, "scope": old.scope, "code": old.code, "binds": list(old.binds), "reads": old.reads}
    path = write_entry(tmp_path, "mm", HEAD + _block([vouched], "read on 0.27.1"), dedent=False)
    before = path.read_text()
    r = radpatch("--registry", str(tmp_path), "port", "mm", "--to", "0.33.0")
    assert r.code != 0 and "left alone" in r.out and path.read_text() == before, r.out + r.err
    said = f"{CODEGEN}:{new.line} `{new.code}` (the code the call depends on ("
    assert said in r.out and f"changed: reads {new.reads}, vouched {old.reads}: read it again" in r.out, r.out
    printed = yaml.safe_load("vouched_exec: [" + r.out.split("vouched_exec: list: ", 1)[1].split("\n", 1)[0] + "]")
    items = printed["vouched_exec"]
    assert {"file": CODEGEN, **{k: v for k, v in vouched.items() if k != "file"}, "reads": new.reads} in items, items

    block = _block(items, "read on 0.33.0: it stores no minimax name")
    path.write_text(HEAD + block)
    r = radpatch("--registry", str(tmp_path), "port", "mm", "--to", "0.33.0")
    assert f"0.33.0: moved: {OLD} is now {NEW} in {MODULE} (renamed;" in r.out, r.out  # followed, on the items
    assert "not followed as a rename" not in r.out, r.out
    diff = [t for t in r.out.splitlines() if t.startswith(("-", "+")) and not t.startswith(("---", "+++"))]
    assert diff and not any("vouched_exec" in t or "reads:" in t or "# read on" in t for t in diff), diff  # kept
    # 0.29 to 0.32, in the widened range, have calls of their own no item vouches for: the edit is not written
    assert r.code != 0 and "leaves a release of the new range failing" in r.out + r.err, r.out + r.err
    assert path.read_text() == HEAD + block, path.read_text()
