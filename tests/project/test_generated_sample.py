"""RADPATCH_TEST_SAMPLE (tests/lib/generated.py): a sampled family still has every value of every
axis, about one case in N, a different sample on another interpreter; unset, every case."""

from __future__ import annotations

import itertools
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

from tests.lib.generated import REST_ENV, SAMPLE_ENV, SLICE_ENV, examples, sample, sample_every, seeds, turn_seed

CASES = list(itertools.product("abcdefg", range(5), ("x", "y"), (False, True)))


@pytest.fixture(autouse=True)
def _no_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests set the split they test: the run's own (the fast tier's) is not theirs."""
    monkeypatch.delenv(SLICE_ENV, raising=False)
    monkeypatch.delenv(REST_ENV, raising=False)


def axis_values(cases: list[tuple[object, ...]]) -> list[set[object]]:
    return [set(axis) for axis in zip(*cases)]


def test_unset_runs_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SAMPLE_ENV, raising=False)
    assert sample(CASES) == CASES and sample_every() == 1 and examples(250) == 250
    monkeypatch.setenv(SAMPLE_ENV, "1")
    assert sample(CASES) == CASES


@pytest.mark.parametrize("every", [2, 4, 8, 100])
@pytest.mark.parametrize("turn", [10, 11, 12, 13])
def test_a_sample_keeps_every_value_of_every_axis(every: int, turn: int) -> None:
    kept = sample(CASES, every, turn)
    assert axis_values(kept) == axis_values(CASES)
    assert set(kept) <= set(CASES) and len(set(kept)) == len(kept)
    assert len(CASES) // every <= len(kept) < len(CASES)


def test_each_interpreter_runs_another_sample_and_together_more() -> None:
    samples = [set(sample(CASES, 4, minor)) for minor in (10, 11, 12, 13)]
    assert len({frozenset(s) for s in samples}) == 4
    assert len(set.union(*samples)) > max(len(s) for s in samples)


def test_a_one_axis_family_runs_whole_and_order_is_kept() -> None:
    """Each case of a one-axis family is the only one with its value: none is left out."""
    assert sample(list(range(40)), 8, 3) == list(range(40))
    kept = sample(CASES, 8, 3)
    assert kept == sorted(kept, key=CASES.index)


@pytest.mark.parametrize("every", [2, 4, 8])
def test_a_family_of_unhashable_values_samples_as_hashable_ones(every: int) -> None:
    """Lists as axis values (`[["1.1"], ["0.9", "1.1"]]`) are sampled as their tuples would be,
    instead of failing the collection of the whole file on every interpreter that samples."""
    tuples = list(itertools.product("abcde", [("1",), ("2",), ("1", "2")]))
    lists = [(a, list(b)) for a, b in tuples]
    assert sample(lists, every, 11) == [(a, list(b)) for a, b in sample(tuples, every, 11)]


def test_seeds_are_every_nth_turning_with_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    assert seeds(40, 4, 13) == list(range(1, 40, 4)) and seeds(40, 4, 12) == list(range(0, 40, 4))
    assert seeds(3, 8, 13) == [1] and seeds(2, 8, 13) == [1]  # at least one
    monkeypatch.delenv(SAMPLE_ENV, raising=False)
    assert seeds(40) == list(range(40))


def test_the_env_var_sets_the_sample_and_hypothesis_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SAMPLE_ENV, "8")
    assert sample_every() == 8 and examples(300) == 38 and examples(40) == 5 and examples(3) == 1
    assert len(sample(CASES)) < len(CASES)


@pytest.mark.parametrize("raw", ["0", "-2", "half", "1.5"])
def test_a_bad_value_says_what_it_expects(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv(SAMPLE_ENV, raw)
    with pytest.raises(ValueError, match=f"{SAMPLE_ENV}=.*expected a whole number of at least 1"):
        sample_every()


def _drawn(every: int, turn: int) -> list[int]:
    """The examples a derandomized search of 5 draws under turn_seed(every, turn)."""
    seen: list[int] = []

    @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    @turn_seed(every, turn)
    @given(st.integers(0, 10**9))
    def search(n: int) -> None:
        seen.append(n)

    search()
    return seen


def test_a_sampled_derandomized_search_draws_its_own_examples_on_each_interpreter() -> None:
    assert _drawn(4, 10) == _drawn(4, 10)  # still reproducible
    shares = [_drawn(4, turn) for turn in (10, 11, 12, 13)]
    assert len({tuple(s) for s in shares}) == 4, shares
    assert _drawn(1, 10) == _drawn(1, 11)  # unsampled: the search as derandomize draws it


def _machine_drew(every: int, turn: int) -> list[int]:
    """The values a derandomized state machine of 3 examples draws under turn_seed(every, turn)."""
    seen: list[int] = []

    @turn_seed(every, turn)
    class Machine(RuleBasedStateMachine):
        @rule(n=st.integers(0, 10**9))
        def draw(self, n: int) -> None:
            seen.append(n)

    drawn = settings(max_examples=3, stateful_step_count=2, deadline=None, derandomize=True, database=None)
    run_state_machine_as_test(Machine, settings=drawn)
    return seen


def test_a_sampled_state_machine_draws_its_own_examples_on_each_interpreter() -> None:
    """tests/state/test_model.py's machines take turn_seed as a class decorator."""
    assert _machine_drew(4, 10) == _machine_drew(4, 10)
    shares = [_machine_drew(4, turn) for turn in (10, 11, 12, 13)]
    assert len({tuple(s) for s in shares}) == 4, shares
    assert _machine_drew(1, 10) == _machine_drew(1, 11)


@pytest.mark.parametrize("every", [4, 16])
def test_the_slices_and_the_rest_run_every_case_once(monkeypatch: pytest.MonkeyPatch, every: int) -> None:
    """The fast tier's split: each interpreter's slice (RADPATCH_TEST_SLICE) and the rest
    (RADPATCH_TEST_REST) after them are disjoint and together every case, in order, for families,
    seeds and hypothesis examples alike."""

    monkeypatch.delenv(SAMPLE_ENV, raising=False)
    minors = (10, 11, 12, 13)
    slices = []
    for minor in minors:
        monkeypatch.setattr(sys, "version_info", (3, minor, 0))
        monkeypatch.setenv(SLICE_ENV, str(every))
        slices.append((sample(CASES), seeds(100)))
        monkeypatch.delenv(SLICE_ENV)
    monkeypatch.setenv(REST_ENV, f"{every}:" + ",".join(map(str, minors)))
    rest = (sample(CASES), seeds(100))
    for part in (0, 1):
        chunks = [s[part] for s in slices] + [rest[part]]
        union = [c for chunk in chunks for c in chunk]
        full = CASES if part == 0 else list(range(100))
        assert sorted(union, key=full.index) == full  # each case once
        assert all(chunk == sorted(chunk, key=full.index) for chunk in chunks)
    assert len(rest[0]) == len(CASES) - sum(len(s[0]) for s in slices)
    monkeypatch.setenv(REST_ENV, f"{every}:10,11,12,13")
    assert examples(160) == max(1, -(-160 * (every - 4) // every))


def test_the_four_quarters_of_turns_run_every_case_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """tools/test.sh's rotation: four interpreters, each at its own turn (RADPATCH_TEST_SLICE=16:T),
    four turns next to each other, a quarter of the cases chosen by the commit: the four quarters run
    every case exactly once, and the minor version no longer decides the turn."""
    monkeypatch.delenv(SAMPLE_ENV, raising=False)
    monkeypatch.delenv(REST_ENV, raising=False)
    runs = []
    for commit in range(4):
        for interpreter, minor in enumerate((10, 11, 12, 13)):
            monkeypatch.setattr(sys, "version_info", (3, minor, 0))
            monkeypatch.setenv(SLICE_ENV, f"16:{interpreter + 4 * commit}")
            runs.append((sample(CASES), seeds(100), examples(160)))
    for part, full in ((0, CASES), (1, list(range(100)))):
        union = [c for run in runs for c in run[part]]
        assert sorted(union, key=full.index) == full
    assert all(run[2] == 10 for run in runs)
    monkeypatch.setenv(SLICE_ENV, "16:3")
    at_three = sample(CASES)
    monkeypatch.setattr(sys, "version_info", (3, 10, 0))
    assert sample(CASES) == at_three == CASES[3::16]


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("RADPATCH_TEST_SLICE", "0"),
        ("RADPATCH_TEST_SLICE", "x"),
        ("RADPATCH_TEST_SLICE", "16:"),
        ("RADPATCH_TEST_SLICE", "16:x"),
        ("RADPATCH_TEST_REST", "16"),
        ("RADPATCH_TEST_REST", "16:a"),
    ],
)
def test_a_bad_split_says_what_it_expects(monkeypatch: pytest.MonkeyPatch, name: str, raw: str) -> None:
    monkeypatch.setenv(name, raw)
    with pytest.raises(ValueError, match=f"{name}=.*expected"):
        sample(CASES)
