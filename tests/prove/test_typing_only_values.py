"""A patch that changes only the value of a variable in `if TYPE_CHECKING:` (`X: int = 600` ->
`X: int = 1800`) changes nothing: the block never runs, and type checkers read the annotation, not
the value. A new user who follows set_constant's refusal onto vLLM's envs.py (whose values come from
a module `__getattr__`) writes exactly that, and it used to read applied. The proof refuses it,
naming what gives the name its value at run time; an annotation changed there, or a change to the
binding that runs, is still accepted.

Generated: the guard's spelling x the variable's form x what binds it at run time x the edit. The
oracle runs both modules as real modules (their `__getattr__` included) and compares the name's
value at run time and the annotation type checkers read: refused exactly when neither changes."""

from __future__ import annotations

import ast
import itertools
import types

import pytest

from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.generated import sample
from tests.lib.reach import unreachable
from tests.lib.rewrites import refusal
from tests.lib.vllm_files import fixture

GUARDS = {
    "plain": ("from typing import TYPE_CHECKING\n", "TYPE_CHECKING"),
    "dotted": ("import typing\n", "typing.TYPE_CHECKING"),
}
FORMS = {  # (the typing-only statement, its value changed, its annotation changed)
    "annotated-int": ("X: int = 600", "X: int = 1800", "X: float = 600"),
    "plain-int": ("X = 600", "X = 1800", None),
    "annotated-str": ('X: str = "a"', 'X: str = "b"', 'X: "str | None" = "a"'),
    "annotated-tuple": ("X: tuple[int, ...] = (1, 2)", "X: tuple[int, ...] = (1, 3)", "X: tuple = (1, 2)"),
}
RUNTIME = {  # what gives X its value when the module runs (before, and with its value changed)
    "getattr": ("_env = {'X': 600}\n\ndef __getattr__(name):\n    return _env[name]\n", "{'X': 900}"),
    "later": ("X = int('600')\n", "int('900')"),
    "none": ("", None),
}
EDITS = ("value", "annotation", "runtime")


def module(guard: str, stub: str, runtime: str) -> str:
    imp, test = GUARDS[guard]
    return f"{imp}\nif {test}:\n    {stub}\n\n{runtime}"


def run_value(code: str) -> object:
    mod = types.ModuleType("generated")
    exec(compile(code, "generated.py", "exec"), mod.__dict__)
    return getattr(mod, "X", "<unbound>")


def annotation(code: str) -> str:
    """What a type checker reads of X: the annotation of its typing-only statement."""
    block = next(s for s in ast.parse(code).body if isinstance(s, ast.If))
    stub = block.body[0]
    return ast.dump(stub.annotation) if isinstance(stub, ast.AnnAssign) else ""


def cases() -> list[tuple[str, str, str, str]]:
    out = []
    for guard, form, runtime, edit in itertools.product(GUARDS, FORMS, RUNTIME, EDITS):
        if edit == "annotation" and FORMS[form][2] is None or edit == "runtime" and RUNTIME[runtime][1] is None:
            continue
        out.append((guard, form, runtime, edit))
    return out


@pytest.mark.parametrize(("guard", "form", "runtime", "edit"), sample(cases()))
def test_refused_exactly_when_neither_a_run_nor_a_type_checker_sees_the_change(
    guard: str, form: str, runtime: str, edit: str
) -> None:
    stub, new_value, new_annotation = FORMS[form]
    code, changed = RUNTIME[runtime]
    before = module(guard, stub, code)
    if edit == "value":
        after = module(guard, new_value, code)
    elif edit == "annotation":
        assert new_annotation is not None
        after = module(guard, new_annotation, code)
    else:
        assert changed is not None
        after = module(guard, stub, code.replace("{'X': 600}" if runtime == "getattr" else "int('600')", changed))
    assert before != after
    unseen = run_value(before) == run_value(after) and annotation(before) == annotation(after)
    found = unreachable(before, after)
    assert bool(found) == unseen, (before, after, found)
    if found:
        assert len(found) == 1 and "never runs at run time" in found[0], found
        assert "type checkers read its annotation, not its value" in found[0], found
        if runtime == "getattr":
            line = before.splitlines().index("def __getattr__(name):") + 1
            assert f"`__getattr__` (line {line})" in found[0], found
        elif runtime == "later":
            line = before.splitlines().index("X = int('600')") + 1
            assert f"is the one at line {line}" in found[0], found
        else:
            assert "nothing the module runs binds `X`" in found[0], found


def test_a_type_alias_and_a_literal_type_changed_there_are_accepted() -> None:
    """Values type checkers do read: an alias (`Alias = int`), a `TypeAlias`, a `Literal[...]`."""
    for stub, new in (
        ("Alias = int", "Alias = float"),
        ("Mode = Literal[1, 2]", "Mode = Literal[1, 2, 3]"),
        ("Alias: TypeAlias = int", "Alias: TypeAlias = float"),
    ):
        head = "from typing import TYPE_CHECKING, Literal, TypeAlias\n"
        before, after = (f"{head}\nif TYPE_CHECKING:\n    {s}\n" for s in (stub, new))
        assert unreachable(before, after) == [], (stub, new)


def test_vllm_envs_engine_ready_timeout_says_where_its_value_comes_from() -> None:
    """vLLM 0.33.0's envs.py, the new user's case: set_constant says the name is bound only for type
    checkers, and the `replace` its old hint led to is refused, naming the module's `__getattr__`."""
    envs = fixture("0.33.0", "vllm/envs.py").decode()
    lines = envs.splitlines()
    guard = lines.index("if TYPE_CHECKING:") + 1
    getattr_line = lines.index("def __getattr__(name: str):") + 1
    said = refusal(envs, SetConstant("VLLM_ENGINE_READY_TIMEOUT_S", "1800", "600"))
    assert f"line {guard} binds VLLM_ENGINE_READY_TIMEOUT_S only inside `if TYPE_CHECKING:`" in said, said
    stub = "VLLM_ENGINE_READY_TIMEOUT_S: int = 600"
    said = refusal(envs, Replace("<module>", stub, stub.replace("600", "1800")))
    assert "type checkers read its annotation, not its value" in said, said
    assert f"`__getattr__` (line {getattr_line}) gives `VLLM_ENGINE_READY_TIMEOUT_S`" in said, said
