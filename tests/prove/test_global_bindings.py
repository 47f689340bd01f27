"""`global x` must resolve to a binding of the module: an augmented assignment reads x first.

Generated: a function that declares `global x` and updates it (every augmented operator, and a
plain read), with x bound in the module in each way Python allows, or bound nowhere. Each
module is run (an initialiser first, when it has one, then the updater): the check must refuse
exactly the modules that raise NameError.
"""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names import introduced
from tests.lib.generated import sample

UPDATES = {
    "+=": "    x += 1\n",
    "-=": "    x -= 1\n",
    "*=": "    x *= 2\n",
    "|=": "    x |= 1\n",
    "<<=": "    x <<= 1\n",
    "read": "    y = x\n",
    "read-then-assign": "    y = x\n    x = 2\n",
    "assign-then-add": "    x = 0\n    x += 1\n",
}

BINDINGS = {
    "nowhere": ("", False),
    "assignment": ("x = 0\n", True),
    "annotated": ("x: int = 0\n", True),
    "tuple": ("x, _z = 0, 1\n", True),
    "for": ("for x in range(3):\n    pass\n", True),
    "with": ("import contextlib\nwith contextlib.nullcontext(0) as x:\n    pass\n", True),
    "import": ("from sys import maxsize as x\n", True),
    "try": ("try:\n    x = 0\nexcept Exception:\n    x = 1\n", True),
    "walrus": ("(x := 0)\n", True),
    "other-function": ("def init():\n    global x\n    x = 0\n", True),
    "other-function-augmented-only": ("def init():\n    global x\n    x += 0\n", False),
    "annotation-only": ("x: int\n", False),
}


def module(binding: str, update: str) -> str:
    return "import os\n" + BINDINGS[binding][0] + "\n\ndef bump():\n    global x\n" + UPDATES[update] + "    return 1\n"


def fails_when_run(source: str) -> bool:
    namespace: dict[str, object] = {"__name__": "generated"}
    exec(compile(source, "generated.py", "exec"), namespace)
    try:
        if "init" in namespace:  # the original's own function: whatever it does, it runs first
            namespace["init"]()  # type: ignore[operator]
    except NameError:
        pass
    try:
        namespace["bump"]()  # type: ignore[operator]
    except NameError:
        return True
    return False


CASES = sample(itertools.product(BINDINGS, UPDATES))


@pytest.mark.parametrize(("binding", "update"), CASES, ids=[f"{b}-{u}" for b, u in CASES])
def test_a_global_update_is_refused_exactly_when_the_module_never_binds_it(binding: str, update: str) -> None:
    before = "import os\n" + BINDINGS[binding][0]
    after = module(binding, update)
    found = [p for p in introduced(before, after, "m.py") if p.name == "x" and p.scope == "bump"]
    assert bool(found) == fails_when_run(after), (after, found)
    if update == "assign-then-add" or BINDINGS[binding][1]:
        assert not found
    if found:
        assert found[0].scope == "bump" and "NameError" in found[0].describe()
