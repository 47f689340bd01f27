"""Issue 22: no two modules of radpatch/ share a basename. `releases/overlaps.py` beside the
`prove/overlaps/` package, or `importing/model.py` beside `registry/model.py`, make a reader ask which
one a name means; a module's name says what it does. A package counts by its folder's name.

The one exception is deliberate: a command module named for the module or package it drives
(`commands/verify.py` renders `releases/verify.py`), listed here one by one."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import radpatch

PACKAGE = Path(radpatch.__file__).parent

# a command and the module (or package) it drives: the same word on purpose
MIRRORS = {
    "capture": {"commands/capture.py", "importing/capture.py"},
    "importing": {"commands/importing.py", "importing/"},
    "port": {"commands/port.py", "releases/port.py"},
    "restore": {"commands/restore.py", "state/restore.py"},
    "verify": {"commands/verify.py", "releases/verify.py"},
}


def basenames(root: Path) -> dict[str, set[str]]:
    """Each module's basename under `root` (a package by its folder, `name/`), with where."""
    where: dict[str, set[str]] = defaultdict(set)
    for path in root.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        if path.name == "__init__.py":
            if path.parent != root:
                where[path.parent.name].add(f"{path.parent.relative_to(root).as_posix()}/")
        else:
            where[path.stem].add(path.relative_to(root).as_posix())
    return where


def clashes(root: Path) -> dict[str, set[str]]:
    """The basenames two modules share that are not a listed command mirror."""
    return {name: places for name, places in basenames(root).items() if len(places) > 1 and MIRRORS.get(name) != places}


def test_no_two_modules_in_radpatch_share_a_name() -> None:
    found = basenames(PACKAGE)
    assert len(found) > 100  # the walk did reach the package's modules
    assert clashes(PACKAGE) == {}


def test_every_mirror_listed_is_there() -> None:
    # a mirror renamed away on one side is no longer an exception: drop it from MIRRORS
    found = basenames(PACKAGE)
    assert {name: found.get(name, set()) for name in MIRRORS} == MIRRORS


def test_a_clash_is_seen(tmp_path: Path) -> None:
    for rel in [
        "__init__.py",
        "registry/__init__.py",
        "registry/model.py",
        "importing/__init__.py",
        "importing/model.py",
        "prove/__init__.py",
        "prove/overlaps/__init__.py",
        "releases/__init__.py",
        "releases/overlaps.py",
        "commands/__init__.py",
        "commands/verify.py",
        "releases/verify.py",
        "state/verify.py",  # a third `verify` is no longer the listed mirror
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert clashes(tmp_path) == {
        "model": {"registry/model.py", "importing/model.py"},
        "overlaps": {"prove/overlaps/", "releases/overlaps.py"},
        "verify": {"commands/verify.py", "releases/verify.py", "state/verify.py"},
    }
