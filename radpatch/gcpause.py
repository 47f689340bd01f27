"""The cyclic garbage collector, paused while radpatch holds a whole module's syntax trees.

`ast.parse` of a 100k-line module allocates millions of tracked objects; every generation-2
collection the allocations trigger walks all of them again (and every tree still alive), which
made parsing the same text cost 2.5x more at 100k lines than at 10k, line for line. The trees
radpatch builds hold no reference cycles (reference counting frees them), so the analyses run
with the collector off and switch it back on afterwards, as it was. prove/names does the same for
its own walk (it runs without radpatch in the target interpreter, so it keeps its own copy).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector's state is restored on exit."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def pausing(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` runs with the collector paused (see paused())."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused():
            return fn(*args, **kwargs)

    return wrapper
