"""A def the patch changes may be replaced later by code a module-level statement runs without
spelling it there (issue 21 F7, radpatch/prove/placement/reached.py): a call more than one level
deep (`_f()` calls `_g()`, which stores), a recursion, the methods Python runs when a class of the
module is created (a metaclass's `__new__`/`__init__`, also one a base gives; a base's or a
grandparent's `__init_subclass__`) or called (`__init__`). Controls define the same code but never
run it.

Generated: each form times a stored value that replaces f (`g`) or keeps it (`f` itself), always or
under `if COND:`. Every patched module is imported in a subprocess for each COND: plan.plan must
refuse exactly the patches whose changed `f` is not the `f` the module holds once imported. A chain
deeper than reached.MAX_DEPTH is refused, saying it may rebind any name."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from radpatch.prove.placement.reached import MAX_DEPTH
from radpatch.rewrite.ops.replace import Replace
from tests.lib.def_runs import patched, refusal, runs
from tests.lib.generated import sample

HEAD = """import sys

COND = {cond}


def f():
    return 'old'


def g():
    return 'g'


"""

SET = "globals()['f'] = V"
SETATTR = "setattr(sys.modules[__name__], 'f', V)"
FORMS = {  # the later statements; V is the value stored under the name f
    "two-deep": f"def _g():\n    {SET}\n\n\ndef _f():\n    _g()\n\n\n_f()",
    "three-deep-setattr": f"def _h():\n    {SETATTR}\n\n\ndef _g():\n    _h()\n\n\ndef _k():\n    _g()\n\n\n_k()",
    "mutual-recursion": (
        f"def _a(n):\n    if n:\n        _b(n - 1)\n    else:\n        {SET}\n\n\ndef _b(n):\n    _a(n)\n\n\n_a(3)"
    ),
    "called-from-class-body": f"def _g():\n    {SET}\n\n\ndef _f():\n    _g()\n\n\nclass _K:\n    _f()",
    "metaclass-init": (
        f"class _M(type):\n    def __init__(cls, name, bases, ns):\n        super().__init__(name, bases, ns)\n"
        f"        {SET}\n\n\nclass _K(metaclass=_M):\n    pass"
    ),
    "metaclass-new-through-helper": (
        f"def _store():\n    {SETATTR}\n\n\nclass _M(type):\n    def __new__(mcs, name, bases, ns):\n"
        "        _store()\n        return super().__new__(mcs, name, bases, ns)\n\n\nclass _K(metaclass=_M):\n    pass"
    ),
    "metaclass-from-base": (
        "class _M(type):\n    def __init__(cls, name, bases, ns):\n        super().__init__(name, bases, ns)\n"
        f"        if name == '_K':\n            {SET}\n\n\nclass _B(metaclass=_M):\n    pass\n\n\n"
        "class _K(_B):\n    pass"
    ),
    "init-subclass": f"class _B:\n    def __init_subclass__(cls, **kw):\n        {SET}\n\n\nclass _K(_B):\n    pass",
    "init-subclass-grandparent": (
        f"class _A:\n    def __init_subclass__(cls, **kw):\n        if cls.__name__ == '_K':\n            {SET}\n\n\n"
        "class _B(_A):\n    pass\n\n\nclass _K(_B):\n    pass"
    ),
    "instance-init": f"class _R:\n    def __init__(self):\n        {SET}\n\n\n_r = _R()",
    # controls: the same code, never run
    "control-never-called": f"def _g():\n    {SET}\n\n\ndef _f():\n    _g()",
    "control-no-subclass": f"class _B:\n    def __init_subclass__(cls, **kw):\n        {SET}",
    "control-no-instance": f"class _R:\n    def __init__(self):\n        {SET}",
    "control-method-not-a-hook": (
        f"class _M(type):\n    def other(cls):\n        {SET}\n\n\nclass _K(metaclass=_M):\n    pass"
    ),
}
VALUES = {"replaces": "g", "keeps": "f"}
WRAPS = ("always", "if-cond")
CASES = sample(itertools.product(FORMS, VALUES, WRAPS))
OP = Replace("f", "'old'", "'new'")


def source(form: str, value: str, wrap: str, cond: bool) -> str:
    tail = FORMS[form].replace("V", VALUES[value])
    if wrap == "if-cond":
        tail = "if COND:\n" + textwrap.indent(tail, "    ")
    return HEAD.format(cond=cond) + tail + "\n"


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], list[object]]:
    """Per case: for each COND, whether the patched module's f is the changed one once imported."""
    modules: dict[str, tuple[str, str]] = {}
    where: dict[tuple[str, str, str], list[str]] = {}
    n = itertools.count()
    for case in CASES:
        for cond in (True, False) if case[2] == "if-cond" else (True,):
            pkg = f"rp_reached_{next(n)}"
            text = patched(OP, source(*case, cond), pkg)
            assert text is not None and "'new'" in text
            modules[pkg] = (text, "mod.f() == 'new'")
            where.setdefault(case, []).append(pkg)
    found = runs(modules, Path(tmp_path_factory.mktemp("reached")))
    return {case: [found[p] for p in pkgs] for case, pkgs in where.items()}


@pytest.mark.parametrize(("form", "value", "wrap"), CASES, ids=["-".join(c) for c in CASES])
def test_refused_exactly_when_the_changed_def_does_not_run(
    truth: dict[tuple[str, str, str], list[object]], form: str, value: str, wrap: str
) -> None:
    ran = truth[form, value, wrap]
    assert all(isinstance(r, bool) for r in ran), ran  # every module imported
    said = refusal(OP, source(form, value, wrap, True))
    shows = all(r is True for r in ran)
    assert (said is not None) == (not shows), (ran, said)
    if said is not None:
        assert "`f`" in said and "rebind" in said, said


@pytest.mark.parametrize("depth", [MAX_DEPTH - 2, MAX_DEPTH + 3])
def test_a_call_chain_deeper_than_the_bound_is_refused_as_unread(tmp_path: Path, depth: int) -> None:
    """`_c0()` calls `_c1()` ... which stores: followed to MAX_DEPTH; deeper, refused (may rebind any name)."""
    chain = "".join(f"def _c{i}():\n    _c{i + 1}()\n\n\n" for i in range(depth))
    tail = chain + f"def _c{depth}():\n    {SET.replace('V', 'g')}\n\n\n_c0()"
    text = HEAD.format(cond=True) + tail + "\n"
    found = runs({"rp_deep": (patched(OP, text, "rp_deep") or "", "mod.f() == 'new'")}, tmp_path)
    assert found["rp_deep"] is False  # the chain does replace f
    said = refusal(OP, text)
    assert said is not None and "`f`" in said, said
    if depth > MAX_DEPTH:
        assert "cannot tell which names it binds" in said, said
    else:
        assert "rebinds it" in said, said
