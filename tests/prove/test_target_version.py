"""Code a patch puts in a branch that a test on the Python version makes dead on the TARGET's Python
is refused as unreachable, naming the test and the target version, as `if False:` is (att21 F1:
`if sys.version_info < (3, 11):` on a 3.12 target was live to placement); the same code where the
target runs the branch is accepted. One decision: names.version_guard's, for every spelling.

Generated: spellings of a version test (version_guard's, and a flag bound to one) times the minor
version the test names times the target's version times where the code goes (the if body, its
else) times the scope (module level, a function). The oracle runs each patched module with `sys`
standing for the target's (version_info, hexversion) under a line tracer: the proof refuses
exactly the code no run reaches.
"""

from __future__ import annotations

import ast
import builtins
import collections
import itertools
import types
from typing import Any

import pytest

from radpatch.prove import placement
from radpatch.prove.names import version_guard
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.reach import lines_run

SPELLINGS = (
    "sys.version_info < (3, {m})",
    "sys.version_info >= (3, {m})",
    "(3, {m}) <= sys.version_info",
    "version_info >= (3, {m})",
    "sys.version_info.minor >= {m}",
    "sys.version_info[1] < {m}",
    "sys.version_info[:2] >= (3, {m})",
    "not sys.version_info < (3, {m})",
    "sys.hexversion >= 0x030{m:X}0000",
    "_vi < (3, {m})",
    "PY_NEW",
    "not PY_NEW",
)
MINORS = (9, 10, 11, 12, 13)
TARGETS = ((3, 10), (3, 12))
WHERE = ("body", "else")
SCOPES = ("module", "function")
HEAD = (
    "import sys\nfrom sys import version_info\nfrom sys import version_info as _vi\n\n"
    "PY_NEW = sys.version_info >= (3, {m})\nz = 0\n"
)
CODE = "LIMIT = 99\n"


def build(test: str, m: int, where: str, scope: str, inserted: bool) -> tuple[str, int]:
    """The module, and the line the inserted code is on (0 when not inserted)."""
    code = CODE if inserted else ""
    block = f"if {test.format(m=m)}:\n" + indent("z = 1\n" + (code if where == "body" else ""), "    ")
    block += "else:\n" + indent("z = 2\n" + (code if where == "else" else ""), "    ")
    head = HEAD.format(m=m)
    if scope == "function":
        head += "\n\ndef f():\n"
        block = indent("global LIMIT\n" + block, "    ") + "    return z\n"
    source = head + block
    line = next((i + 1 for i, s in enumerate(source.splitlines()) if s.strip() == CODE.strip()), 0)
    return source, line


def runs(source: str, line: int, version: tuple[int, int]) -> bool:
    """Does `line` run when the module (and its f) runs on `version`? `sys` stands for the target's."""
    info = collections.namedtuple("version_info", "major minor micro releaselevel serial")(*version, 0, "final", 0)
    fake = types.SimpleNamespace(version_info=info, hexversion=(version[0] << 24) | (version[1] << 16) | 0xF0)
    real = builtins.__import__

    def fake_import(name: str, *args: Any, **kwargs: Any) -> Any:
        return fake if name == "sys" else real(name, *args, **kwargs)

    namespace: dict[str, Any] = {"__name__": "generated", "__builtins__": {**vars(builtins), "__import__": fake_import}}
    with lines_run("generated.py") as lines:
        exec(compile(source, "generated.py", "exec"), namespace)
        if "f" in namespace:
            namespace["f"]()
    return line in lines


def found(before: str, after: str, version: tuple[int, int]) -> tuple[list[str], list[str]]:
    """What the proof says: placement() told the version, and a version-blind Placement decided later
    (with_version, as apply's placement step does)."""
    told = placement.unreachable_changes(
        placement.placement(ast.parse(before), before, None, version),
        placement.placement(ast.parse(after), after, None, version),
    )
    late = placement.unreachable_changes(
        placement.with_version(placement.placement(ast.parse(before), before.encode()), version),
        placement.with_version(placement.placement(ast.parse(after), after.encode()), version),
    )
    return told, late


CASES = sample(itertools.product(SPELLINGS, MINORS, TARGETS, WHERE, SCOPES))


@pytest.mark.parametrize(
    ("test", "m", "version", "where", "scope"), CASES, ids=["-".join(map(str, c)).replace(" ", "") for c in CASES]
)
def test_code_in_a_branch_dead_on_the_target_is_refused(
    test: str, m: int, version: tuple[int, int], where: str, scope: str
) -> None:
    (before, _), (after, line) = build(test, m, where, scope, False), build(test, m, where, scope, True)
    assert line
    live = runs(after, line, version)
    told, late = found(before, after, version)
    assert told == late
    if not live and not told:  # only where the major.minor cannot tell (`hexversion >= 0x030A0000` on 3.10.x)
        tree = ast.parse(after)
        test_node = next(n.test for n in ast.walk(tree) if isinstance(n, ast.If))
        assert (
            version_guard.decide(test_node, version, version_guard.aliases(tree), version_guard.flags(tree)) == "open"
        )
        return
    assert bool(told) == (not live), (after, version, told)
    if told:
        assert f"its code at line {line} " in told[0], told
        assert f"on Python {version[0]}.{version[1]})" in told[0] and "never runs" in told[0], told
        assert test.format(m=m).split()[0] in told[0], told


def test_without_the_target_version_a_version_test_may_go_either_way() -> None:
    """verify without a target interpreter, and any reader that does not know the version: both
    branches may run, so neither is dead (the behaviour before the target's version was known)."""
    before, _ = build(SPELLINGS[0], 11, "body", "module", False)
    after, _ = build(SPELLINGS[0], 11, "body", "module", True)
    p, q = placement.placement(ast.parse(before), before), placement.placement(ast.parse(after), after)
    assert placement.unreachable_changes(p, q) == []
    assert placement.unreachable_changes(placement.with_version(p, None), placement.with_version(q, None)) == []
    assert placement.unreachable_changes(placement.with_version(p, (3, 12)), placement.with_version(q, (3, 12)))


def test_the_attack_cases_are_refused_on_312_and_applied_on_310() -> None:
    """att21 F1's two repros: an assignment, and a def replacing a module-level def, under a test false on 3.12."""
    module = "import sys\n\nLIMIT = 10\nif sys.version_info < (3, 11):\n    LIMIT = 20\n    COMPAT = True\n"
    patched = module.replace("COMPAT = True\n", "COMPAT = True\n    LIMIT = 99\n")
    assert found(module, patched, (3, 12))[0] and found(module, patched, (3, 10))[0] == []
    defs = "import sys\n\n\ndef helper():\n    return 1\n\n\n"
    defs += "if sys.version_info < (3, 8):\n    def helper():\n        return 3\n"
    changed = defs.replace("return 3", "return 30")
    said = found(defs, changed, (3, 12))[0]
    assert said and "`if sys.version_info < (3, 8):` block at line 8 (false on Python 3.12)" in said[0], said
