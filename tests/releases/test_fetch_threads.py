"""verify fetches releases in threads, and each thread follows the star imports and decorators of
what it read by parsing modules with `ast` (releases.star_members.with_stars). CPython 3.11 keeps the AST
constructor's recursion depth per interpreter, so two parses at once can fail with "SystemError: AST
constructor recursion depth mismatch" (seen here: `verify` exited 70 on 3.11.7, a test of
tests/releases/test_decorator_from_package.py one run in three). The parses are one at a time."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import cast

import pytest

from radpatch.prove import star_exports
from radpatch.releases import imported_decorators, star_members, wheel_records


@pytest.mark.parametrize("threads", [2, 4, 8])
def test_threads_following_star_imports_never_parse_at_once(monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    active, most = 0, 0
    guard = threading.Lock()

    def wanted(read: object, names: object) -> frozenset[str]:
        nonlocal active, most
        with guard:
            active += 1
            most = max(most, active)
        time.sleep(0.01)  # a parse long enough for another thread to start its own (no assertion on time)
        with guard:
            active -= 1
        return frozenset()

    monkeypatch.setattr(star_exports, "wanted", wanted)
    monkeypatch.setattr(imported_decorators, "wanted", wanted)
    release = cast(wheel_records.Release, SimpleNamespace(members={"pkg/m.py": "blob"}, read=lambda name: b""))
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda _: star_members.with_stars(release, frozenset({"pkg/m.py"})), range(threads * 3)))
    assert most == 1, f"{most} threads parsed at once"
