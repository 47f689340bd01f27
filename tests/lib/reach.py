"""What the placement proof says of a patched module's new code, and which of its lines really run:
the two questions the reachability tests (tests/prove/test_reachability.py, test_dead_blocks.py)
ask of every generated case."""

from __future__ import annotations

import ast
import contextlib
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

from radpatch.prove import placement


def unreachable(before: str, after: str) -> list[str]:
    """The changes in `after` (against `before`) the proof finds no run reaches."""
    return placement.unreachable_changes(
        placement.placement(ast.parse(before), before), placement.placement(ast.parse(after), after)
    )


@contextlib.contextmanager
def lines_run(filename: str = "generated.py") -> Iterator[set[int]]:
    """The lines of code compiled as `filename` that run inside the `with` block (sys.settrace)."""
    lines: set[int] = set()

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename == filename:
            lines.add(frame.f_lineno)
        return trace

    sys.settrace(trace)
    try:
        yield lines
    finally:
        sys.settrace(None)
