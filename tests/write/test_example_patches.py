"""examples/registry/ on real vLLM 0.32.0 and 0.33.0 module files (tests/fixtures/vllm/), through
the CLI on a fake site-packages: apply, status, idempotent second apply, byte-identical revert."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.prove import plan
from radpatch.registry.loader import load_patch
from radpatch.registry.model import rewrites_by_file
from radpatch.rewrite import runner
from tests.lib.vllm_files import VERSIONS, fixture, install_vllm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "registry"
CASES = [
    (f.stem, v)
    for f in sorted(EXAMPLES.glob("*.yaml"))
    for v in VERSIONS
    if Version(v) in load_patch(f).supported and not (load_patch(f).obsolete and Version(v) in load_patch(f).obsolete)
]


def test_there_are_at_least_five_examples_each_with_the_schema_line_and_a_description() -> None:
    files = sorted(EXAMPLES.glob("*.yaml"))
    assert len(files) >= 5
    for f in files:
        assert f.read_text().splitlines()[0] == "# yaml-language-server: $schema=../../radpatch/registry.schema.json"
        assert len(load_patch(f).description) > 200


@pytest.mark.vllm  # real vLLM modules (tests/fixtures/vllm) through the whole pipeline: the real tier
@pytest.mark.parametrize(("name", "version"), CASES)
def test_example_applies_and_reverts_byte_for_byte(name: str, version: str, site: Any, radpatch: Any) -> None:
    originals = install_vllm(site.root, version)
    reg = ("--registry", str(EXAMPLES))
    r = radpatch(*reg, "apply", name)
    assert r.code == 0, r.err
    patched = site.snapshot()
    changed = [rel for rel, data in originals.items() if patched[rel] != data]
    assert changed, "the example changes its module"
    status = json.loads(radpatch(*reg, "status", "--json", name).out)
    assert status[0]["state"] == "applied"

    r = radpatch(*reg, "apply", name)
    assert r.code == 0 and "already applied" in r.out
    assert site.snapshot() == patched

    r = radpatch(*reg, "revert", name)
    assert r.code == 0, r.err
    assert {rel: (site.root / rel).read_bytes() for rel in originals} == originals


@pytest.mark.vllm  # real vLLM modules (tests/fixtures/vllm) through the whole pipeline: the real tier
@pytest.mark.parametrize(("name", "version"), CASES)
def test_example_plan_is_reversible_without_the_kept_original(name: str, version: str) -> None:
    """What apply proves: the structural inverse is AST-equal to the original and re-applies to the same bytes."""
    patch = load_patch(EXAMPLES / f"{name}.yaml")
    v = Version(version)
    for target, rws in rewrites_by_file(patch, v).items():
        choice = patch.module(target).module_for(v)
        assert choice is not None
        before = fixture(version, choice.relpath)
        after = plan.plan(patch, rws, choice.module, Path(choice.relpath), before).after
        undone = runner.backward(patch, rws, after, choice.relpath)
        assert ast.dump(ast.parse(undone)) == ast.dump(ast.parse(before))
        assert runner.forward(patch, rws, undone, choice.relpath) == after


def _function(source: bytes, cls: str, name: str) -> str:
    klass = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == cls)
    return ast.dump(next(n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == name))


def test_the_step3_backport_gives_0_32_exactly_the_code_0_33_ships() -> None:
    patch = load_patch(EXAMPLES / "step3_param_regex.yaml")
    rel = "vllm/tool_parsers/step3_tool_parser.py"
    after = runner.forward(patch, patch.rewrites, fixture("0.32.0", rel), rel)
    assert _function(after, "Step3ToolParser", "_parse_steptml_invoke") == _function(
        fixture("0.33.0", rel), "Step3ToolParser", "_parse_steptml_invoke"
    )
    assert _function(fixture("0.32.0", rel), "Step3ToolParser", "_parse_steptml_invoke") != _function(
        fixture("0.33.0", rel), "Step3ToolParser", "_parse_steptml_invoke"
    )


def test_the_step3_backport_is_obsolete_on_0_33(site: Any, radpatch: Any) -> None:
    originals = install_vllm(site.root, "0.33.0")
    r = radpatch("--registry", str(EXAMPLES), "apply", "step3_param_regex")
    assert r.code == 0 and "nothing to do" in r.out
    assert {rel: (site.root / rel).read_bytes() for rel in originals} == originals
