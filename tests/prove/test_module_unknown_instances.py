"""An instance of a module-level class reached at import where its class is not told (issue 21, names50):
`class C:` whose method reads v, then `make().m()`, `k = make(); k.m()`, `for k in [C()]: k.m()`, or a
function run at import calling `INST.m()` on a global `INST = C()` (or `make().m()`), before `v = 1`,
was accepted and raised NameError at import. Such an operand at module level (a call's result, a container's element, a
global a function run at import reads) now counts as an instance of every class the module defined so
far (unknown_instances, as in a function), unless it is a module name whose every binding is an import
or a value reading only such names and builtins (`A = os.environ.get('A')`: the twins) and never stored
through or passed along with one (`d['a'] = C()`, `d.append(C())`: not twins). A function run at import
follows the module functions it calls; a comprehension's variable counts too, and so does a class
body's operand (it runs where the class statement is).

Generated: how the instance is reached x what is done with it (a method called, its truth, a property
read) x which method of C reads v (the one the use calls; the twin: another one) x where v is bound
(before the class or before the use: accepted; after the use: refused). The oracle is Python importing
the module: the names step refuses exactly where that raises NameError."""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names_check import introduced
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.name_errors import raises_anywhere

MAKE = "def make():\n    return C()\n"
REACHES = {  # module-level code reaching an instance as `k`, then `{use}` run on it
    "a call's result": MAKE + "k = make()\n{use}",
    "a call's result, not named": MAKE + "{use_call}",
    "a container's element": "for k in [C()]:\n{use_in}",
    "a dict's value": "d = {{'a': C()}}\nk = d['a']\n{use}",
    "a global a function run at import reads": "INST = C()\ndef g():\n    k = INST\n{use_in}    return 0\ng()\n",
    "a global made by a call, read in a function run at import": MAKE
    + "INST = make()\ndef g():\n    k = INST\n{use_in}    return 0\ng()\n",
    "a global read in a function run at import, used there directly": "INST = C()\ndef g():\n{use_global}"
    "    return 0\ng()\n",
    "a call's result in a function run at import": MAKE + "def g():\n{use_call_in}    return 0\ng()\n",
    "a function run at import calling another": MAKE
    + "def h():\n{use_call_in}    return 0\ndef g():\n    return h()\ng()\n",
    "a call's result in a class body": MAKE + "class D:\n{use_call_in}",
    "a comprehension's element": "r = [{use_expr} for k in [C()]]\n",
    "an imported container it is stored in": "import collections\nd = collections.OrderedDict()\n"
    "d['a'] = C()\nk = d['a']\n{use}",
    "an imported container it is passed to": "import collections\nd = collections.deque()\nd.append(C())\n"
    "k = d.pop()\n{use}",
    # twins: a value no instance of C can be (only imported names and builtins read): never one of C's
    "an imported function's result (twin)": "import os\nk = os.path.basename('a')\n{use}",
    "a builtin's result (twin)": "k = str(len('ab'))\n{use}",
}
USES = {  # the use on `k` (a statement, an expression), the method of C it calls
    "a method called": ("x = k.m()\n", "k.m() == 0", "m"),
    "its truth": ("if k:\n    pass\n", "(k and 0)", "__bool__"),
    "a property read": ("x = k.p\n", "k.p == 0", "p"),
}
READS = {  # each method of C, reading v
    "m": "def m(self):\n    return v\n",
    "__bool__": "def __bool__(self):\n    return bool(v)\n",
    "p": "@property\ndef p(self):\n    return v\n",
}
PLAIN = {  # the same, reading nothing: every use works when v is bound
    "m": "def m(self):\n    return 0\n",
    "__bool__": "def __bool__(self):\n    return True\n",
    "p": "@property\ndef p(self):\n    return 0\n",
}
WHICH = ("the one the use calls", "another one")
ORDERS = ("bound before the class", "bound before the use", "bound after the use")


def module(reach: str, use: str, which: str, order: str) -> str:
    code, expr, method = USES[use]
    if which == "another one":
        method = "m" if method != "m" else "p"
    cls = "class C:\n" + indent(READS[method] + "".join(p for name, p in PLAIN.items() if name != method))
    call = code.replace("k", "make()", 1)
    body = REACHES[reach].format(
        use=code,
        use_call=call if reach.endswith("not named") else code,
        use_in=indent(code),
        use_call_in=indent(call),
        use_expr=expr,
        use_global=indent(code.replace("k", "INST", 1)),
    )
    before = "v = 1\n" if order == "bound before the class" else ""
    between = "v = 1\n" if order == "bound before the use" else ""
    after = "v = 1\n" if order == "bound after the use" else ""
    return f"{before}{cls}{between}{body}{after}"


def import_raises_name_error(source: str) -> bool:
    """Does importing `source` raise NameError? (another error, `'str' object has no attribute 'm'`,
    ends the import as the code meant to)"""
    try:
        return raises_anywhere(source, lambda namespace, a: None)
    except NameError:
        return True
    except (AttributeError, TypeError):
        return False


CASES = sample(list(itertools.product(REACHES, USES, WHICH, ORDERS)))


@pytest.mark.parametrize(("reach", "use", "which", "order"), CASES, ids=["-".join(c) for c in CASES])
def test_an_instance_reached_at_import_is_judged_where_its_methods_run(
    reach: str, use: str, which: str, order: str
) -> None:
    after = module(reach, use, which, order)
    compile(after, "generated.py", "exec")
    found = introduced(b"x = 0\n", after.encode())
    assert found is not None, after
    raises = import_raises_name_error(after)
    assert bool(found) == raises, (after, [p.describe() for p in found])
