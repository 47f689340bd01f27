"""Generated families (a parametrize list built by itertools.product, a hypothesis search): every
case on one interpreter, a sample on the others.

RADPATCH_TEST_SAMPLE=N keeps about one case in N of each generated family, and always at least one
case with each value of each axis, so every spelling, block, shape... still runs on that
interpreter; which cases are kept turns with the interpreter's minor version, so the matrix runs
more of them together than any one interpreter. Hypothesis searches run 1/N of their examples, and
seeded families 1/N of their seeds.
Unset (or 1): every case, as the development venv and `pytest` by hand run them. The real tier runs
with RADPATCH_TEST_SAMPLE=4.

The fast tier splits each family exactly, so that it stays well under two minutes per interpreter:
- RADPATCH_TEST_SLICE=N:T: exactly the cases at turn T (modulo N), one in N, with no case added for
  its axis values; hypothesis searches 1/N of their examples, seeded with T. RADPATCH_TEST_SLICE=N:
  the turn is the interpreter's minor version. tools/test.sh gives each interpreter a turn of its own
  and moves them on with each commit, so that consecutive commits run every turn.
- RADPATCH_TEST_REST=N:T1,T2,...: exactly the cases at none of those turns (the slices the matrix ran);
  hypothesis searches the rest of their examples with a seed of their own. The slices and the rest
  together run every case once (`RADPATCH_FAST_REST=1 bash tools/test.sh --matrix` runs it)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TypeVar

import hypothesis

SAMPLE_ENV = "RADPATCH_TEST_SAMPLE"
SLICE_ENV = "RADPATCH_TEST_SLICE"
REST_ENV = "RADPATCH_TEST_REST"

Case = TypeVar("Case", bound=Hashable)
Test = TypeVar("Test", bound=Callable[..., object])


def sample_every(environ: Mapping[str, str] = os.environ) -> int:
    """N of RADPATCH_TEST_SAMPLE=N: 1 (every case) when unset."""
    raw = environ.get(SAMPLE_ENV, "").strip() or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{SAMPLE_ENV}={raw!r}: expected a whole number of at least 1 (1 runs every case)")
    return int(raw)


def split(environ: Mapping[str, str] = os.environ) -> tuple[int, frozenset[int], bool] | None:
    """The exact split the fast tier asked for: (N, the turns kept, whether those are the turns NOT
    kept: the rest), from RADPATCH_TEST_SLICE=N or RADPATCH_TEST_REST=N:T1,T2,...; None when neither is set."""
    one, rest = environ.get(SLICE_ENV, "").strip(), environ.get(REST_ENV, "").strip()
    if one and rest:
        raise ValueError(f"{SLICE_ENV} and {REST_ENV} are both set: set one (a slice, or the rest of the slices)")
    if one:
        every, colon, at = one.partition(":")
        if not every.isdigit() or int(every) < 1 or (colon and not at.isdigit()):
            raise ValueError(f"{SLICE_ENV}={one!r}: expected N or N:T (N whole, at least 1; T the turn, whole)")
        turn = int(at) if colon else sys.version_info[1]
        return int(every), frozenset({turn % int(every)}), False
    if rest:
        every, _, turns = rest.partition(":")
        listed = [t.strip() for t in turns.split(",") if t.strip()]
        if not every.isdigit() or int(every) < 1 or not listed or not all(t.isdigit() for t in listed):
            raise ValueError(f"{REST_ENV}={rest!r}: expected N:T1,T2,... (N whole, the turns the slices ran)")
        return int(every), frozenset(int(t) % int(every) for t in listed), True
    return None


def _kept(i: int, plan: tuple[int, frozenset[int], bool]) -> bool:
    every, turns, rest = plan
    return (i % every in turns) != rest


def sample(cases: Iterable[Case], every: int | None = None, turn: int = sys.version_info[1]) -> list[Case]:
    """`cases` (tuples: one value per axis; or single values) as a family runs them: all of them,
    or one in `every` (RADPATCH_TEST_SAMPLE), the `turn`-th of each run of `every`, plus the first
    case that has a value of an axis no kept case has; or exactly the fast tier's split (split())."""
    listed = list(cases)
    plan = split() if every is None else None
    if plan is not None:
        return [case for i, case in enumerate(listed) if _kept(i, plan)]
    n = sample_every() if every is None else every
    if n <= 1:
        return listed
    seen: set[tuple[int, Hashable]] = set()
    kept = []
    for i, case in enumerate(listed):
        values = {(axis, _hashable(v)) for axis, v in enumerate(case if isinstance(case, tuple) else (case,))}
        if i % n == turn % n or not values <= seen:
            kept.append(case)
            seen |= values
    return kept


def _hashable(value: object) -> Hashable:
    """A case's value as sample() compares it: itself, or its repr when it cannot be hashed (a list)."""
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value  # type: ignore[return-value]


def seeds(full: int, every: int | None = None, turn: int = sys.version_info[1]) -> list[int]:
    """The seeds of a seeded family (each seed an independent random case): range(`full`), or the
    one in `every` (RADPATCH_TEST_SAMPLE) at `turn`, at least one."""
    plan = split() if every is None else None
    if plan is not None:
        return [i for i in range(full) if _kept(i, plan)]
    n = sample_every() if every is None else every
    return [i for i in range(full) if n <= 1 or i % n == turn % n] or [turn % full]


def examples(full: int, every: int | None = None) -> int:
    """A hypothesis search's max_examples: `full`, or 1/RADPATCH_TEST_SAMPLE of it (rounded up); a
    slice's share of it, or the rest's."""
    plan = split() if every is None else None
    if plan is not None:
        share = len(plan[1]) if not plan[2] else plan[0] - len(plan[1])
        return max(1, -(-full * share // plan[0]))
    n = sample_every() if every is None else every
    return -(-full // n)


def turn_seed(every: int | None = None, turn: int = sys.version_info[1]) -> Callable[[Test], Test]:
    """For a derandomized search whose max_examples is examples(full): in a sampled run, @seed with
    the interpreter's turn, so each interpreter draws its own share of examples (a derandomized
    search would draw the same first 1/N everywhere); unsampled, the search as it is."""
    plan = split() if every is None else None
    if plan is not None:  # a slice: its turn; the rest: a seed no slice uses
        return hypothesis.seed(min(plan[1]) if not plan[2] else plan[0])
    n = sample_every() if every is None else every
    if n <= 1:
        return lambda test: test
    return hypothesis.seed(turn % n)
