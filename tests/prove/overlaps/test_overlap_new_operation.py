"""Issue 22 (F2): an operation added as one module of radpatch/rewrite/ops/ is checked for overlaps
without editing overlaps.py. It says what it changes (`Operation.touches`); one that does not say
may change anything of its module, so it overlaps every other rewrite there (never silently none)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.version import Version

import radpatch.rewrite.ops as ops_package
from radpatch.errors import RefusedError
from radpatch.prove.overlaps import apply_check, pairs
from radpatch.prove.overlaps.touching import Meet
from radpatch.registry.model import Operation
from radpatch.rewrite.ops import OPERATIONS
from tests.lib.overlaps import write

NAME = "set_docstring"  # the new operation's module and YAML key
MODULE = '''\
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from radpatch.registry.model import Field, Operation
from radpatch.registry.touch import Touch


@dataclass(frozen=True)
class SetDocstring(Operation):
    """Set a function's docstring."""

    function: str
    text: str

    KEY: ClassVar[str] = "set_docstring"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("function", "qualname", "the function"),
        Field("text", "identifier", "its new docstring (one word, for this test)"),
    )
    EXAMPLE: ClassVar[str] = "function: plan\\ntext: Plans"

    def describe(self) -> str:
        return f"set the docstring of {self.function}()"

    def scope_name(self) -> str:
        return self.function
{touches}'''
DECLARED = """
    def touches(self) -> tuple[Touch, ...]:
        return (Touch("node", self.function, "docstring", beside_body=True),)
"""
DOC = """\
  - id: doc-{n}
    set_docstring: {{function: {function}, text: Doc{n}}}
"""
CAP = """\
  - id: cap
    replace: {scope: plan, find: "size = 4", with: "size = 5"}
"""
PARAMETER = """\
  - id: param
    add_parameter: {function: groups, name: p, default: "None"}
"""
IMPORT = """\
  - id: imp
    add_import: {import: import os}
"""


@pytest.fixture
def new_operation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Adds the module to a folder of the ops package; yields a place to write registry entries.
    The test sets the module's text first (with `add`), as an author would write it."""
    folder = tmp_path / "ops"
    folder.mkdir()
    monkeypatch.setattr(ops_package, "__path__", [*ops_package.__path__, str(folder)])
    yield folder
    sys.modules.pop(f"radpatch.rewrite.ops.{NAME}", None)


def add(folder: Path, monkeypatch: pytest.MonkeyPatch, touches: str) -> None:
    (folder / f"{NAME}.py").write_text(MODULE.replace("{touches}", touches))
    found = ops_package._discover()  # how OPERATIONS is made: every module of the package
    assert NAME in found and found[NAME].__module__ == f"radpatch.rewrite.ops.{NAME}"
    monkeypatch.setitem(OPERATIONS, NAME, found[NAME])  # the loader reads the YAML key through it


def test_an_operation_that_does_not_say_what_it_changes_overlaps_everything_in_its_module(
    new_operation: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(new_operation, monkeypatch, touches="")
    reg = tmp_path / "reg"
    doc = write(reg, "doc", DOC.format(n=1, function="plan"))
    cap = write(reg, "cap", CAP)  # a replace in plan
    sig = write(reg, "sig", PARAMETER)  # a parameter of another function
    imp = write(reg, "imp", IMPORT)  # add_import stacks with anything
    found = pairs.find([doc, cap, sig, imp], [Version("1.0")])
    assert {(o.first, o.second) for o in found} == {("doc", "cap"), ("doc", "sig")}
    assert all(o.kind is Meet.UNDECLARED and "`set_docstring` operation" in o.what for o in found)
    with pytest.raises(RefusedError) as err:
        apply_check.refuse_unordered([doc, sig], [Version("1.0")])
    assert "doc and sig overlap" in err.value.message
    sig_after = write(reg, "sig", PARAMETER, requires=("doc",))
    apply_check.refuse_unordered([doc, sig_after], [Version("1.0")])  # ordered by `requires:`: allowed


def test_an_operation_that_says_what_it_changes_is_compared_by_it(
    new_operation: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(new_operation, monkeypatch, touches=DECLARED)
    reg = tmp_path / "reg"
    doc = write(reg, "doc", DOC.format(n=1, function="plan"))
    again = write(reg, "again", DOC.format(n=2, function="plan"))
    other = write(reg, "other", DOC.format(n=3, function="groups"))
    sig = write(reg, "sig", PARAMETER)
    found = pairs.find([doc, again, other, sig], [Version("1.0")])
    assert [(o.first, o.second, o.kind, o.what) for o in found] == [
        ("doc", "again", Meet.NODE, "change the same docstring in plan")
    ]


def test_every_shipped_operation_says_what_it_changes() -> None:
    """The default (overlaps everything in its module) is for an operation its author has not
    thought about yet; radpatch's own operations each say."""
    vague = [key for key, spec in OPERATIONS.items() if spec.touches is Operation.touches]
    assert vague == []
