"""insert_definitions next to a class member defined more than once says what is there (att51 #7):
`before: C.x.setter` said "'C' defines 2 class 'x'", and `before: C.x` "the later one is the one
that runs", wrong for a property's getter and setter (each is kept, as one property).

Generated: what defines `x` in the class (a property with a setter, with a setter and a deleter,
a cached property's name redefined, two plain defs, a def then a class) x the anchor (`C.x`,
`C.x.setter`) x what comes before the class (nothing, a few lines). The oracle is `ast`: the
refusal names each definition's line and decorator as the module has them, calls a property a
property only where the definitions are one property's accessors, and never calls a function a class."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from radpatch.errors import RefusedError
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite import runner
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from tests.lib.generated import sample

MEMBERS = {
    "getter+setter": "@property\ndef x(self):\n    return 1\n\n@x.setter\ndef x(self, v):\n    pass\n",
    "getter+setter+deleter": (
        "@property\ndef x(self):\n    return 1\n\n@x.setter\ndef x(self, v):\n    pass\n\n"
        "@x.deleter\ndef x(self):\n    pass\n"
    ),
    "two defs": "def x(self):\n    return 1\n\ndef x(self):\n    return 2\n",
    "def then class": "def x(self):\n    return 1\n\nclass x:\n    pass\n",
}
PROPERTY = {"getter+setter", "getter+setter+deleter"}
ANCHORS = ("C.x", "C.x.setter")
ABOVE = {"nothing": "", "lines": "import os\n\nA = 1\n\n\n"}
PAYLOAD = b"def _p_m(self):\n    return 3\n"


def module(member: str, above: str) -> str:
    body = "".join("    " + line if line else "" for line in MEMBERS[member].splitlines(keepends=True))
    return ABOVE[above] + "class C:\n" + body


def definitions(source: str) -> list[tuple[int, list[str]]]:
    """Each definition of `x`: its decorator's line and the decorators, or its own line."""
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef))
    out = []
    for n in cls.body:
        decorators = getattr(n, "decorator_list", [])
        out.append((decorators[0].lineno if decorators else n.lineno, [ast.unparse(d) for d in decorators]))
    return out


CASES = sample(list(itertools.product(MEMBERS, ANCHORS, ABOVE)))


@pytest.mark.parametrize(("member", "anchor", "above"), CASES, ids=["-".join(c) for c in CASES])
def test_the_refusal_says_what_defines_the_name(member: str, anchor: str, above: str) -> None:
    source = module(member, above)
    op = InsertDefinitions(Path("payload.py"), PAYLOAD, ("_p_m",), anchor, "before")
    rewrites = (Rewrite("r0", "mod", None, op, "reg.yaml:1"),)
    patch = Patch("t", "t", "t", "toypkg", SpecifierSet(""), None, (), (), rewrites, Path("t.yaml"), "0")
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, source.encode(), "mod.py")
    said = info.value.message
    for line, decorators in definitions(source):
        assert f"line {line}: " in said
        if decorators:
            assert f"line {line}: @{decorators[0]}" in said
    assert "class 'x'" not in said and "defines 2 class" not in said
    assert ("property" in said) == (member in PROPERTY)
    assert "the one that runs" not in said
