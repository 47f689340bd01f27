"""Claims, pass 2's judgement of bound-on-some-paths: a join of exclusive branches (if/else, match
cases, try/except, `and`/`or`) that leaves a name bound on some of them only claims it, with the
path facts of the paths that leave it unbound (or those of its test where it was bound); a later
exit or binding clears the claim (join), and a read is judged against it (partly). Flow's state, the
one class of a scope's binding flow (flow.Flow) with it.
"""

from __future__ import annotations

from .path_facts import Facts, capped, contradicts, entails, meet, told


class Claims:
    """The claims of one scope's flow (flow.Flow keeps the rest of its state and the bindings)."""

    maybe: dict[str, int]
    definite: set[str]
    partial: dict[str, tuple[int, ...]]
    aside: dict[str, list[tuple[tuple[int, ...], Facts]]]
    open_parts: list[int]
    unjoined: set[int]
    per_run: set[str]
    facts: Facts
    conds: dict[str, Facts]
    sure: dict[str, Facts]

    def _set(self, name: str, present: bool) -> None:  # flow.Flow's
        raise NotImplementedError

    def drop(self, name: str) -> None:
        self.partial.pop(name, None)
        self.conds.pop(name, None)
        self.sure.pop(name, None)

    def on_path(self, name: str) -> bool:
        """Is the claim on `name` about the paths through here: not made in a sibling branch (a part
        closed whose join is still to come), whose paths are not these?"""
        return not any(p in self.unjoined for p in self.partial.get(name, ()))

    def held(self) -> tuple[dict[str, Facts], dict[str, Facts]]:
        """The claims' facts as they are here, for restore."""
        return dict(self.conds), dict(self.sure)

    def restore(self, held: tuple[dict[str, Facts], dict[str, Facts]]) -> None:
        """A branch that does not go on (it returns, raises or breaks): the facts the claims alive
        before it had, which a call or store in it took away (Flow.changed), are theirs again."""
        for kept, now in zip(held, (self.conds, self.sure)):
            for name, facts in kept.items():
                if name in self.partial:
                    now[name] = facts

    def conds_here(self) -> dict[str, Facts]:
        """The claims' facts for the paths through here (on_path)."""
        return {name: cond for name, cond in self.conds.items() if self.on_path(name)}

    def join(
        self,
        nets: list[dict[str, bool]],
        exclusive: bool = True,
        per_run: bool = False,
        anywhere: list[set[str] | None] | None = None,
        facts: list[Facts] | None = None,
        prior: dict[str, Facts] | None = None,
        exact: list[Facts | None] | None = None,
        ids: list[int] | None = None,
    ) -> None:
        """Continue with the paths that fall through (each given as its net change). `exclusive`: the
        parts are branches of which one runs (not a loop's body and its skipping it). `per_run`: which
        one is fixed for a run (a version test, `__debug__`, a guarded import): a name one of them binds
        is not counted as partly bound, here or at an enclosing join. `anywhere`: per net, the names
        its branch binds on some path (a loop that may run no pass, a nested if): a branch that binds
        the name somewhere does not count as one that leaves it unbound (a nested if's own join claims
        what it can; a loop's passes are values this walk does not follow); None: a branch that may
        never return (walk's tail call), which does not count either. `facts`: per net, its path's
        facts where it falls through (path_facts); `prior`: the claims' facts where the branches began.
        A claim is judged by facts only (F6): with facts of the paths that leave it unbound (`conds`),
        a path whose facts contradict them had the name bound, whichever branch it takes, and an exit
        here clears the claim when every path that falls through contradicts them; without, by
        `exact`: per net, its if-test's facts when they say all the test does: a claim bound in one
        branch only keeps them (`sure`), and a path that tells them all has it bound. A claim with
        neither holds on every path through its join: no exit nor later test is taken as correlated
        with it because it reads the same names (`if a and f(): v = 1` / `if a: return v`, `try: ok =
        True; v = int(x)` / `except ValueError: pass` / `if ok: return v` are refused)."""
        deep = self.deep_claims()
        if self.unjoined:  # the parts closed since the innermost open one are this join's
            inner = self.open_parts[-1] if self.open_parts else 0
            self.unjoined = {p for p in self.unjoined if p < inner}
        touched: set[str] = set().union(*nets) if nets else set()
        if facts is not None and self.conds:
            here = tuple(self.open_parts)
            for name, cond in list(self.conds.items()):
                at = self.partial.get(name)
                if name in touched or at is None or at[: len(here)] != here:
                    continue
                ends = anywhere or [set()] * len(nets)  # None: a branch that may never return (walk's tail call)
                if all(
                    contradicts(f, cond) or net.get(name, False) or end is None
                    for net, f, end in zip(nets, facts, ends)
                ):
                    self.drop(name)  # every path that falls through here has it bound
                    self._set(name, True)
        if facts is not None and self.sure:
            here = tuple(self.open_parts)
            for name, sure in list(self.sure.items()):
                at = self.partial.get(name)
                if name in touched or at is None or at[: len(here)] != here:
                    continue
                ends = anywhere or [set()] * len(nets)
                if all(
                    entails(f, sure) or net.get(name, False) or end is None for net, f, end in zip(nets, facts, ends)
                ):
                    self.drop(name)
                    self._set(name, True)
        if per_run:
            self.per_run |= touched
        for name in touched:
            cond = (prior or {}).get(name, {})
            bound = [
                net.get(name, name in self.definite) or (bool(cond) and contradicts(f, cond))
                for net, f in zip(nets, facts or [{}] * len(nets))
            ]
            every = all(bound)
            self._set(name, every)
            if every and name in self.conds and self.on_path(name):
                self.drop(name)
            if not every and exclusive and name in self.maybe and name not in self.per_run:
                told = [
                    anywhere[i] if anywhere else set()
                    for i, net in enumerate(nets)
                    if not net.get(name, name in self.definite)
                ]
                if any(bound is not None and name not in bound for bound in told):
                    self.claim_here(name)
                    left = [f | cond for f, b in zip(facts or [], bound) if not b]
                    self.conds[name] = capped(meet(left)) if facts is not None else {}
                    if not self.conds[name]:
                        del self.conds[name]
                        kept = [(e, f) for e, f, b in zip(exact or [], facts or [], bound) if b]
                        if len(kept) == 1 and kept[0][0] and all(kept[0][1].get(k) == v for k, v in kept[0][0].items()):
                            self.sure[name] = kept[0][0]
        if deep:
            self.lift(deep, nets, facts, ids)

    def claim_here(self, name: str) -> None:
        """Claim `name` at the open parts; a claim on it made in a sibling part closed before, whose
        join is still to come, is kept aside for that join (lift), not lost."""
        old = self.partial.get(name)
        if old is not None and not self.on_path(name):
            self.aside.setdefault(name, []).append((old, self.conds.get(name, {})))
        self.partial[name] = tuple(self.open_parts)

    def deep_claims(self) -> dict[str, tuple[bool, list[tuple[int, Facts]]]]:
        """The claims made inside the parts a join is about to join (a nested if's, a guard's `and`),
        and those kept aside there (claim_here): per name, whether it was bound on every path before,
        and per claim the part it was made in and its facts."""
        here = tuple(self.open_parts)
        out: dict[str, tuple[bool, list[tuple[int, Facts]]]] = {}
        for name, at in self.partial.items():
            if len(at) > len(here) and at[: len(here)] == here:
                out[name] = (name in self.definite, [(at[len(here)], self.conds.get(name, {}))])
        for name, kept in self.aside.items():
            inside = [(at[len(here)], cond) for at, cond in kept if len(at) > len(here) and at[: len(here)] == here]
            if inside:
                out.setdefault(name, (name in self.definite, []))[1].extend(inside)
        return out

    def lift(
        self,
        deep: dict[str, tuple[bool, list[tuple[int, Facts]]]],
        nets: list[dict[str, bool]],
        facts: list[Facts] | None,
        ids: list[int] | None,
    ) -> None:
        """A claim made inside one of the joined parts holds after the join, on its own paths and on
        those of every other part that leaves the name unbound (`if a:` / `if b: v = 1` / (else) /
        `if a: return v` reads it unbound where b is false): made again here, with the facts of all
        those paths (the parts' own `ids` tell which paths are a claim's)."""
        here = tuple(self.open_parts)
        for name, (was, claims) in deep.items():
            kept = self.aside.pop(name, [])
            self.aside_keep(name, [k for k in kept if not (len(k[0]) > len(here) and k[0][: len(here)] == here)])
            at = self.partial.get(name)
            live = at is not None and len(at) > len(here) and at[: len(here)] == here
            if not live and len(claims) == 1 and not kept:
                continue  # cleared by a later binding, or claimed again by this join
            if name in self.definite:
                self.drop(name)
                continue
            parts = dict(claims)
            left = []
            for i, net in enumerate(nets):
                f = facts[i] if facts is not None else {}
                if ids is not None and ids[i] in parts:
                    left.append(capped(f | parts[ids[i]]))
                elif not net.get(name, was):
                    left.append(f)
            if not left:
                if live:
                    self.drop(name)
                continue
            self.partial[name] = here
            self.sure.pop(name, None)
            # what every one of those paths tells (`n >= 2` false tells `n >= 3` false too)
            told_all = {k: v for f in left for k, v in f.items() if all(told(g, k) == v for g in left)}
            self.conds[name] = capped(told_all)
            if not self.conds[name]:
                del self.conds[name]

    def aside_keep(self, name: str, kept: list[tuple[tuple[int, ...], Facts]]) -> None:
        if kept:
            self.aside[name] = kept

    def partly(self, name: str) -> bool:
        """Is `name` bound on some paths only to a read here: left so by a join of exclusive branches,
        and read on a path through that join: in its block, one enclosing it, or a branch opened in
        its block later (`if a: v = 1` / `if not a: return v`). A claim with facts is judged by them
        (`if a.ok: v = 1` / `if a.ok: return v`: path_facts.subject), one with `sure` facts by
        whether the path tells them all, any other holds here (join)."""
        at = self.partial.get(name)
        if at is None or name in self.definite:
            return False
        here = tuple(self.open_parts)
        if here[: len(at)] != at and at[: len(here)] != here:  # a sibling branch's claim
            return False
        cond = self.conds.get(name)
        if cond is None and name in self.sure:
            return not entails(self.facts, self.sure[name])
        return not contradicts(self.facts, cond or {})  # a path its facts do not rule out
