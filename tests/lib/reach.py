"""What the placement proof says of a patched module's new code: the one question the reachability
tests (tests/prove/test_reachability.py, test_dead_blocks.py) ask of every generated case."""

from __future__ import annotations

import ast

from radpatch.prove import placement


def unreachable(before: str, after: str) -> list[str]:
    """The changes in `after` (against `before`) the proof finds no run reaches."""
    return placement.unreachable_changes(
        placement.placement(ast.parse(before), before), placement.placement(ast.parse(after), after)
    )
