"""A def of the module handed to a foreign name (issue 21, names53 #3): names50 let a module def passed on
(`register(op, fn)`) keep the receiver foreign (an imported name no instance of the module's classes is
in); names51 dropped that, as `Q.put(make)` may hand an instance back, and any store through a foreign
name (`REG.hook = fn`) made it one that may hold an instance. Then `k = REG.hook()` / `k.m()` was refused
where fn makes none, and the module runs. Now both hold: a def given to a foreign name, by a call or a
store, keeps it foreign when the def reads no name of the module but foreign ones (calling it makes no
instance); a def that may make one (`make`, reading C), the class itself or an instance does not.

Generated: how the function is handed (a store on an attribute, a dict's item, `setattr`, a method call
of the holder, a call given the holder and it) x which function (one making an instance of C, one
making a foreign value: the twin) x what is done with what comes back (a method called, a property read)
x where v is bound (before the class: accepted; after the use: refused where an instance of C comes back).
The oracle is Python importing the module."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import raises_anywhere

HEAD = "import types\nREG = types.SimpleNamespace()\nD = {}\n"
HANDS = {  # code handing `{fn}` to a foreign name, and the call that gets what it makes back
    "stored on an attribute": ("REG.hook = {fn}\n", "REG.hook()"),
    "stored in a dict's item": ("D['hook'] = {fn}\n", "D['hook']()"),
    "given to setattr": ("setattr(REG, 'hook', {fn})\n", "REG.hook()"),
    "given to a method of the holder": ("REG.__dict__.update(hook={fn})\n", "REG.hook()"),
    "given to a call with the holder": ("types.SimpleNamespace.__setattr__(REG, 'hook', {fn})\n", "REG.hook()"),
}
FNS = {  # the function handed: does what it returns have C's methods?
    "one making an instance of C": "def fn():\n    return C()\n",
    "one making a foreign value (twin)": "def fn():\n    return types.SimpleNamespace(m=str, p=0)\n",
}
USES = {"a method called": "x = k.m()\n", "a property read": "x = k.p\n"}
CLASS = "class C:\n    def m(self):\n        return v\n\n    @property\n    def p(self):\n        return v\n"
ORDERS = ("bound before the class", "bound after the use")


def module(hand: str, fn: str, use: str, order: str) -> str:
    store, back = HANDS[hand]
    before = "v = 1\n" if order == "bound before the class" else ""
    after = "v = 1\n" if order == "bound after the use" else ""
    body = f"{FNS[fn]}{store.format(fn='fn')}k = {back}\n{USES[use]}"
    return f"{HEAD}{before}{CLASS}{body}{after}"


def import_raises_name_error(source: str) -> bool:
    try:
        return raises_anywhere(source, lambda namespace, a: None)
    except NameError:
        return True


CASES = sample(list(itertools.product(HANDS, FNS, USES, ORDERS)))


@pytest.mark.parametrize(("hand", "fn", "use", "order"), CASES, ids=["-".join(c) for c in CASES])
def test_a_def_handed_to_a_foreign_name_keeps_it_foreign_unless_it_makes_an_instance(
    hand: str, fn: str, use: str, order: str
) -> None:
    after = module(hand, fn, use, order)
    compile(after, "generated.py", "exec")
    found = introduced(b"x = 0\n", after.encode())
    assert found is not None, after
    raises = import_raises_name_error(after)
    assert bool(found) == raises, (after, [p.describe() for p in found])


# in a function run at import: what comes back is its local, which counts as an instance (names50)
# whatever it is (the twin is refused there); an instance coming back is refused as at module level
@pytest.mark.parametrize(("hand", "fn"), sample(list(itertools.product(HANDS, ["one making an instance of C"]))))
def test_the_same_in_a_function_run_at_import(hand: str, fn: str) -> None:
    store, back = HANDS[hand]
    body = indent(f"k = {back}\n{USES['a method called']}return 0\n")
    after = f"{HEAD}{CLASS}{FNS[fn]}{store.format(fn='fn')}def g():\n{body}\n\ng()\nv = 1\n"
    found = introduced(b"x = 0\n", after.encode())
    assert found is not None, after
    assert bool(found) == import_raises_name_error(after), (after, [p.describe() for p in found])
