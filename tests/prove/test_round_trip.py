"""Issue 22 (F6): whether a file reads as the patched form is a typed result (prove.round_trips.RoundTrip),
not a message whose absence means "applied": the code branches on `patched`, the words are for the user."""

from __future__ import annotations

from pathlib import Path

from radpatch.prove.round_trips import Trip, round_trip
from radpatch.registry.loader import load_patch
from tests.lib.registry import write_entry
from tests.lib.toy_releases import GOOD, PATCHED, REWRITTEN, entry


def test_the_round_trip_says_patched_or_where_it_stops(tmp_path: Path) -> None:
    patch = load_patch(write_entry(tmp_path, "cap", entry(">=1.0")))
    patched = round_trip(patch, patch.rewrites, PATCHED.encode(), "core.py")
    assert patched.patched and patched.trip is Trip.PATCHED and patched.stops == ""
    for before in (GOOD, REWRITTEN):  # not patched: undoing finds no inserted line to take out
        trip = round_trip(patch, patch.rewrites, before.encode(), "core.py")
        assert not trip.patched and trip.trip is Trip.REFUSED
        assert trip.stops.startswith("rewrite 'cap' (")  # the words state and status show, unchanged
