"""Issue 22: keep modules small. A module of radpatch/ longer than LIMIT lines is one job too many;
split it by what it does, one module per job, named for it. The modules over the limit when this
test was written are listed by name in OVER_THE_LIMIT: the list can only shrink (a module listed
that is back under the limit fails the test until it is taken off the list)."""

from __future__ import annotations

from pathlib import Path

import radpatch

PACKAGE = Path(radpatch.__file__).parent
LIMIT = 300  # lines

# modules still over the limit, each to be split; nothing is added here
OVER_THE_LIMIT = {
    "importing/patch_series.py",
}


def line_counts(root: Path) -> dict[str, int]:
    """Each module under `root` (its path relative to it) and its number of lines."""
    return {
        path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in root.rglob("*.py")
        if "__pycache__" not in path.parts
    }


def over_the_limit(root: Path, limit: int = LIMIT) -> set[str]:
    return {name for name, lines in line_counts(root).items() if lines > limit}


def test_no_module_is_over_the_limit_but_those_listed() -> None:
    counts = line_counts(PACKAGE)
    assert len(counts) > 100  # the walk did reach the package's modules
    assert {f"{name} ({counts[name]} lines)" for name in over_the_limit(PACKAGE) - OVER_THE_LIMIT} == set()


def test_every_module_listed_is_still_over_the_limit() -> None:
    # a module split below the limit (or gone) is no longer an exception: take it off OVER_THE_LIMIT
    assert OVER_THE_LIMIT - over_the_limit(PACKAGE) == set()


def test_a_long_module_is_seen(tmp_path: Path) -> None:
    for lines in range(LIMIT - 2, LIMIT + 3):
        (tmp_path / f"m{lines}.py").write_text("x = 1\n" * lines)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("\n" * (LIMIT + 1) + "y = 2\n")
    assert over_the_limit(tmp_path) == {f"m{LIMIT + 1}.py", f"m{LIMIT + 2}.py", "pkg/long.py"}
