"""The entry names `radpatch import` gives a set of patch files: one per file, all different, each a
name the CLI and a registry directory take (letters, digits, `_`, `-`, `.`), and the same every
time; only the very same file given twice is refused (att47 #8: `fix v3.patch` and `fix-v3.patch`
were refused as "the same file given twice", and `ünï.patch` became `n`). Generated: file names
from pieces that a name cannot hold (spaces, accents, other scripts), in one or several directories."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from radpatch.commands.importing import _names
from radpatch.errors import UsageError
from tests.lib.generated import seeds

VALID = re.compile(r"[A-Za-z0-9_.-]+")
PIECES = ["fix", "fix v3", "fix-v3", "fix_v3", "ünï", "ä", "Ωmega", "a.b", "x", "über fix", "--", "日本"]


def _files(rng: random.Random, root: Path) -> list[str]:
    out: list[str] = []
    for _ in range(rng.randint(1, 6)):
        d = root / rng.choice(["", "a", "b", "a/c"])
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{rng.choice(PIECES)}{rng.choice(['.patch', '.diff', ''])}"
        path.write_text("")
        if str(path) not in out:
            out.append(str(path))
    return out


@pytest.mark.parametrize("seed", seeds(8))
def test_every_file_gets_its_own_valid_name(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    for trial in range(40):
        files = _files(rng, tmp_path / str(trial))
        prefix = rng.choice([None, "team"]) if len(files) > 1 else None
        names = _names(tuple(files), prefix)
        assert len(names) == len(files) and len(set(names)) == len(names), (files, names)
        assert all(VALID.fullmatch(n) and not n.startswith(("-", ".")) for n in names), (files, names)
        assert names == _names(tuple(files), prefix)  # the same every time
        if prefix:
            assert all(n.startswith(f"{prefix}-") for n in names)


def test_the_same_file_given_twice_is_refused_naming_it(tmp_path: Path) -> None:
    f = tmp_path / "fix.patch"
    f.write_text("")
    with pytest.raises(UsageError) as err:
        _names((str(f), str(tmp_path / "." / "fix.patch")), None)
    assert "given twice" in err.value.message and "fix.patch" in err.value.message
