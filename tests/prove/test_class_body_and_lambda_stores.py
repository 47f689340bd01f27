"""A module-level name the patch changes may be stored over later by code prove.placement must
read, following calls.py's rule (the calls a statement makes when it runs): a statement in a
module-level class body (`class K: globals()['f'] = g`: the body runs at import time, and its
`globals()` is the module's), and a lambda bound to a name that the module then calls
(`_cb = lambda: globals().update(f=g)` then `_cb()`). Controls: a class body's `locals()` is the
class's namespace, and a named lambda never called stores nothing. att21g F7: a class body calling a
storing function or named lambda, a lambda bound by an annotated assignment or called through an alias,
a class-body `global`, a walrus in a module-level comprehension.

Generated: each form times the changed name (def f by `replace`, constant X by `set_constant`) times
a stored value that replaces it or keeps it. Every patched module is imported in a subprocess: the
proof must refuse exactly the patches whose change is not what the module holds at the end."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from radpatch.registry.model import Operation
from radpatch.rewrite.ops.replace import Replace
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.def_runs import patched, refusal, runs
from tests.lib.generated import sample

HEAD = "X = 1\n\n\ndef f():\n    return 'old'\n\n\ndef g():\n    return 'g'\n\n\n"

FORMS = {  # the later statement(s), storing V under the name N
    "class-body-setitem": "class _K:\n    globals()['N'] = V",
    "class-body-update": "class _K:\n    globals().update(N=V)",
    "class-body-nested-if": "class _K:\n    if True:\n        globals()['N'] = V",
    "nested-class-body": "class _K:\n    class _J:\n        globals().__setitem__('N', V)",
    "named-lambda-called": "_cb = lambda: globals().update(N=V)\n_cb()",
    "named-lambda-setitem-called": "_cb = lambda: globals().__setitem__('N', V)\n_r = [_cb()]",
    # att21g F7: a class body calling a module function that stores; a lambda bound by an annotated
    # assignment, or called through an alias; a walrus in a module-level comprehension; a class-body `global`
    "class-body-calls-setter": "def _set():\n    globals()['N'] = V\n\n\nclass _K:\n    _set()",
    "class-body-calls-global-setter": "def _set():\n    global N\n    N = V\n\n\nclass _K:\n    _set()",
    "annotated-lambda-called": "_cb: object = lambda: globals().update(N=V)\n_cb()",
    "lambda-alias-called": "_cb = lambda: globals().update(N=V)\n_cb2 = _cb\n_cb2()",
    "class-body-calls-lambda": "_cb = lambda: globals().update(N=V)\n\n\nclass _K:\n    _cb()",
    "function-calls-lambda": "_cb = lambda: globals().update(N=V)\n\n\ndef _run():\n    _cb()\n\n\n_run()",
    "lambda-calls-setter": "def _s():\n    globals()['N'] = V\n\n\n_cb = lambda: _s()\n_cb()",
    "comprehension-walrus": "_seen = [(N := V) for _ in (1,)]",
    "class-body-global": "class _K:\n    global N\n    N = V",
    # controls: the patched binding still runs
    "control-lambda-alias-not-called": "_cb = lambda: globals().update(N=V)\n_cb2 = _cb",
    "control-function-calls-lambda-not-called": "_cb = lambda: globals().update(N=V)\n\n\ndef _run():\n    _cb()",
    "control-class-body-global-other": "class _K:\n    global _other\n    N = V",
    "control-class-body-locals": "class _K:\n    locals()['N'] = V",
    "control-class-body-assign": "class _K:\n    N = V",
    "control-named-lambda": "_cb = lambda: globals().update(N=V)",
}
OPS = {
    "def": (Replace("f", "'old'", "'new'"), "f", {"replaces": "g", "keeps": "f"}, "mod.f() == 'new'"),
    "constant": (SetConstant("X", "2", "1"), "X", {"replaces": "7", "keeps": "X"}, "mod.X == 2"),
}
# a generated family: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py)
CASES = sample(itertools.product(FORMS, OPS, ("replaces", "keeps")))
# a second module-level binding of X (`global X` then `X = ...`, a walrus in a comprehension): set_constant
# itself refuses to choose which one runs (its own rule), before any placement proof
REWRITE_REFUSES = "the rewrite refuses"


def source(form: str, op: str, value: str) -> tuple[Operation, str]:
    what, name, values, _ = OPS[op]
    return what, HEAD + FORMS[form].replace("N", name).replace("V", values[value]) + "\n"


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], object]:
    """Per case: whether the patched module holds the changed binding at the end of its import."""
    modules: dict[str, tuple[str, str]] = {}
    where: dict[tuple[str, str, str], str] = {}
    for n, case in enumerate(CASES):
        pkg = f"rp_cbl_{n}"
        text = patched(*source(*case), pkg)
        if text is None:
            continue
        modules[pkg] = (text, OPS[case[1]][3])
        where[case] = pkg
    found = runs(modules, Path(tmp_path_factory.mktemp("cbl")))
    return {case: found[where[case]] if case in where else REWRITE_REFUSES for case in CASES}


@pytest.mark.parametrize(("form", "op", "value"), CASES, ids=["-".join(c) for c in CASES])
def test_refused_exactly_when_the_change_is_stored_over(
    truth: dict[tuple[str, str, str], object], form: str, op: str, value: str
) -> None:
    said = refusal(*source(form, op, value))
    if truth[form, op, value] == REWRITE_REFUSES:
        assert op == "constant" and said is not None, said
        return
    shows = truth[form, op, value] is True
    assert (said is not None) == (not shows), (truth[form, op, value], said)
    if said is not None:
        assert f"`{OPS[op][1]}`" in said, said


def test_both_outcomes_are_generated() -> None:
    assert any(k.startswith("control-") for k in FORMS) and any(not k.startswith("control-") for k in FORMS)
