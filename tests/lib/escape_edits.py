"""The edits of the escape family (tests/rewrite/ops/test_later_changes_escapes.py, esc53): one per
operation that proves later code leaves its value alone (set_item, add_element and remove_element on
a list and a set, set_keyword, set_default, set_constant), each with the module text it edits, the
name the oracle reads, the statement on the value that undoes the edit and its twin that changes
another key, element or attribute, and the method form of both (`CFG.__setitem__("timeout", 1)`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.set_constant import SetConstant
from radpatch.rewrite.ops.set_default import SetDefault
from radpatch.rewrite.ops.set_element import SetElement
from radpatch.rewrite.ops.set_item import SetItem
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of


@dataclass(frozen=True)
class Edit:
    """`top`: the module's text up to and with the edited binding; `name`: what the oracle reads;
    `undo`/`twin`: a statement on `{v}` (the value, as the route names it) that undoes the edit, or
    changes something else; `method`: (the method, its arguments undoing, its arguments for the twin),
    or None where the value has no such method; `removed`/`added`: as tests/lib/later_values."""

    top: str
    op: Operation
    name: str
    undo: str
    twin: str
    method: tuple[str, str, str] | None
    removed: str | None = None
    added: str | None = None


_BOX = "class Box:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n\n\n"
EDITS = {
    "set_item": Edit(
        'CFG = {"timeout": 1, "retries": 3}\n',
        SetItem(scope="<module>", name="CFG", key='"timeout"', from_="1", value="10"),  # type: ignore[arg-type]
        "CFG",
        '{v}["timeout"] = 1',
        '{v}["retries"] = 1',
        ("__setitem__", '"timeout", 1', '"retries", 1'),
    ),
    "add_element list": Edit(
        'FLAGS = ["a", "b"]\n',
        SetElement(scope="<module>", name="FLAGS", element='"c"'),  # type: ignore[arg-type]
        "FLAGS",
        '{v}.remove("c")',
        '{v}.remove("a")',
        ("remove", '"c"', '"a"'),
        added='"c"',
    ),
    "add_element set": Edit(
        'S = {"a", "b"}\n',
        SetElement(scope="<module>", name="S", element='"c"'),  # type: ignore[arg-type]
        "S",
        '{v}.discard("c")',
        '{v}.discard("a")',
        ("discard", '"c"', '"a"'),
    ),
    "remove_element set": Edit(
        'S = {"a", "b"}\n',
        SetElement(scope="<module>", name="S", element='"b"', remove=True),  # type: ignore[arg-type]
        "S",
        '{v}.add("b")',
        '{v}.add("z")',
        ("add", '"b"', '"z"'),
        removed='"b"',
    ),
    "set_keyword": Edit(
        _BOX + "B = Box(timeout=1, other=0)\n",
        SetKeyword(scope="<module>", call="Box", keyword="timeout", from_="1", to="10"),
        "B",
        "{v}.timeout = 1",
        "{v}.other = 1",
        ("__setattr__", '"timeout", 1', '"other", 1'),
    ),
    "set_default": Edit(
        "def f(x=1):\n    return x\n",
        SetDefault("f", "x", "1", "5"),
        "f",
        "{v}.__defaults__ = (1,)",
        '{v}.__doc__ = "x"',
        ("__setattr__", '"__defaults__", (1,)', '"__doc__", "x"'),
    ),
    "set_constant": Edit(
        "import sys\n\nLIMIT = 1\n",
        SetConstant("LIMIT", "5", "1"),
        "LIMIT",
        'setattr(sys.modules[__name__], "LIMIT", 1)',
        'setattr(sys.modules[__name__], "OTHER", 1)',
        None,
    ),
}


def verdict(tmp_path: Path, edit: Edit, later: str) -> tuple[str | None, bool | None, str]:
    """(the refusal, or None where the plan applied; whether the edit takes effect when the module is
    imported in a fresh interpreter, None where the original does not import; the module): where
    refused, the edit alone is made on `top` and `later` kept, for the oracle to say what applying
    it would have given."""
    before = edit.top + "\n\n" + later + "\n"
    patch = patch_of(edit.op)
    refused: str | None = None
    try:
        after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after.decode()
    except RefusedError as exc:
        refused = exc.message
        alone = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), edit.top.encode()).after.decode()
        after = before.replace(edit.top, alone, 1)
    took = took_effect(tmp_path, before, after, edit.name, edit.removed, edit.added)
    return refused, took, before


def assert_refused_where_undone(tmp_path: Path, edit: Edit, later: str, undoing: bool) -> None:
    """The verdict on `later` after `edit`: the original imports; where the edit does not take effect,
    radpatch refused; where it does, `later` was not meant to undo it (radpatch may refuse either way)."""
    refused, took, before = verdict(tmp_path, edit, later)
    assert took is not None, before
    if not took:
        assert refused is not None, f"applied, but the module ends without the edit:\n{before}"
    else:
        assert not undoing, f"the oracle: the undoing statement left the edit in effect\n{before}"
