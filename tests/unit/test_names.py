"""names.introduced(): undefined names a patch adds; names the original already lacked do not count."""

from __future__ import annotations

import textwrap

import pytest

from radpatch.names import introduced, unresolved

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


def patched(old: str, new: str) -> str:
    assert old in ORIGINAL
    return ORIGINAL.replace(old, new, 1)


def test_the_original_alone_introduces_nothing() -> None:
    assert introduced(ORIGINAL, ORIGINAL, "m.py") == []


def test_a_new_undefined_name_in_a_function_is_reported_with_its_scope() -> None:
    new = patched("    return size + set_elsewhere\n", "    size = clamp(size)\n    return size + set_elsewhere\n")
    assert introduced(ORIGINAL, new, "m.py") == [("plan", "clamp")]


def test_a_new_undefined_name_in_a_method_is_reported() -> None:
    new = patched("return plan(spec) * self.factor", "return plan(spec, cfg) * self.factor")
    assert introduced(ORIGINAL, new, "m.py") == [("Planner.run", "cfg")]


def test_class_attributes_are_not_visible_in_methods() -> None:
    new = patched("return plan(spec) * self.factor", "return plan(spec) * factor")
    assert introduced(ORIGINAL, new, "m.py") == [("Planner.run", "factor")]


def test_new_names_at_module_level_and_in_comprehensions() -> None:
    new = patched("LIMIT = 8\n", "LIMIT = 8\nSIZES = [s * scale for s in range(LIMIT)]\n")
    assert [name for _, name in introduced(ORIGINAL, new, "m.py")] == ["scale"]
    new = patched("    size = len(spec)\n", "    size = len([x for x in spec if x is not missing])\n")
    assert [name for _, name in introduced(ORIGINAL, new, "m.py")] == ["missing"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # names the module, the function, builtins or an enclosing function define
        ("    size = len(spec)\n", "    size = max(len(spec), LIMIT)\n"),
        ("    size = len(spec)\n", "    size = len(spec)\n    extra = [i for i in range(size)]\n"),
        ("    return size + set_elsewhere\n", "    def inner():\n        return size\n    return inner() + set_elsewhere\n"),
        ("LIMIT = 8\n", "LIMIT = 8\n\n\ndef _rp_helper(x):\n    return os.path.join(x, __name__)\n"),
        # a name defined later in the module is defined at call time
        ("LIMIT = 8\n", "LIMIT = 8\n\n\ndef _rp_first():\n    return _rp_second()\n\n\ndef _rp_second():\n    return 1\n"),
        # a name only a `global` statement assigns is defined
        ("    size = len(spec)\n", "    size = len(spec) + set_elsewhere\n"),
    ],
    ids=["module-global", "comprehension", "closure", "import-and-dunder", "later-def", "global-statement"],
)
def test_defined_names_are_not_reported(old: str, new: str) -> None:
    assert introduced(ORIGINAL, patched(old, new), "m.py") == []


def test_pre_existing_unresolved_names_do_not_count() -> None:
    original = "def f(a):\n    return a + undefined_before\n"
    assert unresolved(original) == {("f", "undefined_before")}
    more = "def f(a):\n    b = a + undefined_before\n    return b + undefined_before\n"
    assert introduced(original, more, "m.py") == []
    # ... while a new one next to it still does
    worse = "def f(a):\n    return a + undefined_before + undefined_now\n"
    assert introduced(original, worse, "m.py") == [("f", "undefined_now")]


def test_removing_an_unresolved_name_is_not_a_problem() -> None:
    original = "def f(a):\n    return a + undefined_before\n"
    assert introduced(original, "def f(a):\n    return a\n", "m.py") == []


def test_a_star_import_can_define_anything() -> None:
    original = "from somewhere import *\n\n\ndef f():\n    return 1\n"
    assert introduced(original, original.replace("return 1", "return anything"), "m.py") == []


def test_annotations_defaults_and_decorators_are_checked_in_the_enclosing_scope() -> None:
    original = "def f(a):\n    return a\n"
    assert introduced(original, "def f(a=DEFAULT):\n    return a\n", "m.py") == [("<module>", "DEFAULT")]
    assert introduced(original, "@cached\ndef f(a):\n    return a\n", "m.py") == [("<module>", "cached")]
