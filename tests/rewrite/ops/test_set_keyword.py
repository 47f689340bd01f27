"""set_keyword: one keyword argument of one call, found by callee, keyword and value.

Literal sources run through plan.plan as apply does (compile, names, the reverse proof); real vLLM
0.32.0/0.33.0 files through the CLI on a fake site-packages (apply, status, byte-identical
revert); every refusal names what is missing and says what to write instead.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from radpatch.errors import RefusedError, RegistryError
from radpatch.prove import plan
from radpatch.registry import json_schema
from radpatch.registry.loader import load_patch
from radpatch.rewrite import runner
from radpatch.rewrite.matching import Ambiguous, NearMiss, NotFound
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.registry import write_entry
from tests.lib.rewrites import patch_of
from tests.lib.vllm_files import VERSIONS, fixture, install_vllm

THREADS = """\
import threading


def start(work):
    ready = threading.Event()
    reader = threading.Thread(
        target=work,  # reads the socket
        daemon=True,
    )
    writer = threading.Thread(target=work, daemon=True, name="writer")
    for _ in range(2):
        helper = threading.Thread(target=work, daemon = True)
    return ready, reader, writer, helper
"""


def apply(before: str, op: SetKeyword, exact: bool = True) -> str:
    """The patched module as apply plans it (with the proof), checked to undo to the original:
    byte for byte when `from` is typed as the file has it, else AST-equal."""
    patch = patch_of(op)
    original = before.encode()
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), original).after
    undone = runner.backward(patch, patch.rewrites, after, "mod.py")
    assert undone == original if exact else ast.dump(ast.parse(undone)) == ast.dump(ast.parse(original))
    return after.decode()


def refusal(before: str, op: SetKeyword) -> RefusedError:
    patch = patch_of(op)
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, before.encode(), "mod.py")
    return info.value


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    return [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]


def test_the_keyword_of_the_one_matching_call_changes_and_nothing_else() -> None:
    op = SetKeyword("start", "threading.Thread", "name", '"writer"', '"radiance-writer"')
    after = apply(THREADS, op)
    assert changed_lines(THREADS, after) == [
        (
            '    writer = threading.Thread(target=work, daemon=True, name="writer")',
            '    writer = threading.Thread(target=work, daemon=True, name="radiance-writer")',
        )
    ]


def test_a_value_typed_in_another_layout_still_matches() -> None:
    after = apply(THREADS, SetKeyword("start", "threading . Thread", "name", "'writer'", "None"), exact=False)
    assert changed_lines(THREADS, after) == [
        (
            '    writer = threading.Thread(target=work, daemon=True, name="writer")',
            "    writer = threading.Thread(target=work, daemon=True, name=None)",
        )
    ]


def test_several_calls_passing_it_are_ambiguous_with_their_lines_and_occurrence_picks_one() -> None:
    exc = refusal(THREADS, SetKeyword("start", "threading.Thread", "daemon", "True", "False"))
    lines = [i + 1 for i, line in enumerate(THREADS.splitlines()) if re.search(r"daemon ?= ?True", line)]
    assert len(lines) == 3
    assert f"(ambiguous): lines {', '.join(map(str, lines))}" in exc.message
    assert exc.hint == Ambiguous.hint and "occurrence: N" in exc.hint
    after = apply(THREADS, SetKeyword("start", "threading.Thread", "daemon", "True", "False", occurrence=2))
    assert changed_lines(THREADS, after) == [
        (
            '    writer = threading.Thread(target=work, daemon=True, name="writer")',
            '    writer = threading.Thread(target=work, daemon=False, name="writer")',
        )
    ]


def test_within_narrows_to_the_call_inside_an_enclosing_statement() -> None:
    op = SetKeyword("start", "threading.Thread", "daemon", "True", "False", within="for _ in range(2):")
    after = apply(THREADS, op)
    assert changed_lines(THREADS, after) == [
        (
            "        helper = threading.Thread(target=work, daemon = True)",
            "        helper = threading.Thread(target=work, daemon = False)",
        )
    ]


def test_a_multiline_call_keeps_its_comments_and_layout() -> None:
    after = apply(THREADS, SetKeyword("start", "threading.Thread", "daemon", "True", "False", occurrence=1))
    assert changed_lines(THREADS, after) == [("        daemon=True,", "        daemon=False,")]
    assert "target=work,  # reads the socket" in after


def test_no_call_to_the_callee_is_refused_naming_similar_callees() -> None:
    exc = refusal(THREADS, SetKeyword("start", "Thread", "daemon", "True", "False"))
    assert "it has no call to `Thread`" in exc.message and "`threading.Thread` (line 6)" in exc.message
    assert "fix `call:`" in exc.hint
    exc = refusal(THREADS, SetKeyword("start", "subprocess.Popen", "daemon", "True", "False"))
    assert "it has no call to `subprocess.Popen`" in exc.message and "similar" not in exc.message
    assert "fix `call:`" in exc.hint


def test_a_call_that_does_not_pass_the_keyword_is_refused_saying_how_to_add_one() -> None:
    exc = refusal(THREADS, SetKeyword("start", "threading.Event", "daemon", "True", "False"))
    assert "the call(s) to `threading.Event` (line 5) pass no keyword argument `daemon`" in exc.message
    assert "to add one, leave `from:` out" in exc.hint


def test_another_value_is_refused_showing_the_values_the_calls_pass() -> None:
    exc = refusal(THREADS, SetKeyword("start", "threading.Thread", "name", '"reader"', '"x"'))
    assert 'line 10: `name="writer"`' in exc.message and "fix `from:`" in exc.hint


def test_a_missing_scope_is_refused_like_every_scoped_operation() -> None:
    exc = refusal(THREADS, SetKeyword("stop", "threading.Thread", "daemon", "True", "False"))
    assert "scope 'stop'" in exc.message


def test_the_inverse_refuses_when_the_result_is_not_there() -> None:
    patch = patch_of(SetKeyword("start", "threading.Thread", "name", '"writer"', '"radiance-writer"'))
    with pytest.raises(RefusedError) as info:
        runner.backward(patch, patch.rewrites, THREADS.encode(), "mod.py")
    assert "cannot undo" in info.value.message and '`name="radiance-writer"`' in info.value.message


def test_refusal_classes() -> None:
    """NearMiss where a plausible candidate is shown, NotFound otherwise, Ambiguous for several."""
    from radpatch.rewrite.source import Source

    src = Source.parse(THREADS)
    with pytest.raises(NearMiss):
        SetKeyword("start", "Thread", "daemon", "True", "False").forward(src)
    with pytest.raises(NotFound) as info:
        SetKeyword("start", "threading.Event", "daemon", "True", "False").forward(src)
    assert not isinstance(info.value, NearMiss)
    with pytest.raises(Ambiguous):
        SetKeyword("start", "threading.Thread", "daemon", "True", "False").forward(src)


# --- real vLLM files ---------------------------------------------------------------------------

CORE = "vllm/v1/engine/core.py"


def _thread_lines(source: str) -> list[int]:
    """Lines of `daemon=True` passed to threading.Thread in EngineCoreProc.__init__, read with ast."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "EngineCoreProc")
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    return [
        kw.value.lineno
        for node in ast.walk(init)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "threading.Thread"
        for kw in node.keywords
        if kw.arg == "daemon" and ast.unparse(kw.value) == "True"
    ]


@pytest.mark.vllm  # real vLLM modules (tests/fixtures/vllm) through the whole pipeline: the real tier
@pytest.mark.parametrize("version", VERSIONS)
def test_real_core_two_daemon_threads_are_ambiguous_until_occurrence_picks_the_output_thread(version: str) -> None:
    source = fixture(version, CORE).decode()
    lines = _thread_lines(source)
    assert len(lines) == 2  # vLLM's input and output socket threads
    exc = refusal(source, SetKeyword("EngineCoreProc.__init__", "threading.Thread", "daemon", "True", "False"))
    assert f"lines {lines[0]}, {lines[1]}" in exc.message
    op = SetKeyword("EngineCoreProc.__init__", "threading.Thread", "daemon", "True", "False", occurrence=2)
    after = apply(source, op)
    assert changed_lines(source, after) == [
        (source.splitlines()[lines[1] - 1], source.splitlines()[lines[1] - 1].replace("True", "False"))
    ]


HEAD = """\
summary: the output socket thread is not a daemon
description: test
distribution: vllm
supported: ">=0.32.0,<0.34"
modules:
  core: vllm.v1.engine.core
rewrites:
  - id: output-thread
    set_keyword:
"""
ENTRY = HEAD + textwrap.indent(SetKeyword.EXAMPLE, "      ") + "\n"


@pytest.mark.vllm  # real vLLM modules (tests/fixtures/vllm) through the whole pipeline: the real tier
@pytest.mark.parametrize("version", VERSIONS)
def test_real_core_applies_reads_applied_and_reverts_byte_for_byte_through_the_cli(
    version: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    originals = install_vllm(site.root, version)
    reg = tmp_path / "reg"
    write_entry(reg, "daemon", ENTRY)
    r = radpatch("--registry", str(reg), "apply", "daemon")
    assert r.code == 0, r.err
    patched = (site.root / CORE).read_text()
    assert _thread_lines(patched) == _thread_lines(originals[CORE].decode())[:1]  # the input thread stays a daemon
    assert radpatch("--registry", str(reg), "status", "--check", "daemon").code == 0
    shown = radpatch("--registry", str(reg), "show", "daemon")
    assert "set daemon=False (was True) in a call to threading.Thread in EngineCoreProc.__init__" in shown.out
    r = radpatch("--registry", str(reg), "revert", "daemon")
    assert r.code == 0, r.err
    assert site.snapshot()[CORE] == originals[CORE]


# --- the registry ------------------------------------------------------------------------------


def _entry(tmp_path: Path, body: str) -> Path:
    return write_entry(tmp_path, "k", HEAD + textwrap.indent(textwrap.dedent(body), "      "))


def test_the_example_loads_into_the_spec_and_validates_against_the_json_schema(tmp_path: Path) -> None:
    f = _entry(tmp_path, SetKeyword.EXAMPLE + "\n")
    (rw,) = load_patch(f).rewrites
    assert rw.op == SetKeyword("EngineCoreProc.__init__", "threading.Thread", "daemon", "True", "False", occurrence=2)
    jsonschema.validate(yaml.safe_load(f.read_text()), json.loads(json_schema.render()))


@pytest.mark.parametrize(
    ("body", "problem", "schema_sees_it"),
    [
        ("scope: f\ncall: t.T\nkeyword: daemon\n", "give 'from' or 'to', or both", True),
        ("scope: f\ncall: t.T\nkeyword: daemon\nfrom: '1'\nto: '2'\nafter: b\n", "to change a value, leave it", False),
        ("scope: f\ncall: t.T\nkeyword: daemon\nto: '2'\nafter: daemon\n", "names another keyword", False),
        ("scope: f\ncall: t.T\nkeyword: daemon=True\nfrom: 'True'\nto: 'False'\n", "is not a Python identifier", True),
        ("scope: f\ncall: t.T\nkeyword: daemon\nfrom: 'True'\nto: 'False'\nvalue: 1\n", "unknown key 'value'", True),
        # JSON Schema cannot parse Python: the loader alone refuses these
        ("scope: f\ncall: 't.T('\nkeyword: daemon\nfrom: 'True'\nto: 'False'\n", "is not a Python expression", False),
        ("scope: f\ncall: t.T\nkeyword: daemon\nfrom: 'True'\nto: 'x ='\n", "is not a Python expression", False),
    ],
)
def test_bad_keys_are_registry_errors_with_file_and_line(
    tmp_path: Path, body: str, problem: str, schema_sees_it: bool
) -> None:
    f = _entry(tmp_path, body)
    with pytest.raises(RegistryError) as info:
        load_patch(f)
    assert any(p.startswith(f"{f}:") and problem in p for p in info.value.problems), info.value.problems
    if schema_sees_it:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(yaml.safe_load(f.read_text()), json.loads(json_schema.render()))
