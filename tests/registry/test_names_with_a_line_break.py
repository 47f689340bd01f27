"""A name the loader checks against a pattern (a module, a scope or function, a distribution, a
knob) is refused when it ends in a line break: the patterns end in `$`, which matches before a
final newline, so a YAML block scalar with clip chomping (`module: >` then `toypkg.core` on the next
line: the value is 'toypkg.core\\n') loaded, and every command then failed on a mangled path ("the
wheel has no toypkg/core\\n.py"), `port` saying a release fails that does not. Found by att23
porting an entry whose module names were block scalars.

Generated: each such key, written as a block scalar with clip (`>`, `|`: a trailing newline, refused,
naming file:line and the key path) or strip chomping (`>-`, `|-`: no newline, loads)."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.registry.loader import load_patch
from tests.lib.generated import sample
from tests.lib.registry import TOY_ENTRY
from tests.lib.registry import load_problems as problems
from tests.lib.registry import write_toy as write

KEYS = {
    # key -> (its line in the toy entry, the same key with the value as a block scalar, the key path)
    "module": ("      module: toypkg.core\n", "      module: {style}\n        toypkg.core\n", "modules.core[0].module"),
    "function": (
        "      function: plan\n",
        "      function: {style}\n        plan\n",
        "rewrites[1].add_parameter.function",
    ),
    "distribution": ("distribution: toypkg\n", "distribution: {style}\n  toypkg\n", "distribution"),
}


@pytest.mark.parametrize(("key", "style"), sample([(k, s) for k in KEYS for s in (">", "|", ">-", "|-")]))
def test_a_name_ending_in_a_line_break_is_refused(tmp_path: Path, key: str, style: str) -> None:
    line, block, path = KEYS[key]
    assert line in TOY_ENTRY
    entry = write(tmp_path, TOY_ENTRY.replace(line, block.format(style=style), 1))
    if style.endswith("-"):
        load_patch(entry)  # strip chomping: the same name, it loads
        return
    found = problems(entry)
    assert len(found) == 1 and f"at {path}:" in found[0] and "toy.yaml:" in found[0], found
