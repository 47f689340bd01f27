"""names: what a patch makes unresolvable at run time, judged with order, branches and scopes.

Each case is a module and a patched form; the check must report exactly the names the patch
breaks (with their line), and nothing for code that runs. The cases marked "main" are the ones
the symtable-based check on main passed although the module fails at import or call time.
"""

from __future__ import annotations

import gc
import sys
import textwrap
from pathlib import Path

import pytest

from radpatch.prove import names_check, refusal
from radpatch.prove.names import introduced, problems
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.delete import Delete
from radpatch.rewrite.ops.insert_statements import InsertStatements
from tests.lib.rewrites import refuse

FIXTURES = Path(__file__).parent.parent / "fixtures" / "names"

ORIGINAL = textwrap.dedent("""\
    import os
    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from vllm.config import VllmConfig

    LIMIT = 8


    def plan(spec, cfg: "VllmConfig | None" = None):
        size = len(spec)
        for item in spec:
            size += os.cpu_count() or LIMIT
        return size + set_elsewhere


    class Planner:
        factor = 2

        def run(self, spec):
            return plan(spec) * self.factor


    def configure():
        global set_elsewhere
        set_elsewhere = 1
    """)


def patched(old: str, new: str, original: str = ORIGINAL) -> str:
    assert old in original
    return original.replace(old, new, 1)


def found(new: str, original: str = ORIGINAL) -> list[tuple[str, str, int]]:
    """(scope, name, line) of every problem the patch introduces."""
    return [(p.scope, p.name, p.line) for p in introduced(original, new, "m.py")]


def test_the_original_alone_introduces_nothing() -> None:
    assert problems(ORIGINAL) == []
    assert introduced(ORIGINAL, ORIGINAL, "m.py") == []


def test_a_new_undefined_name_in_a_function_is_reported_with_its_scope_and_line() -> None:
    new = patched("    return size + set_elsewhere\n", "    size = clamp(size)\n    return size + set_elsewhere\n")
    assert found(new) == [("plan", "clamp", 14)]


def test_a_new_undefined_name_in_a_method_is_reported() -> None:
    assert found(patched("return plan(spec) * self.factor", "return plan(spec, cfg) * self.factor")) == [
        ("Planner.run", "cfg", 21)
    ]


def test_class_attributes_are_not_visible_in_methods() -> None:
    [p] = introduced(ORIGINAL, patched("return plan(spec) * self.factor", "return plan(spec) * factor"), "m.py")
    assert (p.scope, p.name, p.kind) == ("Planner.run", "factor", "class-attribute")
    assert "class attribute of Planner" in p.describe()


def test_class_attributes_are_not_visible_in_a_comprehension_of_the_class_body() -> None:
    new = patched(
        "    factor = 2\n",
        "    factor = 2\n    first = [f for f in range(factor)]\n    wrong = [f * factor for f in range(3)]\n",
    )
    assert found(new) == [("Planner", "factor", 20)]  # the first iterable is evaluated in the class: fine


def test_new_names_at_module_level_and_in_comprehensions() -> None:
    new = patched("LIMIT = 8\n", "LIMIT = 8\nSIZES = [s * scale for s in range(LIMIT)]\n")
    assert [name for _, name, _ in found(new)] == ["scale"]
    new = patched("    size = len(spec)\n", "    size = len([x for x in spec if x is not missing])\n")
    assert [name for _, name, _ in found(new)] == ["missing"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # names the module, the function, builtins or an enclosing function define
        ("    size = len(spec)\n", "    size = max(len(spec), LIMIT)\n"),
        ("    size = len(spec)\n", "    size = len(spec)\n    extra = [i for i in range(size)]\n"),
        (
            "    return size + set_elsewhere\n",
            "    def inner():\n        return size\n    return inner() + set_elsewhere\n",
        ),
        ("LIMIT = 8\n", "LIMIT = 8\n\n\ndef _rp_helper(x):\n    return os.path.join(x, __name__)\n"),
        # a name defined later in the module is defined at call time
        (
            "LIMIT = 8\n",
            "LIMIT = 8\n\n\ndef _rp_first():\n    return _rp_second()\n\n\ndef _rp_second():\n    return 1\n",
        ),
        # a name only a `global` statement assigns is defined
        ("    size = len(spec)\n", "    size = len(spec) + set_elsewhere\n"),
        # a TYPE_CHECKING import in a string annotation, a walrus, a local assigned on every path
        ("    size = len(spec)\n", "    size = len(spec)\n    cfg2: 'VllmConfig' = cfg\n"),
        ("    size = len(spec)\n", "    if (n := len(spec)) > 3:\n        pass\n    size = n\n"),
        ("    size = len(spec)\n", "    if spec:\n        size = len(spec)\n    else:\n        size = 0\n"),
        (
            "    size = len(spec)\n",
            "    if not spec:\n        raise ValueError(spec)\n    else:\n        size = len(spec)\n",
        ),
        ("    size = len(spec)\n", "    try:\n        size = len(spec)\n    except TypeError:\n        return 0\n"),
    ],
    ids=[
        "module-global",
        "comprehension",
        "closure",
        "import-and-dunder",
        "later-def",
        "global-statement",
        "string-annotation",
        "walrus",
        "both-branches",
        "raise-branch",
        "except-returns",
    ],
)
def test_defined_names_are_not_reported(old: str, new: str) -> None:
    assert introduced(ORIGINAL, patched(old, new), "m.py") == []


def test_pre_existing_unresolved_names_do_not_count() -> None:
    original = "def f(a):\n    return a + undefined_before\n"
    assert [(p.scope, p.name) for p in problems(original)] == [("f", "undefined_before")]
    more = "def f(a):\n    b = a + undefined_before\n    return b + undefined_before\n"
    assert introduced(original, more, "m.py") == []
    worse = "def f(a):\n    return a + undefined_before + undefined_now\n"
    assert found(worse, original) == [("f", "undefined_now", 2)]


def test_removing_an_unresolved_name_is_not_a_problem() -> None:
    original = "def f(a):\n    return a + undefined_before\n"
    assert introduced(original, "def f(a):\n    return a\n", "m.py") == []


def test_annotations_defaults_and_decorators_are_checked_in_the_enclosing_scope() -> None:
    original = "def f(a):\n    return a\n"
    assert found("def f(a=DEFAULT):\n    return a\n", original) == [("<module>", "DEFAULT", 1)]
    assert found("@cached\ndef f(a):\n    return a\n", original) == [("<module>", "cached", 1)]


# --- class 1 of issue 10: what main passed -------------------------------------------------------


def test_main_an_inserted_assignment_that_makes_a_global_local_is_an_unbound_local() -> None:
    new = patched(
        "        size += os.cpu_count() or LIMIT\n", "        size += os.cpu_count() or LIMIT\n        LIMIT = 4\n"
    )
    [p] = introduced(ORIGINAL, new, "m.py")
    assert (p.scope, p.name, p.kind, p.line) == ("plan", "LIMIT", "unbound-local", 13)
    assert "UnboundLocalError" in p.describe()


def test_main_an_assignment_on_one_branch_that_hides_a_global_is_an_unbound_local() -> None:
    new = patched("    size = len(spec)\n", "    size = len(spec)\n    if not spec:\n        LIMIT = 1\n")
    assert found(new) == [("plan", "LIMIT", 15)]


def test_main_a_read_before_the_assignment_in_the_same_statement() -> None:
    new = patched("    size = len(spec)\n", "    size = len(spec)\n    os = os.sep\n")
    assert [(s, n) for s, n, _ in found(new)] == [("plan", "os")]


def test_main_module_level_code_using_a_name_defined_later() -> None:
    new = patched("LIMIT = 8\n", "LIMIT = 8\nDEFAULT_PLANNER = Planner()\n")
    [p] = introduced(ORIGINAL, new, "m.py")
    assert (p.name, p.line, p.kind) == ("Planner", 8, "used-before-definition")
    assert "line 18" in p.describe()  # where the module defines it


def test_main_a_parameter_default_decorator_or_base_class_defined_later() -> None:
    tail = "\n\ndef _rp_limit():\n    return 4\n"
    assert found(patched("def plan(spec, cfg", "def plan(spec, limit=_rp_limit(), cfg") + tail) == [
        ("<module>", "_rp_limit", 10)
    ]
    assert found(patched("class Planner:", "@_rp_deco\nclass Planner:") + "\n\ndef _rp_deco(c):\n    return c\n") == [
        ("<module>", "_rp_deco", 17)
    ]
    assert found(patched("class Planner:", "class Planner(_RpBase):") + "\n\nclass _RpBase:\n    pass\n") == [
        ("<module>", "_RpBase", 17)
    ]
    # ... while a method body may use it: it runs after the import
    assert found(patched("return plan(spec) * self.factor", "return plan(spec) * _rp_limit()") + tail) == []


def test_main_a_type_checking_import_used_at_run_time() -> None:
    new = patched(
        "    size = len(spec)\n", "    size = len(spec)\n    if isinstance(cfg, VllmConfig):\n        size += 1\n"
    )
    [p] = introduced(ORIGINAL, new, "m.py")
    assert (p.name, p.line, p.kind) == ("VllmConfig", 12, "type-checking-only")
    assert "TYPE_CHECKING" in p.describe() and "line 5" in p.describe()


def test_type_checking_names_in_annotations_depend_on_when_annotations_are_evaluated() -> None:
    evaluated = patched(
        'def plan(spec, cfg: "VllmConfig | None" = None):', "def plan(spec, cfg: VllmConfig | None = None):"
    )
    assert [(n, line) for _, n, line in found(evaluated)] == [("VllmConfig", 10)]  # evaluated at def time
    lazy = "from __future__ import annotations\n" + evaluated
    assert introduced("from __future__ import annotations\n" + ORIGINAL, lazy, "m.py") == []
    local = patched("    size = len(spec)\n", "    size: VllmConfig = len(spec)\n")
    assert found(local) == []  # a function's local annotations are never evaluated


def test_main_a_module_level_del_removes_the_name_for_later_calls() -> None:
    new = patched("LIMIT = 8\n", "LIMIT = 8\n_rp_tmp = 1\ndel _rp_tmp\n") + "\n\ndef _rp_use():\n    return _rp_tmp\n"
    [p] = introduced(ORIGINAL, new, "m.py")
    assert (p.name, p.kind) == ("_rp_tmp", "deleted") and "del at line 9" in p.describe()
    # a del then a use at module level, and a del in a function of its own local
    assert [n for _, n, _ in found(patched("LIMIT = 8\n", "LIMIT = 8\ndel LIMIT\n"))] == ["LIMIT"]
    assert found(
        patched(
            "        size += os.cpu_count() or LIMIT\n", "        size += os.cpu_count() or LIMIT\n        del size\n"
        )
    ) == [("plan", "size", 13), ("plan", "size", 15)]  # the next pass reads it (13), and after the loop (15)


def test_global_and_nonlocal_declarations() -> None:
    original = "X = 1\n\n\ndef f():\n    def g():\n        return 2\n    return g()\n"
    assert (
        found(
            "X = 1\n\n\ndef f():\n    global X\n    X += 1\n    def g():\n        return 2\n    return g()\n", original
        )
        == []
    )
    assert found("X = 1\n\n\ndef f():\n    X += 1\n    def g():\n        return 2\n    return g()\n", original) == [
        ("f", "X", 5)
    ]
    nonlocal_ok = (
        "X = 1\n\n\ndef f():\n    n = 0\n    def g():\n        nonlocal n\n        n += 1\n        return n\n"
        "    return g()\n"
    )
    assert found(nonlocal_ok, original) == []
    unbound_free = "X = 1\n\n\ndef f():\n    def g():\n        return n\n    return g()\n    n = 1\n"
    # bound later in f, but g is called before that binding runs: NameError every time (att41 #3)
    assert found(unbound_free, original) == [("f", "n", 7)]
    called_later = "X = 1\n\n\ndef f():\n    def g():\n        return n\n    n = 1\n    return g()\n"
    assert found(called_later, original) == []  # bound before g runs
    assert found("X = 1\n\n\ndef f():\n    def g():\n        return n\n    return g()\n", original) == [("f.g", "n", 6)]


def test_except_as_is_unbound_after_the_handler() -> None:
    original = "def f():\n    try:\n        pass\n    except Exception as e:\n        pass\n    return 1\n"
    assert found(original.replace("return 1", "return e"), original) == [("f", "e", 6)]


def test_a_loop_binds_for_the_next_iteration_only() -> None:
    """The first pass reads `prev` before any binding (xs = [1]): test_loop_first_pass_reads' family."""
    original = "def f(xs):\n    for x in xs:\n        pass\n"
    reads_first = "def f(xs):\n    for x in xs:\n        if x:\n            print(prev)\n        prev = x\n"
    assert found(reads_first, original) == [("f", "prev", 4)]
    assert found("def f(xs):\n    for x in xs:\n        print(prev)\n    prev = 1\n", original) == [("f", "prev", 3)]


def test_try_except_import_error_fallbacks_and_conditional_definitions_are_defined() -> None:
    original = "import sys\n\nX = 1\n"
    cases = [
        "import sys\ntry:\n    import _rp_fast as fast\nexcept ImportError:\n    fast = None\n\nX = fast\n",
        "import sys\ntry:\n    import _rp_fast\n    HAS = True\nexcept ImportError:\n    HAS = False\n\n\ndef f():\n"
        "    return _rp_fast.x if HAS else 0\n\nX = 1\n",
    ]
    for case in cases:
        assert found(case, original) == [], case
    # a version test is decided for the target (here this interpreter): g is bound where the branch runs,
    # and f's read of it is a NameError where it does not (ver45)
    by_version = "import sys\nif sys.version_info >= (3, 11):\n    def g():\n        return 1\n\n\ndef f():\n"
    by_version += "    return g()\n\nX = 1\n"
    runs = sys.version_info >= (3, 11)
    assert found(by_version, original) == ([] if runs else [("f", "g", 8)])


def test_a_star_import_provides_public_names_from_its_position_on() -> None:
    original = "from somewhere import *\n\n\ndef f():\n    return 1\n"
    assert introduced(original, original.replace("return 1", "return anything"), "m.py") == []
    assert found(original.replace("return 1", "return _private"), original) == [("f", "_private", 5)]
    before = "X = 1\nfrom somewhere import *\n"
    assert found("X = 1\nY = early\nfrom somewhere import *\n", before) == [("<module>", "early", 2)]


def test_globals_update_may_bind_any_name_from_its_position_on() -> None:
    original = "def _load():\n    globals().update(ops=1)\n\n\n_load()\nX = 1\n"
    assert found(original.replace("X = 1", "X = ops"), original) == []
    assert found(original.replace("def _load", "Y = ops\n\n\ndef _load"), original) == [("<module>", "ops", 1)]


def test_main_a_docstring_mentioning_a_star_import_does_not_switch_the_check_off() -> None:
    original = '"""Use it as:\n\nfrom mypkg import *\n"""\n\n\ndef f():\n    return 1\n'
    assert found(original.replace("return 1", "return missing"), original) == [("f", "missing", 8)]
    # through plan's names step, with the name and the line in the refusal
    refused = names_check.names_refusal(
        original.encode(), original.replace("return 1", "return missing").encode(), "m.py"
    )
    assert refused is not None and "`missing` (line 8, in f())" in refused.why and refused.hint == refusal.NAMES_HINT


def test_type_parameters_and_match_patterns_bind_their_names() -> None:
    original = "def f(p):\n    return p\n"
    new = (
        "def f(p):\n    match p:\n        case [a, *rest]:\n            return a, rest\n        case {'k': v, **kw}:\n"
        "            return v, kw\n        case _:\n            return unknown\n"
    )
    assert found(new, original) == [("f", "unknown", 8)]


def test_deep_expressions_do_not_exhaust_the_walk() -> None:
    deep = "X = " + " + ".join(["1"] * 2500) + " + nowhere\n"  # deeper than Python's recursion limit
    assert [(p.name, p.line) for p in problems(deep)] == [("nowhere", 1)]


# --- real vLLM modules (0.32.0, 0.33.0; Apache-2.0, copied verbatim) ------------------------------

REAL = sorted(FIXTURES.glob("vllm-*.py.txt"))


@pytest.mark.parametrize("path", REAL, ids=[p.name[:-7] for p in REAL])
def test_real_vllm_modules_pass_unpatched(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert problems(source, path.name) == []
    assert introduced(source, source, path.name) == []


def test_a_real_module_catches_an_inserted_global_shadow() -> None:
    path = FIXTURES / "vllm-0.33.0.vllm.v1.core.kv_cache_planning.py.txt"
    source = path.read_text(encoding="utf-8")
    anchor = "\ndef get_kv_cache_groups("
    assert anchor in source and "logger = init_logger(__name__)" in source
    head, tail = source.split(anchor, 1)
    body_start = tail.index(":\n") + 2
    new = head + anchor + tail[:body_start] + "    logger.debug('planning')\n    logger = None\n" + tail[body_start:]
    assert [(p.name, p.kind) for p in introduced(source, new, path.name)] == [("logger", "unbound-local")]


def test_the_walk_leaves_no_reference_cycles() -> None:
    """The check runs with the cyclic collector paused (it walks whole-module trees); a cycle
    left behind would keep the walker, and the whole tree with it, alive until the collector
    runs again. A check queued inside a loop used to be a closure naming itself."""
    path = FIXTURES / "vllm-0.33.0.vllm.v1.core.kv_cache_planning.py.txt"
    looped = (
        "def f(items):\n    for x in items:\n        y = later\n        later = x\n    return y\nfor k in range(3):\n"
        "    print(v)\n    v = k\n"
    )
    for source in (looped, path.read_text(encoding="utf-8")):
        gc.collect()
        was = gc.isenabled()
        gc.disable()
        try:
            problems(source)
            assert gc.collect() == 0
        finally:
            if was:
                gc.enable()


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
