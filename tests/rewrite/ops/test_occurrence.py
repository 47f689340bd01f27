"""`occurrence:` counts the installed file's matches, and `occurrence: all` changes every one.

The study's example first: `occurrence: 1` and `occurrence: 2` of one `assert`, written as two
rewrites of one entry, on real vLLM 0.32.0/0.33.0 core.py through the CLI (apply, status --check,
byte-identical revert). Literal sources run through plan.plan as apply does (the proofs) and are
undone by runner.backward byte for byte; counts come from `ast` on the source, not typed in.
"""

from __future__ import annotations

import ast
import itertools
import json
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from packaging.specifiers import SpecifierSet

from radpatch.errors import RefusedError, RegistryError
from radpatch.prove import plan
from radpatch.registry import json_schema
from radpatch.registry.loader import load_patch
from radpatch.registry.model import Operation, Patch, Rewrite
from radpatch.rewrite import runner
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.registry import write_entry
from tests.lib.vllm_files import VERSIONS, install_vllm

SRC = """\
import threading


def f(x):
    assert x > 0
    y = x + 1
    for _ in range(2):
        assert x > 0
    t = threading.Thread(target=f, daemon=True)
    u = threading.Thread(target=f, daemon=True)
    assert x > 0
    return y, t, u
"""
ASSERT_LINES = sorted(n.lineno for n in ast.walk(ast.parse(SRC)) if isinstance(n, ast.Assert))


def patch_of(*ops: Operation) -> Patch:
    rws = tuple(Rewrite(f"r{i}", "mod", None, o, f"reg.yaml:{i + 1}") for i, o in enumerate(ops))
    return Patch("t", "t", "t", "toypkg", SpecifierSet(""), None, (), (), rws, Path("t.yaml"), "0")


def apply(before: str, *ops: Operation) -> str:
    """The patched module as apply plans it (with the proofs), checked to undo byte for byte."""
    patch = patch_of(*ops)
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after
    assert runner.backward(patch, patch.rewrites, after, "mod.py") == before.encode()
    return after.decode()


def refusal(before: str, *ops: Operation) -> RefusedError:
    patch = patch_of(*ops)
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, before.encode(), "mod.py")
    return info.value


def messages(source: str) -> dict[int, str | None]:
    """Line -> the message of each assert (None without one), read with ast."""
    return {
        n.lineno: (ast.literal_eval(n.msg) if n.msg else None)
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Assert)
    }


def tagged(n: int) -> Replace:
    return Replace("f", "assert x > 0", f"assert x > 0, 'occurrence {n}'", occurrence=n)


@pytest.mark.parametrize("order", [(1, 2, 3), (3, 2, 1), (2, 1, 3), (1, 3)])
def test_each_occurrence_is_the_installed_files_whatever_ran_before_it(order: tuple[int, ...]) -> None:
    after = apply(SRC, *(tagged(n) for n in order))
    want = {line: (f"occurrence {i + 1}" if i + 1 in order else None) for i, line in enumerate(ASSERT_LINES)}
    assert messages(after) == want


def test_deletes_and_replaces_of_one_pattern_count_together() -> None:
    after = apply(SRC, Delete("f", "assert x > 0", occurrence=1), tagged(3), Delete("f", "assert x > 0", occurrence=2))
    assert list(messages(after).values()) == ["occurrence 3"]


def test_an_occurrence_the_installed_file_lacks_names_its_count_and_all() -> None:
    exc = refusal(SRC, tagged(1), tagged(4))
    assert (
        f"has 3 match(es) in f; occurrence 4 does not exist (the matches are at lines {ASSERT_LINES[0]}" in exc.message
    )
    assert "installed file's source order" in exc.hint and "1..3" in exc.hint and "occurrence: all" in exc.hint


def test_two_rewrites_of_one_occurrence_are_refused_naming_its_installed_line() -> None:
    exc = refusal(SRC, tagged(2), tagged(2))
    assert (
        f"occurrence 2, the installed file's match at line {ASSERT_LINES[1]}, is changed by the rewrites" in exc.message
    )


def test_a_count_backward_could_not_reproduce_is_refused_before_anything_is_written() -> None:
    """An expression rewrite takes the first assert's `x > 0`; the statement rewrite's count cannot
    know that, so its occurrence 2 would be undone on the wrong statement: refused."""
    exc = refusal(SRC, Replace("f", "x > 0", "x > 1", occurrence=1), tagged(2))
    assert "is match 1 of the file as the rewrites before it leave it, and 2 by the entry's count" in exc.message
    assert "move this rewrite above" in exc.hint
    after = apply(SRC, tagged(2), Replace("f", "x > 0", "x > 1", occurrence=1))  # the order the hint gives
    assert messages(after)[ASSERT_LINES[1]] == "occurrence 2"


def _orders() -> list[tuple[int, ...]]:
    """Every order of every subset of the three occurrences with two or more members."""
    subsets = [c for k in (2, 3) for c in itertools.combinations((1, 2, 3), k)]
    return [order for c in subsets for order in itertools.permutations(c)]


@pytest.mark.parametrize("order", _orders(), ids=str)
def test_the_same_edit_at_several_occurrences_applies_and_undoes_in_any_order(order: tuple[int, ...]) -> None:
    """`occurrence: 1` and `occurrence: 2` with one `with` (the study's kv-transfer fix): the undo
    takes the results by position order; apply() checks the undo is byte for byte."""
    same = [Replace("f", "assert x > 0", "assert x > 0, 'same'", occurrence=n) for n in order]
    after = apply(SRC, *same)
    want = {line: ("same" if i + 1 in order else None) for i, line in enumerate(ASSERT_LINES)}
    assert messages(after) == want
    keyword = [SetKeyword("f", "threading.Thread", "daemon", "True", "False", occurrence=n) for n in order if n < 3]
    if len(keyword) == 2:
        assert apply(SRC, *keyword).count("daemon=False") == 2


def test_the_same_edit_next_to_a_result_already_in_the_code_is_refused() -> None:
    # a third `assert x > 0, 'same'` in the installed file between them: which result is whose is unknown
    src = SRC.replace("    for _ in range(2):", "    assert x > 0, 'same'\n    for _ in range(2):")
    same = [Replace("f", "assert x > 0", "assert x > 0, 'same'", occurrence=n) for n in (1, 2)]
    patch = patch_of(*same)
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), src.encode())
    assert "cannot undo" in info.value.message


# --- occurrence: all ---------------------------------------------------------------------------


def test_all_replaces_every_match_and_the_inverse_undoes_every_one() -> None:
    after = apply(SRC, Replace("f", "assert x > 0", "assert x >= 1", occurrence="all"))
    tree = ast.parse(after)
    asserts = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    assert asserts == ["assert x >= 1"] * len(ASSERT_LINES)
    after = apply(SRC, Replace("f", "x > 0", "x >= 1", occurrence="all"))  # an expression
    assert after.count("x >= 1") == SRC.count("x > 0") and "x > 0" not in after


def test_all_with_within_changes_only_the_matches_inside_it() -> None:
    after = apply(SRC, Replace("f", "assert x > 0", "assert x > 1", within="for _ in range(2):", occurrence="all"))
    assert after.count("assert x > 1") == 1 and after.count("assert x > 0") == len(ASSERT_LINES) - 1


def test_all_deletes_every_match_and_the_inverse_puts_every_one_back() -> None:
    after = apply(SRC, Delete("f", "assert x > 0", occurrence="all"))
    assert "assert" not in after.replace("# radpatch: deleted: assert", "")
    assert after.count("# radpatch: deleted: assert x > 0") == len(ASSERT_LINES)


@pytest.mark.parametrize("where", ["before", "after"])
def test_all_inserts_next_to_every_match_and_the_inverse_removes_every_copy(where: str) -> None:
    after = apply(SRC, InsertStatements("f", "assert x > 0", "print(x)", where, occurrence="all"))  # type: ignore[arg-type]
    lines = after.splitlines()
    hits = [i for i, ln in enumerate(lines) if ln.strip() == "assert x > 0"]
    step = 1 if where == "after" else -1
    assert len(hits) == len(ASSERT_LINES) and all(lines[i + step].strip() == "print(x)" for i in hits)
    assert after.count("print(x)") == len(ASSERT_LINES)


def test_all_sets_the_keyword_of_every_call() -> None:
    after = apply(SRC, SetKeyword("f", "threading.Thread", "daemon", "True", "False", occurrence="all"))
    assert after.count("daemon=False") == SRC.count("daemon=True") == 2 and "daemon=True" not in after


def test_all_with_no_match_is_the_usual_refusal() -> None:
    exc = refusal(SRC, Replace("f", "assert x < 0", "assert x", occurrence="all"))
    assert "statement `find` not found in f" in exc.message
    exc = refusal(SRC, SetKeyword("f", "threading.Thread", "daemon", "None", "False", occurrence="all"))
    assert "pass line" in exc.message  # the values the calls pass, as without `all`


def test_all_is_refused_where_its_result_is_in_the_code_already() -> None:
    src = SRC.replace("    y = x + 1\n", "    y = x + 1\n    assert x >= 1\n")
    exc = refusal(src, Replace("f", "assert x > 0", "assert x >= 1", occurrence="all"))
    line = src.splitlines().index("    assert x >= 1") + 1
    assert f"the rewrite's result is in the code already (line {line})" in exc.message
    assert "one rewrite per `occurrence: N`" in exc.hint


# --- the registry ------------------------------------------------------------------------------

HEAD = """\
summary: the engine core's asserts say what failed
description: test
distribution: vllm
supported: ">=0.32.0,<0.34"
modules:
  core: vllm.v1.engine.core
rewrites:
"""
STUDY = (
    HEAD
    + """\
  - id: first-assert
    replace:
      scope: EngineCoreProc.run_engine_core
      find: assert engine_core is not None
      with: assert engine_core is not None, "the engine core did not start"
      occurrence: 1
  - id: second-assert
    replace:
      scope: EngineCoreProc.run_engine_core
      find: assert engine_core is not None
      with: assert engine_core is not None, "the engine core went away"
      occurrence: 2
"""
)
CORE = "vllm/v1/engine/core.py"


def _asserts(source: bytes, nested: bool = False) -> list[tuple[int, str | None]]:
    """(line, message) of `assert engine_core is not None` in EngineCoreProc.run_engine_core outside
    its nested functions (or, `nested`, inside them), read with ast."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "EngineCoreProc")
    fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "run_engine_core")
    inner = {id(n) for d in ast.walk(fn) if isinstance(d, ast.FunctionDef) and d is not fn for n in ast.walk(d)}
    return [
        (n.lineno, ast.literal_eval(n.msg) if n.msg else None)
        for n in ast.walk(fn)
        if isinstance(n, ast.Assert) and ast.unparse(n.test) == "engine_core is not None" and (id(n) in inner) == nested
    ]


NESTED = "EngineCoreProc.run_engine_core.wakeup_engine"
AS_THE_HINT_SAYS = (
    HEAD
    + f"""\
  - id: first-assert
    replace:
      scope: {NESTED}
      find: assert engine_core is not None
      with: assert engine_core is not None, "the engine core did not start"
  - id: second-assert
    replace:
      scope: EngineCoreProc.run_engine_core
      find: assert engine_core is not None
      with: assert engine_core is not None, "the engine core went away"
"""
)


@pytest.mark.vllm  # real vLLM modules (tests/fixtures/vllm) through the whole pipeline: the real tier
@pytest.mark.parametrize("version", VERSIONS)
def test_the_studys_two_occurrences_of_one_assert_get_the_scope_to_write_then_apply_on_real_vllm(
    version: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    """vLLM's run_engine_core has the assert twice, once inside its nested wakeup_engine(), which a
    scope does not search: the refusal names that function's line and the scope to write, and the
    entry written so applies first time."""
    originals = install_vllm(site.root, version)
    before = _asserts(originals[CORE])
    nested = _asserts(originals[CORE], nested=True)
    assert len(before) == 1 and len(nested) == 1
    reg = tmp_path / "reg"
    write_entry(reg, "asserts", STUDY)
    r = radpatch("--registry", str(reg), "apply", "asserts")
    assert r.code == 1 and "rewrite 'second-assert'" in r.err
    assert "1 more is inside a function defined in it" in r.err and f"line {nested[0][0]} in `{NESTED}`" in r.err
    assert f"`scope: {NESTED}`" in r.err and "pick one of 1..1" not in r.err
    assert site.snapshot()[CORE] == originals[CORE]
    write_entry(reg, "asserts", AS_THE_HINT_SAYS)
    r = radpatch("--registry", str(reg), "apply", "asserts")
    assert r.code == 0, r.err
    patched = (site.root / CORE).read_bytes()
    assert [m for _, m in _asserts(patched, nested=True)] == ["the engine core did not start"]
    assert [m for _, m in _asserts(patched)] == ["the engine core went away"]
    assert radpatch("--registry", str(reg), "status", "--check", "asserts").code == 0
    assert radpatch("--registry", str(reg), "revert", "asserts").code == 0
    assert site.snapshot()[CORE] == originals[CORE]


ASYNC = "vllm/v1/engine/async_llm.py"
ABORT = "await self.abort(q.request_id, internal=True)"


def _aborts(source: bytes) -> list[str]:
    """Each `await self.abort(...)` statement of AsyncLLM.generate, in source order, read with ast."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "AsyncLLM")
    fn = next(n for n in cls.body if isinstance(n, ast.AsyncFunctionDef) and n.name == "generate")
    found = [n for n in ast.walk(fn) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Await)]
    return [ast.unparse(n) for n in sorted(found, key=lambda n: n.lineno) if "self.abort" in ast.unparse(n)]


@pytest.mark.vllm  # real vLLM modules (tests/fixtures/vllm) through the whole pipeline: the real tier
@pytest.mark.parametrize("version", VERSIONS)
def test_occurrences_1_and_3_of_one_statement_and_all_of_a_keyword_on_real_vllm(
    version: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    originals = install_vllm(site.root, version)
    before = _aborts(originals[ASYNC])
    assert len(before) >= 3 and set(before) == {ABORT}
    marked = ABORT.replace("internal=True", "internal=True, reason='cancelled'")
    rewrites = "".join(
        f"""\
  - id: abort-{n}
    replace:
      scope: AsyncLLM.generate
      find: {ABORT}
      with: "{marked}"
      occurrence: {n}
"""
        for n in (1, 3)
    )
    rewrites += """\
  - id: not-internal
    set_keyword:
      {scope: AsyncLLM.generate, call: self.abort, keyword: internal, from: 'True', to: 'False', occurrence: all}
"""
    reg = tmp_path / "reg"
    write_entry(reg, "aborts", HEAD.replace("core: vllm.v1.engine.core", "llm: vllm.v1.engine.async_llm") + rewrites)
    r = radpatch("--registry", str(reg), "apply", "aborts")
    assert r.code == 0, r.err
    after = _aborts((site.root / ASYNC).read_bytes())
    want = [
        (ast.unparse(ast.parse(marked)) if i in (0, 2) else ABORT).replace("internal=True", "internal=False")
        for i in range(len(before))
    ]
    assert after == want
    assert radpatch("--registry", str(reg), "status", "--check", "aborts").code == 0
    assert radpatch("--registry", str(reg), "revert", "aborts").code == 0
    assert site.snapshot()[ASYNC] == originals[ASYNC]


def test_occurrence_all_loads_and_validates_and_other_words_are_refused_at_file_and_line(tmp_path: Path) -> None:
    delete = "  - delete: {scope: EngineCoreProc.run_engine_core, find: assert engine_core is not None, "
    delete += "occurrence: all}\n"
    f = write_entry(tmp_path, "a", HEAD + delete)
    (rw,) = load_patch(f).rewrites
    assert isinstance(rw.op, Delete) and rw.op.occurrence == "all"
    jsonschema.validate(yaml.safe_load(f.read_text()), json.loads(json_schema.render()))
    f.write_text(f.read_text().replace("occurrence: all", "occurrence: every"))
    with pytest.raises(RegistryError) as info:
        load_patch(f)
    (problem,) = info.value.problems
    assert problem.startswith(f"{f}:8:") and "`all` for every match" in problem
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(f.read_text()), json.loads(json_schema.render()))


def test_the_reference_says_occurrence_counts_the_installed_file() -> None:
    text = (Path(__file__).resolve().parents[3] / "docs" / "registry.md").read_text()
    assert "installed file's source order" in textwrap.dedent(text) and "`all`: every match" in text
