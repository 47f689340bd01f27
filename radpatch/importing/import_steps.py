"""What the importer produces, before it is written as YAML: typed records, no raw dicts.

A `ImportStep` is one rewrite as a person would write it in a registry entry: the operation key and
its keys in the order the README shows them. `payload` holds the text of a file that goes beside
the entry (definitions for `insert_definitions`, a whole new module for `create_module`).
"""

from __future__ import annotations

from dataclasses import dataclass

Value = str | int


@dataclass(frozen=True)
class ImportStep:
    op: str  # the operation's YAML key: replace, insert_after, create_module, ...
    keys: tuple[tuple[str, Value], ...]
    payload: str | None = None  # the file the `payload`/`content` key names, written beside the entry
    note: str = ""  # why this shape (a fallback), for the import's summary; not written

    def get(self, key: str) -> Value | None:
        return next((v for k, v in self.keys if k == key), None)


@dataclass(frozen=True)
class DiffFile:
    """One module of an entry: what the series had before this patch and what `patch` gives."""

    rel: str  # relative to the site directory, e.g. vllm/v1/core/sched/output.py
    before: str | None  # None: the patch creates the file
    after: str | None  # None: the patch deletes it
    owner: str | None  # the distribution whose RECORD lists it (or its package), else None
    name: str = ""  # the file's name in the patch after -p (what --exclude matches), for hints
