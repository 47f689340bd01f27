"""A def the patch changes may be replaced later at module level by a call radpatch must read as a
store: `operator.setitem(globals(), ...)` (and delitem, in any import spelling), a bound method of
the namespace kept under another name (`_set = globals().__setitem__`), `setattr` under another
name, a `functools.partial` of one (`partial(setattr, sys.modules[__name__])`), a
`contextlib.nullcontext(globals()) as _g`, `globals().pop(...)`; and a call made inside an
expression: a comprehension, a lambda called there or handed to a call, a default argument, a
decorator, a class's bases, an `if` test. A call radpatch cannot read that is handed the module or
its namespace (`getattr(operator, 'set' + 'item')(globals(), ...)`) may store any name: refused.
Controls store into another object, only read the namespace, or bind a lambda never called.

Generated: each form times a stored value that replaces f (`g`) or keeps it (`f` itself), always or
under `if COND:`. Every patched module is imported in a subprocess for each COND: plan.plan must
refuse exactly the patches whose changed `f` is not the `f` the module holds at the end of a run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.def_runs import OP, cases_truth, refused_unless_changed_f_runs, store_family

HEAD = """import builtins
import contextlib
import functools
import operator
import sys
import types

COND = {cond}


def f():
    return 'old'


def g():
    return 'g'


"""

FORMS = {  # the later statement(s), storing V under the name f
    "operator-setitem": "operator.setitem(globals(), 'f', V)",
    "operator-imported": "from operator import setitem\nsetitem(globals(), 'f', V)",
    "operator-as-vars": "import operator as _op\n_op.setitem(vars(), 'f', V)",
    "operator-delitem": "operator.delitem(globals(), 'f')\nglobals().setdefault('f', V)",
    "operator-assigned": "_r = operator.setitem(globals(), 'f', V)",
    "setitem-method-alias": "_set = globals().__setitem__\n_set('f', V)",
    "update-method-alias": "_up = vars().update\n_up(f=V)",
    "pop": "globals().pop('f')\nglobals().setdefault('f', V)",
    "setattr-alias": "_sa = setattr\n_sa(sys.modules[__name__], 'f', V)",
    "partial-setattr": "_s = functools.partial(setattr, sys.modules[__name__])\n_s('f', V)",
    "partial-imported": "from functools import partial\n_s = partial(operator.setitem, globals())\n_s('f', V)",
    "partial-inline": "functools.partial(setattr, sys.modules[__name__], 'f')(V)",
    "partial-of-alias": "_set = globals().__setitem__\n_p = functools.partial(_set, 'f')\n_p(V)",
    "nullcontext-namespace": "with contextlib.nullcontext(globals()) as _g:\n    _g['f'] = V",
    "nullcontext-module": "with contextlib.nullcontext(sys.modules[__name__]) as _m:\n    _m.f = V",
    "computed-setitem": "_fn = getattr(operator, 'set' + 'item')\n_fn(globals(), 'f', V)",
    "computed-setattr": "_fn = getattr(builtins, 'set' + 'attr')\n_fn(sys.modules[__name__], 'f', V)",
    "computed-in-list": "_fn = getattr(operator, 'set' + 'item')\n_fn(*[globals()], 'f', V)",
    "listcomp": "[globals().__setitem__('f', V) for _ in (0,)]",
    "genexp": "list(globals().update(f=V) for _ in (0,))",
    "setcomp": "_x = {setattr(sys.modules[__name__], 'f', V) for _ in (0,)}",
    "dictcomp-computed": "_x = {_k: globals().__setitem__(_k, V) for _k in ['f']}",
    "lambda-called": "(lambda: globals().update(f=V))()",
    "lambda-handed": "list(map(lambda _: globals().__setitem__('f', V), [0]))",
    "default-argument": "def _h(_x=globals().update(f=V)):\n    pass",
    "decorator": "@(lambda fn: (globals().__setitem__('f', V), fn)[1])\ndef _h():\n    pass",
    "class-base": "class _K(globals().update(f=V) or object):\n    pass",
    "if-test": "if globals().update(f=V) is None:\n    pass",
    # controls: the patched f still runs
    "control-other-dict": "_d = {}\noperator.setitem(_d, 'f', V)",
    "control-partial-other": "_ns = types.SimpleNamespace()\nfunctools.partial(setattr, _ns)('f', V)",
    "control-reads": "_names = sorted(globals())\n_n = len(vars()) + len(list(globals().items()))",
    "control-named-lambda": "_cb = lambda: globals().update(f=V)",
    "control-comprehension-reads": "_all = [k for k in list(globals()) if not k.startswith('_')]",
}
CASES, source = store_family(HEAD, FORMS)


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], list[object]]:
    """Per case: for each COND, whether the patched module's f is the changed one at the end."""
    return cases_truth(OP, CASES, source, "rp_calls", Path(tmp_path_factory.mktemp("calls")))


@pytest.mark.parametrize(("form", "value", "wrap"), CASES, ids=["-".join(c) for c in CASES])
def test_refused_exactly_when_the_changed_def_does_not_run(
    truth: dict[tuple[str, str, str], list[object]], form: str, value: str, wrap: str
) -> None:
    ran = truth[form, value, wrap]
    said = refused_unless_changed_f_runs(ran, source(form, value, wrap, True))
    if said is not None:
        assert "`f`" in said and ("replaces" in said or "rebind" in said), said
