"""pytest plugin for fasttier.py --by-file: each test's CPU seconds (its own process, and the processes
it started and waited for, from os.times) appended to the file $RADPATCH_CPU_BY_FILE as
`nodeid<TAB>own<TAB>children`, one line a test (each xdist worker appends its own lines)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    t0 = os.times()
    yield
    t1 = os.times()
    own = (t1.user - t0.user) + (t1.system - t0.system)
    kids = (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
    with open(os.environ["RADPATCH_CPU_BY_FILE"], "a", encoding="utf-8") as out:
        out.write(f"{item.nodeid}\t{own:.3f}\t{kids:.3f}\n")
