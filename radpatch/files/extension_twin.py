"""A compiled extension module beside a `.py` (what the import system loads first), in words status
and the engine-start check share. Stdlib only: the engine-start check imports it."""

from __future__ import annotations

from pathlib import Path


def shadowed_by(module: str, shown: str, relpath: str, root: Path) -> str:
    """The words for `module` imported from the extension `shown` instead of `relpath` (status and the
    engine-start check say the same)."""
    return (
        f"{module} is imported from the compiled extension {shown}, not from {relpath} beside it "
        f"in {root} (the import system loads an extension module before the .py): patching the .py "
        "would have no effect"
    )


def twin(root: Path, relpath: str, suffixes: tuple[str, ...]) -> str | None:
    """The extension module (one of `suffixes`, in loader order) beside `relpath` under `root`, as a
    relpath, else None."""
    if not relpath.endswith(".py"):
        return None
    stem = relpath[: -len(".py")]
    return next((stem + s for s in suffixes if (root / (stem + s)).is_file()), None)
