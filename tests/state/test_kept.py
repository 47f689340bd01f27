"""state.kept.result: a link's result, kept or (a record from before results were kept) rebuilt
from the kept original and the file as it is now. Generated: a module, a patch that inserts and
changes code lines, and comment lines someone added to the result. The rebuilt bytes are the true
result whenever each comment stands apart from the patch's lines, and never anything but the true
result or None (the caller then refuses or proves another way)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from radpatch.state.kept import result
from radpatch.state.record import FileRecord, Store, sha256

BODY = [f"def f{i}(x):\n    y = x + {i}\n    return y\n\n\n" for i in range(6)]


def _case(rng: random.Random) -> tuple[bytes, bytes, bytes, bool]:
    """(original, result, result with comments, whether every comment stands apart from the patch)."""
    lines = "".join(BODY).splitlines(keepends=True)
    patched = list(lines)
    for _ in range(rng.randint(1, 3)):
        at = rng.choice([i for i, s in enumerate(patched) if s.startswith("    y = ")])
        if rng.random() < 0.5:
            patched.insert(at + 1, "    y = y * 7\n")
        else:
            patched[at] = patched[at].replace("+", "-")
    edited = list(patched)
    apart = True
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(edited) + 1)
        apart = apart and all(abs(at - t) > 1 for t in _patch_lines(lines, edited))
        edited.insert(at, f"# note {rng.randrange(100)}\n")
    return "".join(lines).encode(), "".join(patched).encode(), "".join(edited).encode(), apart


def _patch_lines(original: list[str], edited: list[str]) -> list[int]:
    """Where, in `edited`, the lines not in the original are (comments aside): the patch's lines."""
    import difflib

    ops = difflib.SequenceMatcher(None, original, edited, autojunk=False).get_opcodes()
    return [j for tag, _, _, j1, j2 in ops if tag != "equal" for j in range(j1, j2) if not edited[j].startswith("#")]


def _store(tmp: Path, *blobs: bytes) -> Store:
    store = Store(tmp)
    store.dir.mkdir(parents=True, exist_ok=True)
    for b in blobs:
        store.keep_original(b)
    return store


def test_the_cases_have_comments_apart_from_the_patch_and_beside_it() -> None:
    seen = {_case(random.Random(seed))[3] for seed in range(40)}
    assert seen == {True, False}


@pytest.mark.parametrize("seed", range(40))
def test_a_result_is_rebuilt_exactly_or_not_at_all(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    original, patched, edited, apart = _case(rng)
    rec = FileRecord("m", "m.py", sha256(original), sha256(patched))
    got = result(rec, edited, _store(tmp_path, original))  # as older radpatch kept it: no result
    assert got in (None, patched)
    if apart:
        assert got == patched


def test_a_kept_result_is_read_and_nothing_is_rebuilt_without_the_original(tmp_path: Path) -> None:
    original, patched, edited, _ = _case(random.Random(7))
    rec = FileRecord("m", "m.py", sha256(original), sha256(patched))
    assert result(rec, b"anything", _store(tmp_path / "a", original, patched)) == patched
    (tmp_path / "b").mkdir()
    assert result(rec, edited, _store(tmp_path / "b")) is None
