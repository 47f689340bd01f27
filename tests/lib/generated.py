"""Generated families (a parametrize list built by itertools.product, a hypothesis search): every
case on one interpreter, a sample on the others.

RADPATCH_TEST_SAMPLE=N keeps about one case in N of each generated family, and always at least one
case with each value of each axis, so every spelling, block, shape... still runs on that
interpreter; which cases are kept turns with the interpreter's minor version, so the matrix runs
more of them together than any one interpreter. Hypothesis searches run 1/N of their examples, and
seeded families 1/N of their seeds.
Unset (or 1): every case, as the development venv and `pytest` by hand run them. tools/test.sh sets
it to 4 for every fast-tier run where it finds all of 3.10-3.13 (their turns, 2, 3, 0 and 1 modulo 4,
together run every case); with fewer, for every run but the first interpreter's, which runs every case."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TypeVar

import hypothesis

SAMPLE_ENV = "RADPATCH_TEST_SAMPLE"

Case = TypeVar("Case", bound=Hashable)
Test = TypeVar("Test", bound=Callable[..., object])


def sample_every(environ: Mapping[str, str] = os.environ) -> int:
    """N of RADPATCH_TEST_SAMPLE=N: 1 (every case) when unset."""
    raw = environ.get(SAMPLE_ENV, "").strip() or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{SAMPLE_ENV}={raw!r}: expected a whole number of at least 1 (1 runs every case)")
    return int(raw)


def sample(cases: Iterable[Case], every: int | None = None, turn: int = sys.version_info[1]) -> list[Case]:
    """`cases` (tuples: one value per axis; or single values) as a family runs them: all of them,
    or one in `every` (RADPATCH_TEST_SAMPLE), the `turn`-th of each run of `every`, plus the first
    case that has a value of an axis no kept case has."""
    n = sample_every() if every is None else every
    listed = list(cases)
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
    n = sample_every() if every is None else every
    return [i for i in range(full) if n <= 1 or i % n == turn % n] or [turn % full]


def examples(full: int, every: int | None = None) -> int:
    """A hypothesis search's max_examples: `full`, or 1/RADPATCH_TEST_SAMPLE of it (rounded up)."""
    n = sample_every() if every is None else every
    return -(-full // n)


def turn_seed(every: int | None = None, turn: int = sys.version_info[1]) -> Callable[[Test], Test]:
    """For a derandomized search whose max_examples is examples(full): in a sampled run, @seed with
    the interpreter's turn, so each interpreter draws its own share of examples (a derandomized
    search would draw the same first 1/N everywhere); unsampled, the search as it is."""
    n = sample_every() if every is None else every
    if n <= 1:
        return lambda test: test
    return hypothesis.seed(turn % n)
