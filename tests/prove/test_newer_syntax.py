"""A module written in the target's newer grammar (PEP 695 `type X = ...`, generic defs and
classes, 3.13's type-parameter defaults) is judged by the target interpreter when radpatch's
own Python cannot parse it: its names and where its code lands, not refused because radpatch
cannot read it.

Generated: newer-grammar originals times patches that are right (a function using the alias or
type parameter) and wrong in each way the names and placement steps refuse (an undefined name, a
def after a return, a changed function a later def replaces, a payload def that shadows one).
Each runs on every target under /root/.pyenv newer than radpatch's own Python. Which of them
raise at run time is checked by running them in that target.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check, placement_check, refusal
from radpatch.rewrite.ops.replace import Replace
from tests.lib.rewrites import patch_of
from tests.lib.sources import parses_here

PYENV = Path("/root/.pyenv/versions")

ORIGINALS = {  # name: (first version that parses it, source)
    "type-alias": ((3, 12), "type Pair = tuple[int, int]\n\n\ndef first(p):\n    return p[0]\n"),
    "generic-def": ((3, 12), "def first[T](items: list[T]) -> T:\n    return items[0]\n"),
    "generic-class": (
        (3, 12),
        "class Box[T]:\n    def get(self, item: T) -> T:\n        return item\n\n\ndef first(p):\n    return p[0]\n",
    ),
    "param-default": ((3, 13), "def first[T = int](items: list[T]) -> T:\n    return items[0]\n"),
}

PATCHES = {  # name: (what is appended to the module, the step that refuses it or None)
    "uses-its-names": ("\n\ndef second[U](items: list[U]) -> U:\n    return first(items[1:])\n", None),
    "undefined": ("\n\ndef second[U](items: list[U]) -> U:\n    return V(items)\n", "names"),
    "unreachable": ("\n\ndef second[U](items: list[U]) -> U:\n    return items[1]\n    type Late = int\n", "placement"),
    "replaced": ("\n\ndef second[U](x: U) -> U:\n    return x\n\n\ndef second(x):\n    return 0\n", "placement"),
}


def targets() -> list[Path]:
    return [p for p in sorted(PYENV.glob("3.1[2-9]*/bin/python")) if p.parent.parent.name[:4] != "3.11"]


def version_of(exe: Path) -> tuple[int, int]:
    major, minor = exe.parent.parent.name.split(".")[:2]
    return int(major), int(minor)


CASES = [
    (exe, original, change)
    for exe, original, change in itertools.product(targets(), ORIGINALS, PATCHES)
    if version_of(exe) >= ORIGINALS[original][0]
]


@pytest.mark.interpreters
@pytest.mark.skipif(not CASES, reason="no Python 3.12 or newer under /root/.pyenv")
@pytest.mark.parametrize(("exe", "original", "change"), CASES, ids=[f"{version_of(e)[1]}-{o}-{c}" for e, o, c in CASES])
def test_a_module_in_the_targets_newer_grammar_is_judged_by_the_target(exe: Path, original: str, change: str) -> None:
    source = ORIGINALS[original][1]
    if parses_here(source):
        pytest.skip("radpatch's own Python reads this grammar: nothing is delegated")
    target = python_env(str(exe))
    before, after = source.encode(), (source + PATCHES[change][0]).encode()
    step = PATCHES[change][1]
    names_refused = names_check.names_refusal(before, after, "m.py", target)
    names_why = None if names_refused is None else names_refused.why
    patch = patch_of(Replace("first", "items[0]", "items[0]"), location="t.yaml:{n}")
    rws = patch.rewrites
    placed = placement_check.placement_refusal(patch, rws, before, after, "m.py", target)
    placement_why = None if placed is None else placed.why
    assert (names_why is not None) == (step == "names"), names_why
    assert (placement_why is not None) == (step == "placement"), placement_why
    if step == "names":
        assert "`V` (line" in names_why and "is defined nowhere" in names_why  # type: ignore[operator]
        run = subprocess.run(
            [str(exe), "-I", "-S", "-c", after.decode() + "\nsecond([1, 2])\n"], capture_output=True, text=True
        )
        assert "NameError" in run.stderr  # the target itself agrees
    if step == "placement":
        assert placement_why is not None and placement_why.startswith("rewrite 'r0' (t.yaml:1) on m.py: ")
        expected = "is unreachable" if change == "unreachable" else "it changes `second`"
        assert expected in placement_why, placement_why
        hint = refusal.UNREACHABLE_HINT if change == "unreachable" else refusal.PLACEMENT_HINT
        assert placed is not None and placed.hint == hint and placed.rewrite == "r0"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="radpatch's own Python reads PEP 695")
def test_a_change_a_later_def_replaces_is_refused_in_the_newer_grammar_too() -> None:
    exe = next(iter(targets()), None)
    if exe is None:
        pytest.skip("no Python 3.12 or newer under /root/.pyenv")
    source = (
        "type Pair = tuple[int, int]\n\n\ndef first[T](p: T) -> T:\n    return p\n\n\ndef first(p):\n    return 0\n"
    )
    patch = patch_of(Replace("first", "items[0]", "items[0]"), location="t.yaml:{n}")
    rws = patch.rewrites
    refused = placement_check.placement_refusal(
        patch,
        rws,
        source.encode(),
        source.replace("return p\n", "return p  # changed\n    p = 1\n").encode(),
        "m.py",
        python_env(str(exe)),
    )
    assert refused is not None, source
    assert "it changes `first` (line 4, at module level), which line 9 replaces" in refused.why, refused
