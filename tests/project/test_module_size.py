"""Issue 22: keep modules small. A module of radpatch/ longer than LIMIT lines is one job too many;
split it by what it does, one module per job, named for it. No module is over the limit (the last
two listed as exceptions, importing/runs.py and importing/patch_series.py, were split by house43)."""

from __future__ import annotations

from pathlib import Path

import radpatch

PACKAGE = Path(radpatch.__file__).parent
LIMIT = 300  # lines


def line_counts(root: Path) -> dict[str, int]:
    """Each module under `root` (its path relative to it) and its number of lines."""
    return {
        path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in root.rglob("*.py")
        if "__pycache__" not in path.parts
    }


def over_the_limit(root: Path, limit: int = LIMIT) -> set[str]:
    return {name for name, lines in line_counts(root).items() if lines > limit}


def test_no_module_is_over_the_limit() -> None:
    counts = line_counts(PACKAGE)
    assert len(counts) > 100  # the walk did reach the package's modules
    assert {f"{name} ({counts[name]} lines)" for name in over_the_limit(PACKAGE)} == set()


def test_a_long_module_is_seen(tmp_path: Path) -> None:
    for lines in range(LIMIT - 2, LIMIT + 3):
        (tmp_path / f"m{lines}.py").write_text("x = 1\n" * lines)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("\n" * (LIMIT + 1) + "y = 2\n")
    assert over_the_limit(tmp_path) == {f"m{LIMIT + 1}.py", f"m{LIMIT + 2}.py", "pkg/long.py"}
