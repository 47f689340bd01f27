"""replace: a side that is part of an expression (`*x`: Python's parser takes it, its compiler not),
neither an expression nor statements, is refused when the entry is loaded, naming that side and why
(att21 F7a: it read "`find` not found", though the find is there and it is the `with` that cannot
stand at the match)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.registry import load_problems, toy_entry_with, write_toy

FRAGMENTS = ("*x", "*args[0]", "*(a or b)", "*self.items", "*f(x)")


@pytest.mark.parametrize(("fragment", "side"), sample(itertools.product(FRAGMENTS, ("with", "find"))))
def test_a_fragment_of_an_expression_is_named_as_such(tmp_path: Path, fragment: str, side: str) -> None:
    sides = {"find": "plan(spec)", "with": "plan(spec, cfg)", side: fragment}
    rewrites = f"""\
    - replace:
        scope: groups
        find: {sides["find"]!r}
        with: {sides["with"]!r}
    """
    problems = load_problems(write_toy(tmp_path, toy_entry_with(rewrites)))
    text = "\n".join(problems)
    assert f"`{side}` is neither an expression nor statements" in text, text
    assert "not found" not in text
