"""Binding flow, pass 2's state: what one scope has bound so far on some path and on every path,
followed through branches (if/else, try/except, match), loops and `return`/`raise` at a cost of
what each branch changed, never the size of the scope.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .claims import Claims
from .first_pass import LoopEnd
from .path_facts import Facts, capped, stable
from .path_stores import without
from .scope_bindings import NameScope

if TYPE_CHECKING:
    from .kept_callbacks import Kept


ALL_ENDS = frozenset(("return", "raise", "loop"))
GOES_ON = {  # per kind of leaky part, the ends that go on through it
    "try": {"raise"},  # a try's body: into a handler
    "with": {"raise"},  # a `with` body whose manager may swallow it
    "loop": {"loop"},  # a loop's pass: `break`, `continue`
    "finally": set(ALL_ENDS),  # a try body or handler with a `finally`: it runs
}


class Flow(Claims):
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
        # names a join of exclusive branches (if/else, match cases, try/except) left bound on some of
        # them only, each with the branches open at that join: a read there, or further out, is on a
        # path that surely passed the join, so one of its paths leaves the name unbound
        self.partial: dict[str, tuple[int, ...]] = {}
        self.aside: dict[str, list[tuple[tuple[int, ...], Facts]]] = {}  # claims a sibling's claim replaced (claims)
        self.open_parts: list[int] = []
        self.unjoined: set[int] = set()  # parts closed whose join is still to come (a sibling's paths)
        self.per_run: set[str] = set()  # names a branch fixed for a run binds (join's per_run)
        self._parts = 0
        # names bound anywhere in the open branches, in order (a loop's body, a nested if): `bound`
        # is those of the branch last closed, bound there on some path at least
        self._bound_log: list[str] = []
        self._bound_at: list[tuple[int, ...]] = []  # per entry of _bound_log, the parts open where it was bound
        self._bound_marks: list[int] = []
        self.bound: set[str] = set()
        self.tail_unknown = False  # the block just walked ends in a call that may not return (walk)
        self.loop_exits: list[LoopExits] = []  # the open loops' break and continue paths (loops)
        self.closing: LoopEnd | None = None  # the loop whose deferred checks (later) run now (loops)
        # per name an open loop deletes, per such loop: the shadow bound exactly where the name was bound
        # in the loop's pass so far, and the lines that read it where the shadow is not (loops.loop)
        self.fresh: dict[str, list[tuple[str, list[int]]]] = {}
        self.facts: Facts = {}  # what this path's tests and constant assignments told (path_facts)
        # per claimed name, facts that hold on every path the claim's join left it unbound on
        self.conds: dict[str, Facts] = {}
        # per claimed name without such facts, an if's test facts that hold exactly where it was bound
        # (`if a and b: v = 1`: a and b; path_facts.exact): a path that tells them all has it bound
        self.sure: dict[str, Facts] = {}
        self.immutable: frozenset[str] = frozenset()  # locals no call can change (fixed_values)
        self.kept: list[Kept] = []  # the functions this scope kept to run later (kept_callbacks)
        self.leaky: dict[int, str] = {}  # parts whose paths go on into a later sibling, by kind (GOES_ON)
        self.ends: set[str] = set()  # how paths of the open part ended so far: "return", "raise", "loop"
        self.raise_mark = 0  # len(kept) when a statement that may raise last ran (walk.stmt)

    def bind(self, name: str, line: int) -> None:
        self.forget(name)
        self.maybe.setdefault(name, line)
        if self.depth:
            self._bound_log.append(name)
            self._bound_at.append(tuple(self.open_parts))
        at, here = self.partial.get(name), tuple(self.open_parts)
        # bound on the claim's paths: where it was made or further out (a branch opened since binds it
        # on its own paths only; its join claims again, or, when it does not fall through, leaves this)
        if at is not None and at[: len(here)] == here:
            del self.partial[name]
            self.conds.pop(name, None)
            self.sure.pop(name, None)
        self.deleted.pop(name, None)
        self._set(name, True)
        self.shadow(name, True)

    def unbind(self, name: str, line: int) -> None:
        self.forget(name)
        self.conds.pop(name, None)  # unbound on paths the claim's facts do not tell
        self.dels.add(name)
        self.gone(name)
        self._set(name, False)
        self.shadow(name, False)
        if self.depth == 0:  # unbound on every path now: no longer bound on some (nor claimed so)
            self.maybe.pop(name, None)
            self.partial.pop(name, None)
            self.deleted[name] = line

    def gone(self, name: str) -> None:
        """`name` deleted here: no longer bound where a function kept on a path through here runs (one kept
        in a sibling branch, whose join is still to come, is another path's)."""
        for k in self.kept:
            if not any(p in self.unjoined and p not in self.leaky for p in k.parts):
                k.made.discard(name)

    def restore(
        self, held: tuple[dict[str, Facts], dict[str, Facts]], kept: int | None = None, ends: frozenset[str] = ALL_ENDS
    ) -> None:
        """As Claims.restore; `kept`: the part ends every path through it (`ends`: a `return`, a `raise`,
        a loop's `break`/`continue`), so the functions kept in it since `kept` are on none of the paths
        after its join, unless an end goes on through a part around it (GOES_ON: a `raise` into a try's
        handler, or out of a `with` that may swallow it, a `break` into the loop's next pass or after it,
        anything through a `finally`); something that may raise after one was kept is a `raise` (names51)."""
        super().restore(held)
        if kept is None:
            return
        ends = ends | ({"raise"} if self.raise_mark > kept else set())
        if not any(ends & GOES_ON[self.leaky[p]] for p in self.open_parts if p in self.leaky):
            del self.kept[kept:]
            self.raise_mark = min(self.raise_mark, kept)

    def shadow(self, name: str, present: bool) -> None:
        """`name` bound (unbound) here: so is its shadow in each open loop that deletes it."""
        for key, _ in self.fresh.get(name, ()):
            self._set(key, present)

    def track(self, names: set[str]) -> dict[str, tuple[str, list[int]]]:
        """Follow, through the pass of the loop opening now, where each of `names` is bound again."""
        out: dict[str, tuple[str, list[int]]] = {}
        for name in names:
            out[name] = (f"\x00{len(self.loop_exits)}\x00{name}", [])
            self.fresh.setdefault(name, []).append(out[name])
        return out

    def untrack(self, tracked: dict[str, tuple[str, list[int]]]) -> None:
        for name in tracked:
            self.fresh[name].pop()
            if not self.fresh[name]:
                del self.fresh[name]

    def read_fresh(self, name: str, line: int) -> None:
        """A read of a name an open loop deletes: noted for each such loop where this pass has not bound it."""
        for key, lines in self.fresh.get(name, ()) if self.fresh else ():
            if key not in self.definite:
                lines.append(line)

    def forget(self, name: str) -> None:
        """`name` is bound (or deleted) again: what the path and the claims knew of its value is gone."""
        self._forget(lambda facts: without(facts, {name}))

    def repass(self, names: frozenset[str], calls: bool) -> None:
        """A loop's pass begins: what the claims tell of `names` (the loop stores them) is gone, and with
        `calls` (the loop has a call, a store through an object) what those may change: a pass before
        may have done so (`if a: v = 1` / `while a or c:` / `if a: r = v` / `a = 1`)."""
        self._forget(lambda facts: stable(without(facts, names), self.immutable) if calls else without(facts, names))

    def changed(self) -> None:
        """A call, a store through an object, an in-place change: what may no longer hold is gone
        (path_facts.stable), on the path and in the claims."""
        self._forget(lambda facts: stable(facts, self.immutable))

    def _forget(self, keep: Callable[[Facts], Facts]) -> None:
        if self.facts:
            self.facts = keep(self.facts)
        for claimed, cond in list(self.conds.items()):
            if self.on_path(claimed):
                self.conds[claimed] = keep(cond)
        for claimed, sure in list(self.sure.items()):
            if self.on_path(claimed) and keep(sure) != sure:
                del self.sure[claimed]  # no longer all of what its test said

    def assume(self, facts: Facts) -> None:
        if facts:
            self.facts = capped(self.facts | facts)

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
        self._parts += 1
        self.open_parts.append(self._parts)
        self._bound_marks.append(len(self._bound_log))
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
        self.unjoined.add(self.open_parts.pop())
        start = self._bound_marks.pop()
        self.bound = set(self._bound_log[start:])
        if not self.depth:
            self._bound_log.clear()
            self._bound_at.clear()
        return {name: present for present, name in segment}

    def open_loop(self) -> int:
        """Open a loop's pass (as open()), noting where its `break`s and `continue`s count from."""
        mark = self.open()
        self.leak("loop")
        self.loop_exits.append(LoopExits(mark, self._bound_marks[-1]))
        return mark

    def leak(self, kind: str = "try") -> bool:
        """The open part's paths go on into its later siblings (a try's body into its handlers, a loop's
        pass into its `else`): a function kept in it is on their paths (gone); `kind`: which ends go on."""
        self.leaky[self.open_parts[-1]] = kind
        return True

    def leave(self, kind: str) -> None:
        """A `break` (kind "break") or `continue` here: note the path's net change since its loop opened
        (what the loop's join gets from this exit) and the names bound on it so far in this pass."""
        self.ends.add("loop")
        if not self.loop_exits:
            return
        at = self.loop_exits[-1]
        net = {name: present for present, name in self.log[at.mark :]}
        # bound on this path somewhere: not in a sibling branch closed before this one (a try's body,
        # seen from its handler's `break`), whose join is still to come
        here = zip(self._bound_log[at.bound_mark :], self._bound_at[at.bound_mark :])
        bound = {name for name, parts in here if not any(p in self.unjoined for p in parts)}
        (at.breaks if kind == "break" else at.continues).append((net, bound))

    def later(self, check: Callable[[], None]) -> bool:
        """Inside a loop, a name bound further down the body is bound on the next iteration:
        decide when the loop is done. False when not in a loop."""
        if not self.loops:
            return False
        self.loops[-1].append(check)
        return True


@dataclass
class LoopExits:
    """One open loop: where its pass began in the log, and the paths its `break`s and `continue`s take
    out of the pass (each its net change and the names bound on it in the pass)."""

    mark: int
    bound_mark: int
    breaks: list[tuple[dict[str, bool], set[str]]] = field(default_factory=list)
    continues: list[tuple[dict[str, bool], set[str]]] = field(default_factory=list)


@dataclass(frozen=True)
class Ctx:
    scope: NameScope
    flow: Flow
    annotations_lazy: bool
