"""A def the patch changes may be replaced later by code a module-level statement runs without
spelling it there (issue 21 F7, radpatch/prove/placement/reached.py): a call more than one level
deep (`_f()` calls `_g()`, which stores), a recursion, the methods Python runs when a class of the
module is created (a metaclass's `__new__`/`__init__`, also one a base gives; a base's or a
grandparent's `__init_subclass__`) or called (`__init__`). Controls define the same code but never
run it. What Python calls without a call written by that name is followed too (att21b F1): a
decorator (also a factory's result, a class's, a method's), a callable instance, `with`'s
`__enter__`, an alias, a classmethod or staticmethod by attribute, `__set_name__`.

Generated: each form times a stored value that replaces f (`g`) or keeps it (`f` itself), always or
under `if COND:`. Every patched module is imported in a subprocess for each COND: plan.plan must
refuse exactly the patches whose changed `f` is not the `f` the module holds once imported. A chain
of any depth is followed (F4); the work is bounded by the functions, not statements x functions (F5)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from radpatch.prove.placement.reached import ModuleCode, Summaries
from tests.lib.def_runs import OP, cases_truth, patched, refusal, refused_unless_changed_f_runs, runs, store_family

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
    # issue 21 att21b F1: what Python calls without a call written by that name
    "decorator": f"def _reg(fn):\n    {SET}\n    return fn\n\n\n@_reg\ndef _h():\n    pass",
    "decorator-body-reads-f": f"def _reg(fn):\n    {SET}\n    return fn\n\n\n@_reg\ndef _h():\n    return f()",
    "decorator-global": "def _reg(fn):\n    global f\n    f = V\n    return fn\n\n\n@_reg\ndef _h():\n    pass",
    "decorator-factory": (
        f"def _reg(tag):\n    def wrap(fn):\n        {SET}\n        return fn\n    return wrap\n\n\n"
        "@_reg('x')\ndef _h():\n    pass"
    ),
    "class-decorator": f"def _reg(c):\n    {SETATTR}\n    return c\n\n\n@_reg\nclass _K:\n    pass",
    "method-decorator": (
        f"def _reg(fn):\n    {SET}\n    return fn\n\n\nclass _K:\n    @_reg\n    def m(self):\n        pass"
    ),
    "callable-instance": (
        f"class _Reg:\n    def __call__(self, fn):\n        {SET}\n        return fn\n\n\n_reg = _Reg()\n\n\n"
        "@_reg\ndef _h():\n    return f()"
    ),
    "with-enter": (
        f"class _Ctx:\n    def __enter__(self):\n        {SET}\n\n    def __exit__(self, *a):\n        pass\n\n\n"
        "with _Ctx():\n    pass"
    ),
    "alias-call": f"def _setup():\n    {SET}\n\n\n_run = _setup\n_run()",
    "classmethod": f"class _Cfg:\n    @classmethod\n    def load(cls):\n        {SET}\n\n\n_Cfg.load()",
    "staticmethod": f"class _Cfg:\n    @staticmethod\n    def load():\n        {SET}\n\n\n_Cfg.load()",
    "set-name": (
        f"class _Field:\n    def __set_name__(self, owner, name):\n        {SET}\n\n\nclass _Model:\n    x = _Field()"
    ),
    "self-method": (
        "class _R:\n    def __init__(self):\n        self._store()\n\n"
        f"    def _store(self):\n        {SET}\n\n\n_r = _R()"
    ),
    "table-call": f"def _setup():\n    {SET}\n\n\n_TABLE = {{'a': _setup}}\n_TABLE['a']()",
    "closure-alias": (f"def _make():\n    def run():\n        {SET}\n    return run\n\n\n_go = _make()\n_go()"),
    # controls: the same code, never run
    "control-never-called": f"def _g():\n    {SET}\n\n\ndef _f():\n    _g()",
    "control-no-subclass": f"class _B:\n    def __init_subclass__(cls, **kw):\n        {SET}",
    "control-no-instance": f"class _R:\n    def __init__(self):\n        {SET}",
    "control-decorator-not-applied": f"def _reg(fn):\n    {SET}\n    return fn",
    "control-set-name-never-created": f"class _Field:\n    def __set_name__(self, owner, name):\n        {SET}",
    "control-with-exit-only-other": (
        f"class _Ctx:\n    def other(self):\n        {SET}\n\n    def __enter__(self):\n        pass\n\n"
        "    def __exit__(self, *a):\n        pass\n\n\nwith _Ctx():\n    pass"
    ),
    "control-method-not-a-hook": (
        f"class _M(type):\n    def other(cls):\n        {SET}\n\n\nclass _K(metaclass=_M):\n    pass"
    ),
}
CASES, source = store_family(HEAD, FORMS)


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], list[object]]:
    """Per case: for each COND, whether the patched module's f is the changed one once imported."""
    return cases_truth(OP, CASES, source, "rp_reached", Path(tmp_path_factory.mktemp("reached")))


@pytest.mark.parametrize(("form", "value", "wrap"), CASES, ids=["-".join(c) for c in CASES])
def test_refused_exactly_when_the_changed_def_does_not_run(
    truth: dict[tuple[str, str, str], list[object]], form: str, value: str, wrap: str
) -> None:
    ran = truth[form, value, wrap]
    assert all(isinstance(r, bool) for r in ran), ran  # every module imported
    said = refused_unless_changed_f_runs(ran, source(form, value, wrap, True))
    if said is not None:
        assert "`f`" in said and "rebind" in said, said


@pytest.mark.parametrize("depth", [2, 17, 60])
def test_a_call_chain_of_any_depth_is_followed(tmp_path: Path, depth: int) -> None:
    """`_c0()` calls `_c1()` ... the last stores f: refused naming the store, at any depth (att21b F4:
    each function is read once, so no depth limit is needed); the same chain storing nothing, applied."""
    chain = "".join(f"def _c{i}():\n    _c{i + 1}()\n\n\n" for i in range(depth))
    for stores in (True, False):
        body = SET.replace("V", "g") if stores else "pass"
        text = HEAD.format(cond=True) + chain + f"def _c{depth}():\n    {body}\n\n\n_c0()\n"
        pkg = f"rp_deep_{stores}"
        found = runs({pkg: (patched(OP, text, pkg) or "", "mod.f() == 'new'")}, tmp_path)
        assert found[pkg] is (not stores)
        said = refusal(OP, text)
        if stores:
            assert said is not None and "`f`" in said and "rebinds it" in said, said
        else:
            assert said is None, said


@pytest.mark.parametrize("n", [40, 160])
def test_work_is_linear_in_the_functions(n: int) -> None:
    """att21b F5: n functions calling each other (a cycle plus chords) and n module-level calls: each
    function is read once for what it calls and once for what it stores, whatever the statements."""
    funcs = "".join(
        f"def _f{i}(x):\n    if x:\n        _f{(i + 1) % n}(x - 1)\n        _f{(i * 7 + 3) % n}(x - 1)\n\n\n"
        for i in range(n)
    )
    calls = "".join(f"V{i} = _f{i}(0)\n" for i in range(n))
    tree = ast.parse(funcs + calls)
    code = ModuleCode(tree.body)
    sums: Summaries[frozenset[str]] = Summaries(code, lambda f: frozenset({f.name}), lambda p: frozenset().union(*p))
    for s in tree.body:
        reached = sums.of(s)
        if isinstance(s, ast.Assign):  # the cycle reaches every function: the oracle is the whole set
            assert reached == {f"_f{i}" for i in range(n)}
    assert code.read <= n and sums.owned <= n, (code.read, sums.owned)
