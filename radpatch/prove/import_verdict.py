"""The import check's verdict on one module (ok, refused, inconclusive, and why), and the name
`import` uses for a registry module. For `import_check` and `import_neighbours`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Result(Enum):
    OK = "ok"
    REFUSED = "refused"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class ImportCheckVerdict:
    module: str  # the name imported
    patches: tuple[str, ...]  # the patches that change its file
    result: Result
    reason: str = ""  # for a refusal: the patched import's error; inconclusive: why it cannot tell
    unpatched_imports: bool = False  # a refusal where the pristine module (or the cycle's module) imports
    note: str = ""  # for OK or inconclusive: the importers left unchecked (the cap), processes left running


def import_name(module: str) -> str:
    """The name `import` uses for a registry module: a package's `__init__` is the package."""
    return module[: -len(".__init__")] if module.endswith(".__init__") else module
