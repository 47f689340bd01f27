"""dist_record: a RECORD's rows found by searching its bytes, as csv would read them."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
from pathlib import Path

import pytest

from radpatch import dist_record
from tests.fifo import fifo_in_place_of


def _b64(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write(path: Path, rows: list[list[str]], lineterminator: str) -> Path:
    out = io.StringIO()
    csv.writer(out, lineterminator=lineterminator).writerows(rows)
    path.write_bytes(out.getvalue().encode("utf-8"))
    return path


ROWS = [
    ["pkg/__init__.py", _b64(b"init"), "4"],
    ["pkg/a,b.py", _b64(b"comma"), "5"],  # csv quotes it
    ['pkg/say "hi".py', _b64(b"quote"), "5"],  # csv quotes it and doubles the quotes
    ["pkg/ünï.py", _b64(b"unicode"), "7"],
    ["pkg/nohash.py", "", ""],
    ["pkg-1.0.dist-info/RECORD", "", ""],
]


@pytest.mark.parametrize("lineterminator", ["\r\n", "\n"], ids=["crlf-as-pip-writes", "lf"])
def test_every_row_is_found_as_csv_reads_it(tmp_path: Path, lineterminator: str) -> None:
    record = _write(tmp_path / "RECORD", ROWS, lineterminator)
    parsed = {row[0]: row for row in csv.reader(io.StringIO(record.read_text(encoding="utf-8"), newline=""))}
    for path, row in parsed.items():
        assert dist_record.row(record, path) == row
        assert dist_record.lists(record, path)
    assert dist_record.sha256_of(record, "pkg/a,b.py") == hashlib.sha256(b"comma").hexdigest()
    assert dist_record.sha256_of(record, 'pkg/say "hi".py') == hashlib.sha256(b"quote").hexdigest()
    assert dist_record.sha256_of(record, "pkg/ünï.py") == hashlib.sha256(b"unicode").hexdigest()
    assert dist_record.sha256_of(record, "pkg/nohash.py") is None  # listed, without a hash
    assert dist_record.digest(record) == hashlib.sha256(record.read_bytes()).hexdigest()


def test_a_path_is_matched_whole_never_as_a_suffix_or_prefix(tmp_path: Path) -> None:
    record = _write(tmp_path / "RECORD", [["vendor/pkg/a.py", _b64(b"x"), "1"], ["pkg/a.pyi", _b64(b"y"), "1"]], "\r\n")
    assert not dist_record.lists(record, "pkg/a.py")
    assert not dist_record.lists(record, "a.py")
    assert dist_record.lists(record, "vendor/pkg/a.py")


def test_the_last_row_naming_a_file_wins(tmp_path: Path) -> None:
    """As a dict built from the rows would have it (a RECORD rewritten by hand or by a tool)."""
    record = _write(tmp_path / "RECORD", [["pkg/a.py", _b64(b"old"), "3"], ["pkg/b.py", _b64(b"b"), "1"],
                                          ["pkg/a.py", _b64(b"new"), "3"]], "\r\n")
    assert dist_record.sha256_of(record, "pkg/a.py") == hashlib.sha256(b"new").hexdigest()


def test_a_changed_record_is_read_again(tmp_path: Path) -> None:
    record = _write(tmp_path / "RECORD", [["pkg/a.py", _b64(b"one"), "3"]], "\r\n")
    assert dist_record.sha256_of(record, "pkg/a.py") == hashlib.sha256(b"one").hexdigest()
    assert dist_record.digest(record) == hashlib.sha256(record.read_bytes()).hexdigest()
    replacement = _write(tmp_path / "RECORD.new", [["pkg/a.py", _b64(b"two"), "3"], ["pkg/c.py", _b64(b"c"), "1"]], "\r\n")
    os.replace(replacement, record)  # as pip does: a new file (new inode) in its place
    assert dist_record.sha256_of(record, "pkg/a.py") == hashlib.sha256(b"two").hexdigest()
    assert dist_record.digest(record) == hashlib.sha256(record.read_bytes()).hexdigest()
    assert dist_record.lists(record, "pkg/c.py")


def test_a_missing_or_unreadable_record_lists_nothing(tmp_path: Path) -> None:
    assert dist_record.row(tmp_path / "RECORD", "pkg/a.py") is None
    assert dist_record.digest(tmp_path / "RECORD") == ""
    (tmp_path / "dir").mkdir()
    assert not dist_record.lists(tmp_path / "dir", "pkg/a.py")
    garbled = tmp_path / "RECORD"
    garbled.write_bytes(b"pkg/a.py,sha256=not base64!,3\r\n")
    assert dist_record.lists(garbled, "pkg/a.py") and dist_record.sha256_of(garbled, "pkg/a.py") is None


def test_a_record_that_is_a_fifo_is_unreadable_not_a_read_that_blocks(tmp_path: Path) -> None:
    """A reader that blocked on it would be fed the real rows (so the test ends either way);
    radpatch must see a FIFO, not those rows."""
    record = _write(tmp_path / "RECORD", [["pkg/a.py", _b64(b"a"), "1"]], "\r\n")
    with fifo_in_place_of(record):
        assert not dist_record.lists(record, "pkg/a.py")
        assert dist_record.digest(record) == ""
