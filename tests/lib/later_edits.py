"""The literals and edits of the later-change families (tests/rewrite/ops/test_later_changes.py and
test_later_changes_followed.py): a dict, a list and a set bound at the top of a module or class body,
and each edit of them as the operation that makes it."""

from __future__ import annotations

from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.set_element import SetElement
from radpatch.rewrite.ops.set_item import SetItem
from tests.lib.blocks import indent
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

LITERALS = {"dict": 'CFG = {\n    "timeout": 1,\n    "retries": 3,\n}\n', "list": 'FLAGS = ["a", "b"]\n'}
LITERALS["set"] = 'S = {"a", "b"}\n'
NAMES = {"dict": "CFG", "list": "FLAGS", "set": "S"}


def item(scope: str, **kw: str) -> Operation:
    return SetItem(scope=scope, name="CFG", **kw)  # type: ignore[arg-type]


def element(scope: str, remove: bool = False, **kw: str) -> Operation:
    return SetElement(scope=scope, name=NAMES[kw.pop("kind")], remove=remove, **kw)  # type: ignore[arg-type]


EDITS = {
    "dict change": ("dict", lambda s: item(s, key='"timeout"', from_="1", value="10")),
    "dict add": ("dict", lambda s: item(s, key='"new"', value="5")),
    "dict remove": ("dict", lambda s: item(s, key='"retries"', from_="3")),
    "list add": ("list", lambda s: element(s, kind="list", element='"c"')),
    "list add after": ("list", lambda s: element(s, kind="list", element='"c"', after='"a"')),
    "list remove": ("list", lambda s: element(s, kind="list", element='"b"', remove=True)),
    "set add": ("set", lambda s: element(s, kind="set", element='"c"')),
    "set remove": ("set", lambda s: element(s, kind="set", element='"b"', remove=True)),
}
REMOVED = {"dict remove": '"retries"', "list remove": '"b"', "set remove": '"b"'}
ADDED = {"list add": '"c"', "list add after": '"c"'}  # a list element added must stay there (att56 F6)


def module(kind: str, later: list[str], scope: str) -> str:
    text = LITERALS[kind] + "".join(s + "\n" for s in later)
    return text if scope == "<module>" else "class K:\n" + indent(text, "    ")


def planned_verdict(tmp_path: Path, edit: str, later: str, scope: str) -> tuple[str | None, bool | None, str]:
    """(the refusal, or None where it applied; whether the edit takes effect when the module is
    imported, None where the original does not import; the module before) for `edit` on a module whose
    `later` statement follows the literal: where refused, the edit alone is put into the text to ask
    the oracle (tests/lib/later_values) what applying it would have given."""
    kind, make = EDITS[edit]
    before = module(kind, [later], scope)
    patch = patch_of(make(scope))
    refused: str | None = None
    try:
        after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after.decode()
    except RefusedError as exc:
        refused = exc.message
        bare = patch_of(make(scope))
        edited = plan.plan(bare, bare.rewrites, "mod", Path("mod.py"), module(kind, [], scope).encode())
        after = before.replace(module(kind, [], scope), edited.after.decode(), 1)
    return refused, took_effect(tmp_path, before, after, NAMES[kind], REMOVED.get(edit), ADDED.get(edit)), before
