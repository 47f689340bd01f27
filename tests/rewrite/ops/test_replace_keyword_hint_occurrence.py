"""att20c F2: `replace {find: daemon=True, with: daemon=False, occurrence: N}` gets the same hint
as without `occurrence:` (the keyword argument, and the set_keyword rewrite to write), for every
`occurrence:` spelling, through the whole pipeline on the real vLLM modules."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.lib.registry import entry_head, write_entry
from tests.lib.vllm_files import install_vllm

CORE = "vllm/v1/engine/core.py"
HEAD = entry_head(
    "the engine's socket threads are not daemons", "vllm", {"core": "vllm.v1.engine.core"}, ">=0.32.0,<0.34"
)


@pytest.mark.vllm
@pytest.mark.parametrize("occurrence", ["", *(f", occurrence: {n}" for n in ("1", "2", "3", "all"))])
def test_a_keyword_find_gets_the_set_keyword_hint_whatever_its_occurrence(
    occurrence: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    originals = install_vllm(site.root, "0.33.0")
    reg = tmp_path / "reg"
    rewrite = f"- replace: {{scope: EngineCoreProc.__init__, find: daemon=True, with: daemon=False{occurrence}}}"
    write_entry(reg, "daemon", HEAD + textwrap.indent(rewrite + "\n", "  "))
    r = radpatch("--registry", str(reg), "apply", "daemon")
    assert r.code == 1 and site.snapshot()[CORE] == originals[CORE]
    assert "`daemon=True` is a keyword argument of the call to `threading.Thread`" in r.err, r.err
    assert "- set_keyword: {scope: EngineCoreProc.__init__, call: threading.Thread, keyword: daemon" in r.err, r.err
    assert "check the version range" not in r.err and "does not exist" not in r.err, r.err
