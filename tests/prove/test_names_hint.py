"""The names step's hint says "import it first" only where an import may provide the name (att41 #4:
a local read before the loop's pass that binds it was told to import it): a name read as a module
name (undefined, used before the module binds it, bound on some paths of the module, deleted); a
function's own local read where it may be unbound (or an enclosing function's, from a closure) is
told to bind it on every path before the read.

Generated: the shape of the read (local ones, module ones, one of each) x where the code sits (a
function, an async function, a method, a nested function)."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove import names, names_check, target_probe
from radpatch.prove.refusal import BOUND_HINT, NAMES_HINT
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.interpreters import OTHER_TARGETS

LOCAL = {
    "read-before-bind": "x = v\nv = 1\nreturn x\n",
    "some-branches": "if a:\n    v = 1\nreturn v\n",
    "loop-first-pass": "for x in a:\n    print(v)\n    v = x\nreturn 0\n",
    "closure-free": "def g():\n    return v\nr = g()\nv = 1\nreturn r\n",
    "deleted-local": "v = 1\nif a:\n    del v\nreturn v\n",
}
MODULE = {
    "undefined": "return json.dumps(a)\n",
    "deleted-module-name": "return gone(a)\n",
    "mixed": "if a:\n    v = 1\nreturn json.dumps(v)\n",
}
WHERE = ("function", "async", "method", "nested")
PRELUDE = "def gone(a):\n    return a\n\n\n"
EPILOGUE = "\n\ndel gone\n"


def module(body: str, where: str) -> str:
    if where == "method":
        code = "class C:\n    def f(self, a):\n" + indent(body, "        ")
    elif where == "nested":
        code = "def outer():\n    def f(a):\n" + indent(body, "        ") + "    return f\n"
    else:
        code = ("async " if where == "async" else "") + "def f(a):\n" + indent(body, "    ")
    return PRELUDE + code + EPILOGUE


CASES = sample(list(itertools.product([*LOCAL, *MODULE], WHERE)))


@pytest.mark.parametrize(("shape", "where"), CASES, ids=["-".join(c) for c in CASES])
def test_the_hint_says_import_only_for_a_name_an_import_may_provide(shape: str, where: str) -> None:
    before = module("return 0\n", where)
    after = module({**LOCAL, **MODULE}[shape], where)
    refused = names_check.names_refusal(before.encode(), after.encode(), "m.py")
    assert refused is not None, after
    assert ("import it first" in refused.hint) == (shape in MODULE), (after, refused.why, refused.hint)
    assert refused.hint == (NAMES_HINT if shape in MODULE else BOUND_HINT)


TARGET_CASES = sample(list(itertools.product(OTHER_TARGETS, ["some-branches", "loop-first-pass", "undefined"])))


@pytest.mark.parametrize(("version", "shape"), TARGET_CASES, ids=["-".join(c) for c in TARGET_CASES])
def test_a_target_of_another_version_tells_which_reads_are_locals(version: str, shape: str) -> None:
    """The probe on another target Python answers each problem with whether it is a local's read."""
    before, after = module("return 0\n", "function"), module({**LOCAL, **MODULE}[shape], "function")
    probe = target_probe.Probe(str(OTHER_TARGETS[version]), (), "m")
    found = target_probe._ask(probe, before, after.encode(), after, "m.py").problems
    assert found and all(p.importable == (shape in MODULE) for p in found if p.kind not in names.FACTS), found
