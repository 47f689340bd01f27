"""Every operation on real vLLM 0.32.0 and 0.33.0 files (tests/fixtures/vllm), through the CLI on a
fake site-packages: a table of one case per operation, each checked the same way (apply, idempotent
second apply, byte-identical revert); refusals leave every file as it was and name the rewrite and
its registry file:line; finds typed in another layout, or of several statements, on real code."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.lib.registry import write_entry
from tests.lib.vllm_files import VERSIONS, install_vllm

# real vLLM modules through the whole pipeline, per operation and release: the real tier
pytestmark = pytest.mark.vllm

HEAD = """\
summary: one operation on real vLLM code
description: test
distribution: vllm
supported: ">=0.32.0,<0.34"
modules:
  m: {module}
rewrites:
"""
CORE = "vllm.v1.engine.core"
FINISH = "self.scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)"
PAYLOAD = (
    '"""A payload with an import and a constant."""\nimport dataclasses\n\n_RADIANCE_LIMIT = 3\n\n\n'
    "def _radiance_probe():\n    return dataclasses.fields, _RADIANCE_LIMIT\n"
)

OPERATIONS: dict[str, tuple[str, str]] = {
    "insert_definitions": (CORE, "insert_definitions: {payload: payload.py, before: EngineCore}"),
    "add_parameter": (
        CORE,
        "add_parameter: {function: EngineCore.abort_requests, name: radiance_reason, default: None}",
    ),
    "set_default": (
        "vllm.v1.engine.async_llm",
        "set_default: {function: AsyncLLM.wait_for_requests_to_drain, parameter: drain_timeout, from: 300, to: 600}",
    ),
    "insert_after": (
        CORE,
        f"insert_after: {{scope: EngineCore.abort_requests, find: '{FINISH}', code: 'logger.debug(\"aborted %d\", "
        "len(request_ids))'}",
    ),
    "insert_before": (
        CORE,
        f"insert_before: {{scope: EngineCore.abort_requests, find: '{FINISH}', code: 'request_ids = "
        "list(request_ids)'}",
    ),
    "replace": (
        CORE,
        "replace:\n  scope: EngineCore.abort_requests\n  find: |\n    self.scheduler.finish_requests(\n"
        "        request_ids,  # typed over lines\n        RequestStatus.FINISHED_ABORTED)\n  with: |\n"
        "    ids = list(request_ids)\n    self.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)",
    ),
    "delete": (
        CORE,
        "delete: {scope: EngineCoreProc.startup_handshake, find: \"logger.debug('Waiting for init message from "
        "front-end.')\"}",
    ),
    "add_decorator": (
        CORE,
        "add_decorator: {function: EngineCore.abort_requests, decorator: 'instrument(span_name=\"Abort requests\")'}",
    ),
    "remove_decorator": (
        CORE,
        "remove_decorator: {function: EngineCoreProc.startup_handshake, decorator: staticmethod}",
    ),
    "replace_decorator": (
        CORE,
        "replace_decorator: {function: EngineCore._initialize_kv_caches, find: \"instrument(span_name='Prepare "
        "model')\", "
        "with: 'instrument(span_name=\"Prepare model and KV cache\")'}",
    ),
    "wrap_body": (
        CORE,
        "wrap_body:\n  function: EngineCore.abort_requests\n  with: |\n    try:\n        __body__\n    except "
        "Exception:\n"
        '        logger.exception("abort failed")\n        raise',
    ),
    "replace_body": (
        CORE,
        f"replace_body: {{function: EngineCore.abort_requests, find: '{FINISH}', "
        "with: 'self.scheduler.finish_requests(list(request_ids), RequestStatus.FINISHED_ABORTED)'}",
    ),
    "add_import": (CORE, "add_import: {import: import dataclasses}"),
    "set_constant": (CORE, "set_constant: {name: HANDSHAKE_TIMEOUT_MINS, from: 5, value: 10}"),
    "set_constant (new)": (CORE, "set_constant: {name: RADIANCE_RETRIES, value: 3}"),
}


def registry(tmp_path: Path, module: str, rewrite: str) -> Path:
    """tmp_path/reg holding the entry `op` (HEAD, then `rewrite` as its one rewrite) and payload.py."""
    text = HEAD.format(module=module) + textwrap.indent(f"- id: the-op\n{textwrap.indent(rewrite, '  ')}\n", "  ")
    return write_entry(tmp_path / "reg", "op", text, {"payload.py": PAYLOAD}, dedent=False).parent


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_operation_applies_and_reverts_byte_for_byte(
    operation: str, version: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    module, rewrite = OPERATIONS[operation]
    originals = install_vllm(site.root, version)
    reg = ("--registry", str(registry(tmp_path, module, rewrite)))
    r = radpatch(*reg, "apply", "op")
    assert r.code == 0, r.err
    patched = site.snapshot()
    rel = module.replace(".", "/") + ".py"
    assert patched[rel] != originals[rel]
    assert radpatch(*reg, "status", "--check", "op").code == 0
    r = radpatch(*reg, "apply", "op")
    assert r.code == 0 and "already applied" in r.out
    assert site.snapshot() == patched
    r = radpatch(*reg, "revert", "op")
    assert r.code == 0, r.err
    assert {p: (site.root / p).read_bytes() for p in originals} == originals


REFUSALS: dict[str, tuple[str, str, str]] = {
    "typo in find": (
        CORE,
        "replace: {scope: EngineCore.abort_requests, find: 'self.scheduler.finish_request(request_ids, "
        "RequestStatus.FINISHED_ABORTED)', with: pass}",
        "closest candidate",
    ),
    "another version's code": (
        CORE,
        "replace: {scope: EngineCore.abort_requests, find: 'await self.scheduler.drain(timeout=30)', with: pass}",
        "nothing in the scope is similar",
    ),
    "ambiguous": (
        CORE,
        "replace: {scope: EngineCoreProc.startup_handshake, find: handshake_socket, with: sock}",
        "(ambiguous): lines ",
    ),
    "wrong current default": (
        "vllm.v1.engine.async_llm",
        "set_default: {function: AsyncLLM.wait_for_requests_to_drain, parameter: drain_timeout, from: 30, to: 600}",
        "defaults to 300, not 30",
    ),
    "payload clash": (CORE, "insert_definitions: {payload: clash.py, before: EngineCore}", "already binds 'logger'"),
    "new constant that exists": (
        CORE,
        "set_constant: {name: HANDSHAKE_TIMEOUT_MINS, value: 10}",
        "already binds HANDSHAKE_TIMEOUT_MINS",
    ),
    "deep expression": (
        CORE,
        "replace: {scope: EngineCore.abort_requests, find: '" + "1+" * 3000 + "1', with: x}",
        "nested too deeply",
    ),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusal_names_the_rewrite_and_leaves_every_file_as_it_was(
    case: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    module, rewrite, says = REFUSALS[case]
    install_vllm(site.root, "0.32.0")
    d = registry(tmp_path, module, rewrite)
    (d / "clash.py").write_text("def logger():\n    pass\n")
    before = site.snapshot()
    r = radpatch("--registry", str(d), "apply", "op")
    assert r.code in (1, 2), r.err
    assert says in r.err
    assert "Traceback" not in r.err
    if r.code == 1:
        assert f"rewrite 'the-op' ({d / 'op.yaml'}:8:" in r.err
    assert site.snapshot() == before


HANDSHAKE_WITH = """\
waited_mins = 0
while not handshake_socket.poll(timeout=60_000):
    waited_mins += 1
    if waited_mins >= HANDSHAKE_TIMEOUT_MINS:
        raise RuntimeError(f"Did not receive response from front-end process within {HANDSHAKE_TIMEOUT_MINS} minutes")
"""
FINDS = {
    "one line, one f-string": (
        "if not handshake_socket.poll(timeout=HANDSHAKE_TIMEOUT_MINS * 60_000): raise RuntimeError("
        "f'Did not receive response from front-end process within {HANDSHAKE_TIMEOUT_MINS} minutes')"
    ),
    "comments and parentheses": """\
if not (handshake_socket.poll(timeout=(HANDSHAKE_TIMEOUT_MINS * 60_000))):  # my comment
    # and another
    raise RuntimeError('Did not receive response from front-end '
                       f'process within {HANDSHAKE_TIMEOUT_MINS} minutes')
""",
    "broken over more lines than upstream": """\
if not handshake_socket.poll(
    timeout=HANDSHAKE_TIMEOUT_MINS
    * 60_000
):
    raise RuntimeError(
        "Did not receive response from front-end process within "
        f"{HANDSHAKE_TIMEOUT_MINS} minutes"
    )
""",
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("find", list(FINDS))
def test_a_reformatted_find_replacing_one_statement_by_two_reverts_byte_for_byte(
    find: str, version: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    rewrite = (
        "replace:\n  scope: EngineCoreProc.startup_handshake\n  find: |\n"
        + textwrap.indent(FINDS[find].rstrip("\n") + "\n", "    ")
        + "  with: |\n"
        + textwrap.indent(HANDSHAKE_WITH, "    ")
    )
    originals = install_vllm(site.root, version)
    reg = ("--registry", str(registry(tmp_path, CORE, rewrite)))
    r = radpatch(*reg, "apply", "op")
    assert r.code == 0, r.err
    text = (site.root / "vllm/v1/engine/core.py").read_text()
    assert "while not handshake_socket.poll(timeout=60_000):" in text and "HANDSHAKE_TIMEOUT_MINS * 60_000" not in text
    diff = radpatch(*reg, "diff", "op").out
    lines = diff.splitlines()
    removed = [x for x in lines if x.startswith("-") and not x.startswith("---")]
    added = [x for x in lines if x.startswith("+") and not x.startswith("+++")]
    assert (len(removed), len(added)) == (6, 5), diff  # diffed against the kept original: no layout noise
    assert radpatch(*reg, "apply", "op").code == 0
    r = radpatch(*reg, "revert", "op")
    assert r.code == 0, r.err
    assert {p: (site.root / p).read_bytes() for p in originals} == originals


MULTI = {
    "replace, find typed with a semicolon": (
        "replace:\n  scope: EngineCoreProc.run_busy_loop\n  find: self._process_engine_step(); "
        "self._maybe_publish_request_counts()\n  with: |\n    executed = self._process_engine_step()\n"
        "    if executed:\n        self._maybe_publish_request_counts()"
    ),
    "insert_after two statements": (
        "insert_after:\n  scope: EngineCoreProc.run_busy_loop\n  find: |\n    self._process_input_queue()\n"
        "    self._maybe_publish_request_counts()  # before the step\n  code: logger.debug('radiance polled')"
    ),
    "delete two statements typed on one line": (
        "delete: {scope: EngineCoreProc.run_busy_loop, find: 'self._process_engine_step(); "
        "self._maybe_publish_request_counts()'}"
    ),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", list(MULTI))
def test_several_statements_on_real_vllm_apply_and_revert_byte_for_byte(
    case: str, version: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    originals = install_vllm(site.root, version)
    reg = ("--registry", str(registry(tmp_path, CORE, MULTI[case])))
    r = radpatch(*reg, "apply", "op")
    assert r.code == 0, r.err
    patched = site.snapshot()
    assert patched["vllm/v1/engine/core.py"] != originals["vllm/v1/engine/core.py"]
    compile(patched["vllm/v1/engine/core.py"], "core.py", "exec")
    assert radpatch(*reg, "status", "--check", "op").code == 0
    assert radpatch(*reg, "apply", "op").code == 0 and site.snapshot() == patched
    assert radpatch(*reg, "revert", "op").code == 0
    assert {p: (site.root / p).read_bytes() for p in originals} == originals
