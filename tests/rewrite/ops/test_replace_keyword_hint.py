"""`replace` with `find: daemon=True`: a keyword argument typed alone parses as an assignment
statement, which no statement of the scope equals. The refusal says it is a keyword argument and
gives the set_keyword rewrite to write instead, which then applies as given (issue 20's study)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from radpatch.rewrite.matching import NotFound
from tests.lib.registry import entry_head, write_entry
from tests.lib.vllm_files import VERSIONS, install_vllm

CORE = "vllm/v1/engine/core.py"
HEAD = entry_head(
    "the engine's socket threads are not daemons", "vllm", {"core": "vllm.v1.engine.core"}, ">=0.32.0,<0.34"
)


def entry(reg: Path, rewrite: str) -> None:
    write_entry(reg, "daemon", HEAD + textwrap.indent(rewrite.strip() + "\n", "  "))


def daemon_lines(source: str, value: str) -> list[int]:
    return [i + 1 for i, line in enumerate(source.splitlines()) if line.strip() == f"daemon={value},"]


@pytest.mark.vllm  # real vLLM modules (tests/fixtures/vllm) through the whole pipeline: the real tier
@pytest.mark.parametrize("version", VERSIONS)
def test_the_refusal_gives_the_set_keyword_rewrite_and_that_rewrite_applies(
    version: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    originals = install_vllm(site.root, version)
    reg = tmp_path / "reg"
    entry(reg, "- replace: {scope: EngineCoreProc.__init__, find: daemon=True, with: daemon=False}")
    r = radpatch("--registry", str(reg), "apply", "daemon")
    assert r.code == 1 and site.snapshot()[CORE] == originals[CORE]
    lines = daemon_lines(originals[CORE].decode(), "True")
    assert len(lines) == 2  # vLLM 0.32/0.33 start two socket threads in EngineCoreProc.__init__
    assert f"`daemon=True` is a keyword argument of the call to `threading.Thread` at line {lines[0]}" in r.err
    assert f"at lines {lines[0]}, {lines[1]}: `occurrence:` picks one" in r.err
    assert "`occurrence: all` changes every one" in r.err  # both socket threads may be the fix
    assert "check the version range" not in r.err  # not NotFound's hint: the code is there
    suggested = re.search(r"^\s*(- set_keyword: \{.*\})$", r.err, flags=re.MULTILINE)
    assert suggested is not None, r.err
    assert suggested.group(1) == (
        '- set_keyword: {scope: EngineCoreProc.__init__, call: threading.Thread, keyword: daemon, from: "True", '
        'to: "False", occurrence: 1}'
    )
    entry(reg, suggested.group(1))  # written as the hint says: it applies first time
    r = radpatch("--registry", str(reg), "apply", "daemon")
    assert r.code == 0, r.err
    patched = (site.root / CORE).read_text()
    assert daemon_lines(patched, "False") == lines[:1] and daemon_lines(patched, "True") == lines[1:]
    assert radpatch("--registry", str(reg), "revert", "daemon").code == 0
    assert site.snapshot()[CORE] == originals[CORE]


def test_one_call_gives_no_occurrence_and_a_with_that_is_no_keyword_leaves_to_for_the_author() -> None:
    from radpatch.rewrite.ops.replace import Replace
    from radpatch.rewrite.source import Source

    src = Source.parse("def f(t):\n    return t.Timer(1, cb, daemon = (True))\n")
    with pytest.raises(NotFound) as info:
        Replace("f", "daemon=True", "pass").forward(src)
    assert str(info.value).endswith(
        "`daemon=True` is a keyword argument of the call to `t.Timer` at line 2, not a statement"
    )
    assert info.value.hint.endswith(
        '\n  - set_keyword: {scope: f, call: t.Timer, keyword: daemon, from: "True", to: "<new value>"}'
    )


def test_an_assignment_no_call_passes_keeps_the_usual_refusal() -> None:
    from radpatch.rewrite.ops.replace import Replace
    from radpatch.rewrite.source import Source

    src = Source.parse("def f(t):\n    x = 1\n    return t.Timer(1, cb, daemon=False)\n")
    with pytest.raises(NotFound) as info:
        Replace("f", "daemon=True", "daemon=False").forward(src)
    assert "keyword argument" not in str(info.value) and "set_keyword" not in info.value.hint


def test_several_calls_passing_the_keyword_name_occurrence_all_too() -> None:
    from radpatch.rewrite.ops.replace import Replace
    from radpatch.rewrite.source import Source

    src = Source.parse("def f(t):\n    t.Thread(daemon=True)\n    t.Thread(daemon=True)\n")
    with pytest.raises(NotFound) as info:
        Replace("f", "daemon=True", "daemon=False").forward(src)
    assert "2 calls to `t.Thread` pass it, at lines 2, 3" in info.value.hint, info.value.hint
    assert "`occurrence: all` changes every one" in info.value.hint, info.value.hint
