"""A `find` the code holds but not as a match says what to write instead, never "check the version
range": part of a longer chain (`a and b` of `a and b and c`), an attribute's name, a call's
arguments, a call passing other arguments, a compound statement's header. On literal sources
and on real vLLM 0.32.0/0.33.0 core.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from radpatch.errors import RefusedError, RegistryError
from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite import runner
from radpatch.rewrite.matching import NotFound
from radpatch.rewrite.ops.replace import Replace
from tests.lib.registry import write_entry
from tests.lib.vllm_files import VERSIONS, fixture

SRC = """\
def f(a, b, c, x, g):
    if a and b and c:
        return x + a + b
    y = g(a, b, key=1)
    return self.timeout
"""


def line_of(text: str, source: str = SRC) -> int:
    return next(i + 1 for i, ln in enumerate(source.splitlines()) if text in ln)


def refusal(source: str, op: Replace) -> RefusedError:
    rw = Rewrite("r", "mod", None, op, "reg.yaml:1")
    patch = Patch("t", "t", "t", "toypkg", SpecifierSet(""), None, (), (), (rw,), Path("t.yaml"), "0")
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, source.encode(), "mod.py")
    return info.value


@pytest.mark.parametrize(
    ("find", "whole", "why"),
    [
        ("a and b", "if a and b and c", "a chain of `and`/`or` as one operation"),
        ("a + b", "return x + a + b", "operators group left to right"),
        ("timeout", "return self.timeout", "an attribute's name is not an expression"),
        ("a, b", "y = g(a, b, key=1)", "a call's arguments are each an expression"),
    ],
)
def test_part_of_a_larger_expression_names_it_and_says_to_write_the_whole(find: str, whole: str, why: str) -> None:
    exc = refusal(SRC, Replace("f", find, "z"))
    assert f"`{find}` is part of `" in exc.message and f"(line {line_of(whole)})" in exc.message
    assert why in exc.message
    assert exc.hint.startswith("make `find` the whole expression shown") and "version range" not in exc.hint


def test_a_call_passing_other_arguments_is_shown_with_every_argument() -> None:
    exc = refusal(SRC, Replace("f", "g(a, b)", "g(b, a)"))
    assert f"line {line_of('y = g(')}: `g(a, b, key=1)`" in exc.message
    assert "every argument" in exc.hint and "set_keyword" in exc.hint


def test_code_the_scope_does_not_hold_at_all_keeps_the_version_hint() -> None:
    assert refusal(SRC, Replace("f", "q and r", "q")).hint == NotFound.hint


def test_a_compound_statements_header_as_find_is_a_registry_error_saying_what_to_write(tmp_path: Path) -> None:
    f = write_entry(
        tmp_path,
        "h",
        """\
            summary: s
            description: d
            distribution: toypkg
            supported: ">=1"
            modules: {m: toypkg.m}
            rewrites:
              - replace: {scope: f, find: "if a and b:", with: "if a:"}
            """,
    )
    with pytest.raises(RegistryError) as info:
        load_patch(f)
    (problem,) = [p for p in info.value.problems if "find" in p]
    assert problem.startswith(f"{f}:7:") and "a compound statement's header without its body" in problem
    assert "`within:`" in problem


@pytest.mark.parametrize("version", VERSIONS)
def test_real_core_part_of_has_works_or_chain(version: str) -> None:
    source = fixture(version, "vllm/v1/engine/core.py").decode()
    chain = "self.engines_running or self.scheduler.has_requests() or bool(self.batch_queue)"
    exc = refusal(
        source, Replace("EngineCoreProc.has_work", "self.scheduler.has_requests() or bool(self.batch_queue)", "x")
    )
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "EngineCoreProc")
    fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "has_work")
    (line,) = [n.lineno for n in ast.walk(fn) if isinstance(n, ast.BoolOp) and ast.unparse(n) == chain]
    assert f"is part of `{chain}` (line {line})" in exc.message
    assert "version range" not in exc.hint


CLASS = """\
from typing import ClassVar


class Model:
    is_3d_moe_weight: ClassVar[bool] = True
    packed_modules_mapping: dict[str, list[str]] = {"qkv_proj": ["q_proj", "k_proj", "v_proj"], "gate": ["up"]}
    retries = 3

    def f(self):
        self.count += 1
        return self.count
"""


@pytest.mark.parametrize(
    ("scope", "find", "code"),
    [
        ("Model", "is_3d_moe_weight = True", "is_3d_moe_weight: ClassVar[bool] = True"),
        ("Model", "packed_modules_mapping = {}", "packed_modules_mapping: dict[str, list[str]] = {"),
        ("Model", "retries: int = 5", "retries = 3"),
        ("Model.f", "self.count = self.count + 1", "self.count += 1"),
    ],
    ids=["missing-annotation", "other-value", "extra-annotation", "augmented"],
)
def test_an_assignment_to_the_same_target_is_shown_and_the_hint_says_fix_find(scope: str, find: str, code: str) -> None:
    exc = refusal(CLASS, Replace(scope, find, "x = 1"))
    assert f"the code assigns the same target at line {line_of(code, CLASS)}" in exc.message, exc.message
    assert code in exc.message and "fix `find`" in exc.hint and "version" not in exc.hint


def test_a_decorator_without_its_call_is_shown_and_the_hint_says_what_to_write() -> None:
    from radpatch.rewrite.ops.decorators import RemoveDecorator, ReplaceDecorator

    source = "import torch\n\n\nclass W:\n    @torch.inference_mode()\n    def run(self):\n        return 1\n"
    for op in (
        ReplaceDecorator("W.run", "torch.inference_mode", "torch.no_grad()"),
        RemoveDecorator("W.run", "torch.inference_mode"),
    ):
        rw = Rewrite("r", "mod", None, op, "reg.yaml:1")
        patch = Patch("t", "t", "t", "toypkg", SpecifierSet(""), None, (), (), (rw,), Path("t.yaml"), "0")
        with pytest.raises(RefusedError) as info:
            runner.forward(patch, patch.rewrites, source.encode(), "mod.py")
        assert "torch.inference_mode()" in info.value.hint and "fix `" in info.value.hint, info.value.hint
        assert "version" not in info.value.hint
