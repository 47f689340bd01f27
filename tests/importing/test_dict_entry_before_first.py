"""Issue 20: a dict display entry added before the literal's first key (`{"a": 1}` ->
`{"z": 0, "a": 1}`) had no set_item (it adds as the last item or `after:` a key), so the import
replaced the whole literal: vLLM's registry tables are what real series extend, and a whole-table
`replace` breaks on any upstream entry. Now set_item takes `before:` (the key the new entry
precedes) and the importer writes it; entries added after that one say `after:` it.

Generated: literal layouts (one line, one entry per line, a comment line above the first entry, a
comment on the first entry's line) x how many entries are added before the first (1, 2) x whether
a later entry's value changes too, in a module or a class body. As data (set_item with `before:`),
and each case's GNU diff imported, applied by the real engine, AST-equal to GNU patch,
`status --check` 0, reverted to the installed bytes; set_item on its own (plan.plan, the reverse
proof) undoes byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.prove import plan
from radpatch.rewrite import runner
from radpatch.rewrite.ops.set_item import SetItem
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import patch_of

LAYOUTS = {
    "line": ('{"a": 1, "b": 2}', '{{{new}"a": 1, "b": {b}}}', '"{k}": {v}, '),
    "lines": ('{\n    "a": 1,\n    "b": 2,\n}', '{{\n{new}    "a": 1,\n    "b": {b},\n}}', '    "{k}": {v},\n'),
    "comment above": (
        '{\n    # the first\n    "a": 1,\n    "b": 2,\n}',
        '{{\n    # the first\n{new}    "a": 1,\n    "b": {b},\n}}',
        '    "{k}": {v},\n',
    ),
    "comment beside": (
        '{\n    "a": 1,  # the first\n    "b": 2,\n}',
        '{{\n{new}    "a": 1,  # the first\n    "b": {b},\n}}',
        '    "{k}": {v},\n',
    ),
}
WHERE = ("module", "class")


def case(layout: str, added: int, change_b: bool, where: str) -> tuple[str, str]:
    before, shape, item = LAYOUTS[layout]
    new = "".join(item.format(k=k, v=n) for n, k in enumerate(("y", "z")[2 - added :]))
    after = shape.format(new=new, b="3" if change_b else "2")
    if where == "module":
        return f"import os\n\nD = {before}\n", f"import os\n\nD = {after}\n"
    ind = lambda text: text.replace("\n", "\n    ")  # noqa: E731
    return f"class C:\n    D = {ind(before)}\n", f"class C:\n    D = {ind(after)}\n"


CASES = sample([(lay, n, ch, w) for lay in LAYOUTS for n in (1, 2) for ch in (False, True) for w in WHERE])


@pytest.mark.parametrize(("layout", "added", "change_b", "where"), CASES)
def test_entries_added_before_the_first_are_set_item_before_it(
    layout: str, added: int, change_b: bool, where: str
) -> None:
    found = rewrites(*case(layout, added, change_b, where))
    assert not found.fallbacks and {s.op for s in found.steps} == {"set_item"}, found
    placed = [dict(s.keys) for s in found.steps if "from" not in dict(s.keys)]
    first = "y" if added == 2 else "z"
    assert placed[0]["key"] == f'"{first}"' and placed[0]["before"] == '"a"' and "after" not in placed[0]
    assert [p.get("after") for p in placed[1:]] == ['"y"'] * (added - 1)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_set_item_before_the_first_undoes_byte_for_byte(layout: str) -> None:
    source = case(layout, 1, False, "module")[0]
    patch = patch_of(SetItem("<module>", "D", '"z"', "0", before='"a"'))
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), source.encode()).after
    assert after.decode() == case(layout, 1, False, "module")[1]
    assert runner.backward(patch, patch.rewrites, after, "mod.py") == source.encode()


@pytest.mark.wheel
def test_each_imported_entry_applies_as_gnu_patch_gives(tmp_path: Path) -> None:
    assert_each_imported_as_gnu_patch(tmp_path, [case(*c) for c in CASES], CASES)
