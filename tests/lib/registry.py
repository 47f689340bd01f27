"""The one registry writer: a patch's YAML entry and its payload files, in a registry directory.

Tests that need odd bytes (hostile input, tabs, whitespace-only lines) pass dedent=False so the
file holds exactly what they typed."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path


def write_entry(
    directory: Path, name: str, text: str, payloads: Mapping[str, str] | None = None, dedent: bool = True
) -> Path:
    """Write `directory`/`name`.yaml and each payload (relpath -> source); return the YAML file."""

    def form(source: str) -> str:
        return textwrap.dedent(source) if dedent else source

    directory.mkdir(parents=True, exist_ok=True)
    entry = directory / f"{name}.yaml"
    entry.write_text(form(text))
    for rel, source in (payloads or {}).items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(form(source))
    return entry
