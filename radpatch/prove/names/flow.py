"""Binding flow, pass 2's state: what one scope has bound so far on some path and on every path,
followed through branches (if/else, try/except, match), loops and `return`/`raise` at a cost of
what each branch changed, never the size of the scope.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .scope_bindings import NameScope


class Flow:
    """What one scope has bound so far. `maybe`: bound on some path (grows, except for an
    unconditional del); `definite`: bound on every path. Branches log their changes to
    `definite` so a join costs what the branches changed, never the size of the scope."""

    def __init__(self) -> None:
        self.maybe: dict[str, int] = {}
        self.definite: set[str] = set()
        self.log: list[tuple[bool, str]] = []
        self.depth = 0
        self.deleted: dict[str, int] = {}  # names an unconditional del removed (and nothing bound again)
        self.dels: set[str] = set()  # names some del removes
        self.loops: list[list[Callable[[], None]]] = []

    def bind(self, name: str, line: int) -> None:
        self.maybe.setdefault(name, line)
        self.deleted.pop(name, None)
        self._set(name, True)

    def unbind(self, name: str, line: int) -> None:
        self.dels.add(name)
        self._set(name, False)
        if self.depth == 0:
            self.maybe.pop(name, None)
            self.deleted[name] = line

    def _set(self, name: str, present: bool) -> None:
        if (name in self.definite) == present:
            return
        if present:
            self.definite.add(name)
        else:
            self.definite.discard(name)
        if self.depth:
            self.log.append((present, name))

    def open(self) -> int:
        self.depth += 1
        return len(self.log)

    def close(self, mark: int) -> dict[str, bool]:
        """The net change to `definite` since `mark`, undone."""
        segment = self.log[mark:]
        del self.log[mark:]
        for present, name in reversed(segment):
            if present:
                self.definite.discard(name)
            else:
                self.definite.add(name)
        self.depth -= 1
        return {name: present for present, name in segment}

    def join(self, nets: list[dict[str, bool]]) -> None:
        """Continue with the paths that fall through (each given as its net change)."""
        touched: set[str] = set().union(*nets) if nets else set()
        for name in touched:
            self._set(name, all(net.get(name, name in self.definite) for net in nets))

    def later(self, check: Callable[[], None]) -> bool:
        """Inside a loop, a name bound further down the body is bound on the next iteration:
        decide when the loop is done. False when not in a loop."""
        if not self.loops:
            return False
        self.loops[-1].append(check)
        return True


@dataclass(frozen=True)
class Ctx:
    scope: NameScope
    flow: Flow
    annotations_lazy: bool
