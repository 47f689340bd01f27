"""Which tier the running test is in, for the helpers that make it costly.

The fast tier runs under every interpreter (tools/test.sh) and must stay in-process: a test that
pip-installs a wheel into a venv needs the `wheel` marker (tests/conftest.py NEEDS), which puts it
in the real tier, run once. A helper that installs (tests.lib.venvs.pip, tests.lib.importing's
pip_install) calls `needs("wheel", ...)`: a test that installs without saying so fails at once,
naming the marker, rather than slipping its seconds into every interpreter's run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

_running: list[pytest.Item] = []


@contextmanager
def running(item: pytest.Item) -> Iterator[None]:
    """`item` is the test being set up, run and torn down (tests/conftest.py's runtest hook)."""
    _running.append(item)
    try:
        yield
    finally:
        _running.pop()


def needs(marker: str, what: str) -> None:
    """Fail the running test unless it is in the real tier (marked `marker`, or another need that puts
    it there): it does `what`. Outside pytest, nothing."""
    if _running and _running[-1].get_closest_marker("real") is None:
        item = _running[-1]
        pytest.fail(f"{item.nodeid} {what}: mark it @pytest.mark.{marker} (the real tier)", pytrace=False)
