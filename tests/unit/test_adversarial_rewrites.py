"""Rewrites as a new user types them, on literal sources and real vLLM files: refusals that name
the rewrite and fit the cause, and finds typed in another statement layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.prove import plan
from radpatch.rewrite import runner
from radpatch.rewrite.ops.decorators import AddDecorator
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.imports import AddImport
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.insert_statements import InsertStatements
from radpatch.rewrite.ops.replace import Replace
from tests.unit.test_operations import check, patch_of, refuse
from tests.vllm_files import VERSIONS, fixture

LOOPS = """\
    def f(items, more):
        for x in items:
            total = 0
        for y in more:
            total = 0
        return total
    """


def test_code_that_does_not_compile_names_the_rewrite_that_broke_it() -> None:
    err = refuse("class C:\n    x = 1\n", AddImport("import os"), InsertStatements("C", "x = 1", "return 3", "after"))
    assert "rewrite 'r1' (reg.yaml:2)" in err.message and "'return' outside function" in err.message
    assert "rewrite's code" in err.hint


def test_an_undefined_name_names_the_rewrite_that_uses_it_and_says_to_import_it() -> None:
    err = refuse("def f(x):\n    return x\n", InsertStatements("f", "return x", "x = os.getpid()", "before"))
    assert (
        "rewrite 'r0' (reg.yaml:1)" in err.message and "would use undefined names: `os` (line 2, in f())" in err.message
    )
    assert "add_import" in err.hint


def test_an_undefined_name_is_blamed_on_its_user_not_on_an_earlier_rewrite() -> None:
    err = refuse(
        "def f(x):\n    return x\n",
        AddImport("import sys"),
        InsertStatements("f", "return x", "x = os.getpid()", "before"),
    )
    assert "rewrite 'r1' (reg.yaml:2)" in err.message


def test_a_deleted_definition_still_used_names_the_delete() -> None:
    err = refuse("def f(x):\n    y = x\n    return y\n", Delete("f", "y = x"))
    assert "rewrite 'r0' (reg.yaml:1)" in err.message and "`y` (line 3, in f())" in err.message


def test_a_within_that_matches_nothing_says_so_and_lists_the_matches() -> None:
    err = refuse(LOOPS, Replace("f", "total = 0", "total = 1", within="for z in other:"))
    assert "matches 2 time(s) in f (lines 3, 5) but none within `for z in other:`" in err.message
    assert "closest candidate" not in err.message
    assert err.hint.startswith("fix `within:`")


def test_an_occurrence_beyond_the_matches_lists_them_and_says_which_exist() -> None:
    err = refuse(LOOPS, Replace("f", "total = 0", "total = 1", occurrence=3))
    assert "occurrence 3 does not exist (the matches are at lines 3, 5)" in err.message
    assert "1..2" in err.hint


def test_a_misspelt_scope_hints_at_the_scope_not_at_find() -> None:
    err = refuse("class C:\n    def run(self):\n        return 1\n", Delete("C.rnu", "return 1"))
    assert "closest: run" in err.message and "`scope:`" in err.hint and "`find`" not in err.hint
    err = refuse("def run():\n    return 1\n", Delete("rnu", "return 1"))
    assert "closest: run" in err.message and "`scope:`" in err.hint


def test_a_misspelt_decorated_function_hints_at_the_name() -> None:
    err = refuse("def run():\n    return 1\n", AddDecorator("rnu", "staticmethod"))
    assert "`function:`" in err.hint


# --- a `find` of several statements, typed on one line (`a; b`) or over several ---------------

TWO = "def f(x):\n    a = 1\n    b = 2\n    return a + b\n"


def test_insert_after_a_find_of_two_statements_goes_after_the_last() -> None:
    check(
        TWO,
        InsertStatements("f", "a = 1\nb = 2", "c = 3", "after"),
        "def f(x):\n    a = 1\n    b = 2\n    c = 3\n    return a + b\n",
    )


def test_insert_before_a_find_typed_with_a_semicolon() -> None:
    check(
        TWO,
        InsertStatements("f", "a = 1; b = 2", "c = 3", "before"),
        "def f(x):\n    c = 3\n    a = 1\n    b = 2\n    return a + b\n",
    )


def test_replace_with_a_find_typed_with_a_semicolon_replaces_both_upstream_lines() -> None:
    check(
        TWO,
        Replace("f", "a = 1; b = 2", "a = 2\nb = 1"),
        "def f(x):\n    a = 2\n    b = 1\n    return a + b\n",
        exact=False,
    )


def test_replace_by_a_with_typed_with_a_semicolon_undoes() -> None:
    check(TWO, Replace("f", "a = 1\nb = 2", "a = 2; b = 1"), "def f(x):\n    a = 2; b = 1\n    return a + b\n")


def test_delete_of_statements_typed_with_a_semicolon() -> None:
    check(
        TWO,
        Delete("f", "b = 2; return a + b"),
        "def f(x):\n    a = 1\n    pass  # radpatch: deleted: b = 2; return a + b\n",
        exact=False,
    )


def test_a_semicolon_find_does_not_match_half_a_line() -> None:
    err = refuse("def f(x):\n    a = 1; b = 2; c = 3\n    return a\n", Delete("f", "a = 1; b = 2"))
    assert "not found in f" in err.message


MULTI = {
    "replace, find typed with a semicolon": (
        "replace:\n  scope: EngineCoreProc.run_busy_loop\n  find: self._process_engine_step(); self._maybe_publish_request_counts()\n"
        "  with: |\n    executed = self._process_engine_step()\n    if executed:\n        self._maybe_publish_request_counts()"
    ),
    "insert_after two statements": (
        "insert_after:\n  scope: EngineCoreProc.run_busy_loop\n  find: |\n    self._process_input_queue()\n"
        "    self._maybe_publish_request_counts()  # before the step\n  code: logger.debug('radiance polled')"
    ),
    "delete two statements typed on one line": (
        "delete: {scope: EngineCoreProc.run_busy_loop, find: 'self._process_engine_step(); self._maybe_publish_request_counts()'}"
    ),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", list(MULTI))
def test_several_statements_on_real_vllm_apply_and_revert_byte_for_byte(
    case: str, version: str, site, radpatch, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from tests.unit.test_operations_vllm import CORE, registry
    from tests.vllm_files import install_vllm

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


# --- a new constant whose value reads a module name ----------------------------------------------


def test_a_new_constant_goes_after_the_module_names_its_value_reads() -> None:
    from radpatch.rewrite.ops.set_constant import SetConstant

    check(
        "import os\n\nlogger = None\nTIMEOUT_MINS = 5\n\n\ndef f():\n    return TIMEOUT_MINS\n",
        SetConstant("TIMEOUT_MS", "TIMEOUT_MINS * 60_000 + int(os.environ.get('X', '0'))"),
        "import os\n\nlogger = None\nTIMEOUT_MINS = 5\nTIMEOUT_MS = TIMEOUT_MINS * 60_000 + int(os.environ.get('X', '0'))\n\n\n"
        "def f():\n    return TIMEOUT_MINS\n",
    )


def test_a_new_constant_reading_only_imports_goes_after_the_imports() -> None:
    from radpatch.rewrite.ops.set_constant import SetConstant

    check("import os\n\nTIMEOUT_MINS = 5\n", SetConstant("X", "os.sep"), "import os\nX = os.sep\n\nTIMEOUT_MINS = 5\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_new_constant_from_an_upstream_constant_is_defined_after_it_in_real_core(version: str) -> None:
    from radpatch.rewrite.ops.set_constant import SetConstant

    patch = patch_of(SetConstant("RADIANCE_HANDSHAKE_MS", "HANDSHAKE_TIMEOUT_MINS * 60_000"))
    data = fixture(version, "vllm/v1/engine/core.py")
    after = plan.plan(patch, patch.rewrites, "m", Path("core.py"), data).after.decode()
    assert after.index("RADIANCE_HANDSHAKE_MS = ") > after.index("HANDSHAKE_TIMEOUT_MINS = 5")
    assert runner.backward(patch, patch.rewrites, after.encode(), "core.py") == data


# --- two deletes of equal statements -------------------------------------------------------------

PUBLISH = "def loop(self):\n    while self.running():\n        self.poll()\n        self.publish()\n        self.step()\n        self.publish()\n"


@pytest.mark.parametrize("first", [1, 2])
def test_two_deletes_of_equal_statements_undo(first: int) -> None:
    marker = "# radpatch: deleted: self.publish()"
    check(
        PUBLISH,
        (Delete("loop", "self.publish()", occurrence=first), Delete("loop", "self.publish()")),
        "def loop(self):\n    while self.running():\n        self.poll()\n"
        f"        {marker}\n        self.step()\n        pass  {marker}\n",
    )


# --- code that holds only comments ---------------------------------------------------------------


def test_code_of_only_comments_is_a_registry_error_naming_the_key(tmp_path: Path) -> None:
    from tests.unit.test_registry import VALID, problems, write

    text = VALID.replace('code: "size = _rp_helper(size)"', 'code: "# size = _rp_helper(size)"')
    assert text != VALID
    (problem,) = problems(write(tmp_path, text))
    assert "rewrites[3].insert_after.code" in problem and "holds only comments" in problem


# --- a payload item that reads a module name at import time --------------------------------------


def _payload_op(tmp_path: Path, text: str, **where: str) -> InsertDefinitions:
    f = tmp_path / "payload.py"
    f.write_text(text)
    names = tuple(n for n in ("_RP_MS", "_rp_f") if n in text)
    return InsertDefinitions(
        f, f.read_bytes(), names, where.get("before") or where["after"], "before" if "before" in where else "after"
    )


MODULE = "import os\n\n\ndef first():\n    return 1\n\n\nLIMIT = 5\n\n\ndef last():\n    return LIMIT\n"


def test_a_payload_constant_reading_a_module_name_bound_below_it_is_refused(tmp_path: Path) -> None:
    err = refuse(MODULE, _payload_op(tmp_path, "_RP_MS = LIMIT * 1000\n", after="first"))
    assert "reads 'LIMIT' when the module is imported" in err.message and "line 8" in err.message
    assert "`after:`" in err.hint


def test_a_payload_constant_reading_a_module_name_bound_above_it_applies(tmp_path: Path) -> None:
    check(
        MODULE,
        _payload_op(tmp_path, "_RP_MS = LIMIT * 1000\n", before="last"),
        MODULE.replace("LIMIT = 5\n", "LIMIT = 5\n\n\n_RP_MS = LIMIT * 1000\n"),
    )


def test_a_payload_decorator_reading_a_module_name_bound_below_is_refused(tmp_path: Path) -> None:
    err = refuse(MODULE, _payload_op(tmp_path, "@LIMIT\ndef _rp_f():\n    return 1\n", before="first"))
    assert "'_rp_f' reads 'LIMIT'" in err.message
