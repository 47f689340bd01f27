"""The matrix `verify --all` prints, read back as a table by the tests that check its cells."""

from __future__ import annotations


def cells(out: str) -> dict[str, dict[str, str]]:
    """The matrix table: entry -> release -> cell text (cells are split on two spaces or more)."""
    lines = out.splitlines()
    head = lines[0].split()
    assert head[0] == "ENTRY"
    table: dict[str, dict[str, str]] = {}
    for line in lines[1:]:
        if not line.strip():
            break
        parts = [p for p in line.split("  ") if p.strip()]
        table[parts[0].strip()] = dict(zip(head[1:], (p.strip() for p in parts[1:])))
    return table
