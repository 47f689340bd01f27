"""Issue 22/23 (gz23c): the node inside a statement an operation changes is declared by its Touch
(what it is and how a message says it), so prove.overlaps.touching keeps no table of kinds: a set_item
says a dict entry of NAME, inside the assignment of NAME, and so meets a set_constant `from:` of
NAME; an insert_definitions at module level binds its payload's names, as an add_import of one does."""

from __future__ import annotations

from pathlib import Path

from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.prove.overlaps import pairs
from radpatch.prove.overlaps.touching import Meet, meet
from radpatch.registry.model import Patch
from radpatch.registry.touch import Touch
from radpatch.rewrite.matching import MatchFailure
from radpatch.rewrite.ops.common import code_errors
from radpatch.rewrite.source import Source
from tests.lib.overlaps import write

ITEM = """\
  - id: item
    set_item: {scope: <module>, name: MODELS, key: '"b"', value: "2"}
"""
CONSTANT = """\
  - id: const
    set_constant: {name: MODELS, from: '{"a": 1}', value: '{"a": 3}'}
"""
OTHER_CONSTANT = CONSTANT.replace("MODELS", "OTHER")
WHOLE = """\
  - id: whole
    replace: {scope: <module>, find: 'MODELS = {"a": 1}', with: 'MODELS = {"a": 1, "c": 3}'}
"""


def test_a_set_item_and_a_set_constant_of_one_name_overlap(tmp_path: Path) -> None:
    item, const = write(tmp_path, "item", ITEM), write(tmp_path, "const", CONSTANT)
    found = pairs.find([item, const], [Version("1.0")])
    assert [(o.first, o.second, o.kind) for o in found] == [("item", "const", Meet.PART)]
    assert 'the dict entry "b" of `MODELS` is inside the constant `MODELS`' in found[0].what
    other = write(tmp_path, "other", OTHER_CONSTANT)
    assert pairs.find([item, other], [Version("1.0")]) == []


def test_a_set_item_inside_a_replaced_assignment_says_dict_entry(tmp_path: Path) -> None:
    item, whole = write(tmp_path, "item", ITEM), write(tmp_path, "whole", WHOLE)
    (o,) = pairs.find([item, whole], [Version("1.0")])
    assert 'the dict entry "b" of `MODELS` is inside the other\'s `find`' in o.what
    assert "constant" not in o.what


def test_a_new_kind_is_what_the_touch_says() -> None:
    """A Touch of a kind no module of radpatch knows: the message is the words it declares."""
    part = Touch("node", "f", "attr x", part=("constant", "CFG"), kind="attribute", says="attribute `x` of `CFG`")
    whole = Touch("node", "f", "code", code="", find="CFG = make()\nCFG.x = 1")
    found = meet(part, whole)
    assert found is not None and found.kind is Meet.PART
    assert found.what == "change the same code (the attribute `x` of `CFG` is inside the other's `find`) in f"


def test_a_recorded_touch_without_words_keeps_its_old_message() -> None:
    """A record written before touches said their words: the message is the one it always was."""
    old = Touch("node", "<module>", "constant LIMIT", part=("constant", "LIMIT"))
    whole = Touch("node", "<module>", "code", find="LIMIT = 4")
    found = meet(old, whole)
    assert found is not None
    assert found.what == "change the same code (the constant `LIMIT` is inside the other's `find`) in <module>"


SOURCE = "import re\n\n\ndef f():\n    return 1\n\n\nclass K:\n    def m(self):\n        return 1\n"
DEFS = "  - id: defs\n    insert_definitions: {payload: enc.py, after: f}\n"
INTO = "  - id: into\n    insert_definitions: {payload: enc.py, into: K}\n"
IMPORT = '  - id: imp\n    add_import: {import: "import json as enc"}\n'
OTHER_IMPORT = '  - id: imp\n    add_import: {import: "import json"}\n'


def _applies(first: Patch, then: Patch, text: str) -> bool:
    try:
        with code_errors():
            then.rewrites[0].op.forward(first.rewrites[0].op.forward(Source.parse(text)))
    except (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError):
        return False
    return True


def test_module_level_definitions_meet_an_import_of_their_name(tmp_path: Path) -> None:
    (tmp_path / "enc.py").write_text("def enc():\n    return 2\n")
    defs, imp = write(tmp_path, "defs", DEFS), write(tmp_path, "imp", IMPORT)
    found = pairs.find([defs, imp], [Version("1.0")])
    assert [(o.first, o.second, o.kind) for o in found] == [("defs", "imp", Meet.BINDS)]
    assert "bind the same module-level name `enc`" in found[0].what
    # the engine agrees: neither order applies both (each refuses the name the other bound)
    assert not _applies(defs, imp, SOURCE) and not _applies(imp, defs, SOURCE)
    # another name, or a method of a class (not a module-level name): no overlap, and both orders apply
    other = write(tmp_path, "other", OTHER_IMPORT)
    into = write(tmp_path, "into", INTO)
    assert pairs.find([defs, other], [Version("1.0")]) == []
    assert pairs.find([into, imp], [Version("1.0")]) == []
    assert _applies(defs, other, SOURCE) and _applies(other, defs, SOURCE)
    assert _applies(into, imp, SOURCE) and _applies(imp, into, SOURCE)
