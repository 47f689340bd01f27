"""The walks of the install radpatch makes (prove.read_only.snapshot), counted: each walk still runs."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from radpatch.prove import read_only


def counted_walks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """A list that each later walk appends its roots to, in order."""
    walks: list[tuple[str, ...]] = []
    real = read_only.snapshot

    def counted(roots: Sequence[str]) -> read_only.Snapshot:
        walks.append(tuple(roots))
        return real(roots)

    monkeypatch.setattr(read_only, "snapshot", counted)
    return walks
