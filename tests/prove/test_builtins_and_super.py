"""Two names a patch can break without leaving anything undefined, generated and run:

- a new module-level binding of a builtin the original reads (a payload's `def filter`, a
  set_constant `len = 5`) takes over the original's uses of it;
- a zero-argument `super()` (or `__class__`) moved out of the method's own body (wrap_body's
  nested function, a lambda, a generator expression) fails when it runs.

Each variant's original and patched module are run; the names proof must refuse exactly the
patches that change what the original's code does (builtins) or that fail when called (super)."""

from __future__ import annotations

import itertools
import sys
import types

import pytest

from radpatch.prove import names
from tests.lib.generated import sample

READERS = {  # the original's read of `len`, each in a function called after the import
    "body": "def reader():\n    return len('ab')\n",
    "nested": "def reader():\n    def inner():\n        return len('ab')\n    return inner()\n",
    "lambda": "reader = lambda: len('ab')\n",
    "comprehension": "def reader():\n    return [len(x) for x in ['ab']][0]\n",
    "method": "class R:\n    def m(self):\n        return len('ab')\n\n\ndef reader():\n    return R().m()\n",
    "local-parameter": "def reader(len=lambda s: 2):\n    return len('ab')\n",
    "none": "def reader():\n    return 2\n",
}
BINDINGS = {  # what the patch adds at the end of the module
    "def": "def len(s):\n    return 'taken'\n",
    "assign": "len = lambda s: 'taken'\n",
    "class": "class len:\n    def __init__(self, s):\n        pass\n",
    "import-as": "from os.path import basename as len\n",
    "for-target": "for len in [lambda s: 'taken']:\n    pass\n",
    "global-in-function": "def _setup():\n    global len\n    len = lambda s: 'taken'\n\n\n_setup()\n",
    "private": "def _rp_len(s):\n    return 'taken'\n",
}
ALREADY = {"": "", "module-binds-it": "len = len\n"}


def run(source: str) -> object:
    mod = types.ModuleType("rp_builtins_case")
    exec(compile(source, "<case>", "exec"), mod.__dict__)
    try:
        return mod.reader()
    except Exception as exc:
        return type(exc).__name__


@pytest.mark.parametrize(("reader", "binding", "already"), sample(itertools.product(READERS, BINDINGS, ALREADY)))
def test_a_new_binding_of_a_builtin_the_original_reads_is_refused(reader: str, binding: str, already: str) -> None:
    before = ALREADY[already] + READERS[reader]
    after = before + "\n\n" + BINDINGS[binding]
    # A name the module binds already is not read as a builtin: rebinding it is the shadowing and
    # set_constant checks' business, not this one's.
    changes = run(before) != run(after) and not already

    found = [p for p in names.introduced(before, after) if p.kind == names.SHADOWS_BUILTIN]

    assert bool(found) == changes, (reader, binding, already, found)


BASE = "class B:\n    def f(self):\n        return 'B'\n\n\nclass C(B):\n    def f(self):\n        return {body}\n"
BODIES = {  # the method's return expression once patched
    "plain": "'C' + super().f()",
    "explicit": "'C' + super(C, self).f()",
    "nested-def": "(lambda: None) and _call()",  # _call is a nested def, below
    "lambda": "(lambda: 'C' + super().f())()",
    "lambda-with-self": "(lambda s: 'C' + super().f())(self)",
    "generator": "''.join('C' + super().f() for _ in 'x')",
    "list-comprehension": "''.join(['C' + super().f() for _ in 'x'])",
    "class-cell-in-lambda": "(lambda: __class__.__name__)()",
    "class-cell": "__class__.__name__",
}
NESTED = "        def _call():\n            return 'C' + super().f()\n"


def patched(body: str) -> str:
    source = BASE.format(body=BODIES[body])
    if body == "nested-def":
        source = source.replace("        return (lambda: None) and _call()", NESTED + "        return _call()")
    return source


@pytest.mark.parametrize("body", sorted(BODIES))
def test_zero_argument_super_outside_the_method_body_is_refused(body: str) -> None:
    before, after = BASE.format(body="'C' + super().f()"), patched(body)
    mod = types.ModuleType("rp_super_case")
    exec(compile(after, "<case>", "exec"), mod.__dict__)
    try:
        mod.C().f()
        fails = False
    except (RuntimeError, TypeError, NameError):
        fails = True

    found = [p for p in names.introduced(before, after) if p.kind == names.METHOD_ONLY]

    # Refused, though it runs: a nested function whose first argument happens to be the instance
    # (the rule is where super() sits, not what it is passed at run time).
    conservative = body == "lambda-with-self"
    assert bool(found) == (fails or conservative), (body, sys.version_info[:2], found)


def test_class_cell_outside_any_method_is_refused() -> None:
    before = "def g():\n    return 1\n"
    assert [p.kind for p in names.introduced(before, "def g():\n    return __class__\n")] == [names.METHOD_ONLY]
