"""Private names inside a class (att51 #3): Python reads `__reg` written in class C as `_C__reg`
(name mangling). A method reading the module's `__reg` was applied, with "no new undefined names",
and raised NameError at every call; in the class body it raised at import.

Generated: the class's name (mangled with its leading underscores stripped; a name of underscores
only mangles nothing) x what the module defines (`__reg`, the mangled `_C__reg`, both, a class attribute
`__reg`, nothing) x where the read sits (a method, the class body, a nested function, a lambda, a
comprehension, a parameter's default, a `global` declaration, a nested class, which mangles with its own
name, and a plain function, which mangles nothing). The oracle imports the module and calls the read:
the names step refuses exactly where Python raises NameError."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.generated import sample

CLASSES = ("C", "_C", "__C", "_", "C_")
DEFINES = {
    "module private": "__reg = [1]\n",
    "module mangled": "{mangled} = [1]\n",
    "both": "__reg = [1]\n{mangled} = [1]\n",
    "class attribute": "",
    "nothing": "",
}
READ = "__reg"
Run = Callable[[dict[str, object], str], object]
READS: dict[str, tuple[str, Run]] = {
    "method": ("class {cls}:\n{attr}    def m(self):\n        return {read}\n", lambda ns, c: ns[c]().m()),  # type: ignore[operator]
    "class body": ("class {cls}:\n{attr}    B = {read}\n", lambda ns, c: None),
    "nested function": (
        "class {cls}:\n{attr}    def m(self):\n        def h():\n            return {read}\n        return h()\n",
        lambda ns, c: ns[c]().m(),  # type: ignore[operator]
    ),
    "lambda": ("class {cls}:\n{attr}    m = lambda self: {read}\n", lambda ns, c: ns[c]().m()),  # type: ignore[operator]
    "comprehension": (
        "class {cls}:\n{attr}    def m(self):\n        return [x for x in {read}]\n",
        lambda ns, c: ns[c]().m(),  # type: ignore[operator]
    ),
    "default": ("class {cls}:\n{attr}    def m(self, r={read}):\n        return r\n", lambda ns, c: ns[c]().m()),  # type: ignore[operator]
    "global": (
        "class {cls}:\n{attr}    def m(self):\n        global __reg\n        return {read}\n",
        lambda ns, c: ns[c]().m(),  # type: ignore[operator]
    ),
    "nested class": (
        "class {cls}:\n{attr}    class D:\n        def m(self):\n            return {read}\n",
        lambda ns, c: ns[c].D().m(),  # type: ignore[attr-defined]
    ),
    "plain function": ("def m():\n    return {read}\nclass {cls}:\n{attr}    pass\n", lambda ns, c: ns["m"]()),  # type: ignore[operator]
}


def raises_name_error(source: str, cls: str, call: Run) -> bool:
    """Does importing `source`, then making the read, raise NameError?"""
    namespace: dict[str, object] = {}
    try:
        exec(compile(source, "generated.py", "exec"), namespace)
        call(namespace, cls)
    except NameError:
        return True
    return False


def mangled(cls: str) -> str:
    stripped = cls.lstrip("_")
    return f"_{stripped}__reg" if stripped else "__reg"


def module(cls: str, defines: str, read: str, value: str) -> str:
    attr = "    __reg = [1]\n" if defines == "class attribute" else ""
    head = DEFINES[defines].format(mangled=mangled(cls))
    return head + READS[read][0].format(cls=cls, attr=attr, read=value)


CASES = sample(list(itertools.product(CLASSES, DEFINES, READS)))


@pytest.mark.parametrize(("cls", "defines", "read"), CASES, ids=["-".join(c) for c in CASES])
def test_a_private_name_is_read_as_python_mangles_it(cls: str, defines: str, read: str) -> None:
    before, after = module(cls, defines, read, "0"), module(cls, defines, read, READ)
    found = introduced(before.encode(), after.encode())
    assert found is not None, after
    assert bool(found) == raises_name_error(after, cls, READS[read][1]), (after, [p.describe() for p in found])


def test_the_refusal_names_the_name_python_reads_and_the_one_written() -> None:
    before = "__reg = [1]\nclass C:\n    def m(self):\n        return 0\n"
    found = introduced(before.encode(), before.replace("return 0", "return __reg").encode())
    assert found is not None
    assert [p.name for p in found] == ["_C__reg"]
    assert "`__reg` written inside class C (name mangling)" in found[0].describe()
