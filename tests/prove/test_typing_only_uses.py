"""A name imported only under `if TYPE_CHECKING:` is judged use by use, not name by name.

The original uses the typing-only name on an error path (which fails there, unseen); the patch
adds another use of it. Every generated module is also run: the check must refuse exactly the
patches whose new use raises NameError on the path the test calls, and accept the rest.
"""

from __future__ import annotations

import itertools

import pytest

from radpatch.prove.names import TYPING_ONLY, introduced
from tests.lib.generated import sample

HEADER = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from vllm.config import Cfg\n\n\n"

# where the original already uses Cfg: paths the test never takes (x is never None)
OLD_USES = {
    "raise": "    if x is None:\n        raise TypeError(Cfg)\n",
    "isinstance": "    if x is None:\n        return isinstance(x, Cfg)\n",
    "except": "    try:\n        pass\n    except KeyError:\n        return Cfg\n",
    "nested": "    def err():\n        return Cfg()\n    if x is None:\n        err()\n",
    "none": "",
}

# what the patch adds to the main path of f (`x` is 1 there), or off it
NEW_USES = {
    "return": ("    return Cfg(x)\n", True),
    "assign": ("    y = Cfg\n    return y\n", True),
    "isinstance": ("    return isinstance(x, Cfg)\n", True),
    "call-arg": ("    return str(Cfg)\n", True),
    "fstring": ('    return f"{Cfg}"\n', True),
    "comprehension": ("    return [Cfg for _ in range(x)]\n", True),
    "lambda-called": ("    return (lambda: Cfg)()\n", True),
    "if-taken": ("    if x:\n        return Cfg\n", True),
    "string-annotation": ('    y: "Cfg" = x\n    return y\n', False),
    "local-annotation": ("    y: Cfg = x\n    return y\n", False),  # never evaluated in a function
    "no-use": ("    return x\n", False),
}


def module(old: str, new: str) -> str:
    return HEADER + "def f(x):\n" + OLD_USES[old] + NEW_USES[new][0] + "    return x\n"


def original(old: str) -> str:
    return HEADER + "def f(x):\n" + OLD_USES[old] + "    return x\n"


def fails_when_run(source: str) -> bool:
    namespace: dict[str, object] = {"__name__": "generated"}
    exec(compile(source, "generated.py", "exec"), namespace)
    try:
        namespace["f"](1)  # type: ignore[operator]
    except NameError:
        return True
    return False


CASES = sample(itertools.product(OLD_USES, NEW_USES))


@pytest.mark.parametrize(("old", "new"), CASES, ids=[f"{o}-{n}" for o, n in CASES])
def test_a_new_run_time_use_is_refused_even_where_the_original_had_one(old: str, new: str) -> None:
    before, after = original(old), module(old, new)
    assert not fails_when_run(before)  # the original's use is off the path the test calls
    found = [p for p in introduced(before, after, "m.py") if p.kind == TYPING_ONLY]
    assert bool(found) == fails_when_run(after) == NEW_USES[new][1], (before, after, found)
    if found:
        start = len((HEADER + "def f(x):\n" + OLD_USES[old]).splitlines())
        line = start + next(i for i, t in enumerate(NEW_USES[new][0].splitlines(), 1) if "Cfg" in t)
        assert found[0].name == "Cfg" and found[0].line == line, (found, line)
        assert "TYPE_CHECKING" in found[0].describe() and "line 4" in found[0].describe()


def test_moving_an_existing_use_is_not_a_new_use() -> None:
    before = original("raise")
    after = before.replace("        raise TypeError(Cfg)\n", "        raise ValueError(Cfg)\n")
    assert introduced(before, after, "m.py") == []
    # ... but a second one on the same error path is one more use: one more NameError to meet
    twice = before.replace("raise TypeError(Cfg)", "raise TypeError(Cfg, Cfg)")
    assert [(p.name, p.kind) for p in introduced(before, twice, "m.py")] == [("Cfg", TYPING_ONLY)]


# Where the typing-only name is bound at run time too, or not: the header's shapes.
HEADERS = {
    "only-type-checking": "if TYPE_CHECKING:\n    from vllm.config import Cfg\n",
    "not-type-checking-else": "if not TYPE_CHECKING:\n    pass\nelse:\n    from vllm.config import Cfg\n",
    "typing-dot": "import typing\n\nif typing.TYPE_CHECKING:\n    from vllm.config import Cfg\n",
    "else-binds": "if TYPE_CHECKING:\n    from vllm.config import Cfg\nelse:\n    Cfg = object\n",
    "try-fallback": (
        "if TYPE_CHECKING:\n    from vllm.config import Cfg\nelse:\n    try:\n"
        "        from _rp_absent.config import Cfg\n    except ImportError:\n        Cfg = object\n"
    ),
}

# New module-level code that uses the name: in annotations (evaluated at import unless the module
# has `from __future__ import annotations`) or at run time (always evaluated)
TOP_USES = {
    "param-annotation": "def g(c: Cfg) -> None:\n    return None\n",
    "return-annotation": "def g() -> Cfg:\n    return None\n",
    "string-annotation": 'def g(c: "Cfg") -> "list[Cfg]":\n    return []\n',
    "module-annotation": "LIMIT: Cfg = None\n",
    "class-annotation": "class Holder:\n    cfg: Cfg\n",
    "method-annotation": "class Holder:\n    def get(self) -> Cfg:\n        return None\n",
    "default": "def g(c=Cfg):\n    return c\n",
    "constant": "DEFAULT = Cfg\n",
    "decorator": "def deco(x):\n    return lambda f: f\n\n\n@deco(Cfg)\ndef g():\n    return 1\n",
    "base-class": "class Sub(Cfg):\n    pass\n",
    "function-body": "def g():\n    return Cfg\n",
}

TOP_CASES = sample(itertools.product(HEADERS, TOP_USES, (False, True)))


def imports_with_name_error(source: str) -> bool:
    """Run the module (vllm is not there: only what the run-time path binds exists), and call `g`."""
    namespace: dict[str, object] = {"__name__": "generated"}
    try:
        exec(compile(source, "generated.py", "exec", dont_inherit=True), namespace)
        if callable(namespace.get("g")) and not namespace["g"].__code__.co_argcount:  # type: ignore[attr-defined]
            namespace["g"]()  # type: ignore[operator]
    except NameError:
        return True
    return False


@pytest.mark.parametrize(
    ("header", "use", "future"), TOP_CASES, ids=[f"{h}-{u}-{'future' if f else 'eager'}" for h, u, f in TOP_CASES]
)
def test_a_typing_only_name_is_refused_exactly_where_it_is_evaluated(header: str, use: str, future: bool) -> None:
    """Annotations under `from __future__ import annotations` are never evaluated: a typing-only name
    is fine there, and refused wherever the new code evaluates it (a default, a base class, a body)."""
    head = ("from __future__ import annotations\n\n" if future else "") + "from typing import TYPE_CHECKING\n\n"
    before = head + HEADERS[header] + "\nX = 1\n"
    after = head + HEADERS[header] + "\nX = 1\n\n\n" + TOP_USES[use]
    assert not imports_with_name_error(before)
    found = [p for p in introduced(before, after, "m.py") if p.name == "Cfg"]
    assert bool(found) == imports_with_name_error(after), (after, found)
    if found:
        assert found[0].kind == TYPING_ONLY and "TYPE_CHECKING" in found[0].describe(), found


# how a module writes a guard that is false at run time (the import under it never runs) or true
GUARDS = {
    "plain": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    {imp}\n",
    "alias": "from typing import TYPE_CHECKING as TC\nif TC:\n    {imp}\n",
    "assigned-alias": "import typing\nTC = typing.TYPE_CHECKING\nif TC:\n    {imp}\n",
    "attribute": "import typing as t\nif t.TYPE_CHECKING:\n    {imp}\n",
    "and-true": "from typing import TYPE_CHECKING\nif TYPE_CHECKING and True:\n    {imp}\n",
    "true-and": "from typing import TYPE_CHECKING as TC\nif True and TC:\n    {imp}\n",
    "else-of-not": "from typing import TYPE_CHECKING\nif not TYPE_CHECKING:\n    pass\nelse:\n    {imp}\n",
    "else-of-not-or": "from typing import TYPE_CHECKING as TC\nif not TC or len('x'):\n    pass\nelse:\n    {imp}\n",
    "runs-not": "from typing import TYPE_CHECKING as TC\nif not TC:\n    {imp}\n",
    "runs-or": "from typing import TYPE_CHECKING\nif TYPE_CHECKING or True:\n    {imp}\n",
    "runs-not-and": "from typing import TYPE_CHECKING as TC\nif not TC and True:\n    {imp}\n",
}
IMPORT = "from decimal import Decimal as Cfg"


def guarded(guard: str, use: str) -> str:
    return GUARDS[guard].format(imp=IMPORT) + "\n\ndef f(x):\n    return " + use + "\n"


@pytest.mark.parametrize("guard", list(GUARDS))
def test_a_typing_only_import_is_found_however_the_guard_is_written(guard: str) -> None:
    """The guard spellings: a new run-time use is refused exactly when the import under the guard
    never runs (the patched module, run, raises NameError)."""
    before, after = guarded(guard, "x"), guarded(guard, "Cfg(x)")
    assert not fails_when_run(before)
    found = introduced(before, after, "m.py")
    fails = fails_when_run(after)
    assert fails == (not guard.startswith("runs-"))  # both outcomes are exercised
    assert bool(found) == fails, (guard, found)
    assert all(p.kind == TYPING_ONLY and p.name == "Cfg" for p in found), found
