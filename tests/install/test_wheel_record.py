"""wheel_record: a RECORD's rows found by searching its bytes, as csv would read them."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import itertools
import os
from pathlib import Path

import pytest

from radpatch.install import wheel_record
from tests.lib.fifo import fifo_in_place_of
from tests.lib.generated import sample
from tests.lib.site import record_hash


def _b64(data: bytes) -> str:
    return "sha256=" + record_hash(data)


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


def _as_a_dict_of_csv_rows(data: bytes) -> tuple[set[str], dict[str, str]]:
    """What the RECORD means, read the way radpatch read it before (csv over the whole file, a
    dict of the rows with a sha256: the last one wins), plus every path listed."""
    listed, hashed = set(), {}
    for row in csv.reader(io.StringIO(data.decode("utf-8", "surrogateescape"), newline="")):
        if row:
            listed.add(row[0])
        if len(row) >= 2 and row[1].startswith("sha256="):
            raw = row[1][7:]
            hashed[row[0]] = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).hex()
    return listed, hashed


H1, H2 = _b64(b"one"), _b64(b"two")
SHAPES = {
    "crlf, as pip writes": None,
    "lf": None,
    "cr only": f"pkg/mod.py,{H1},3\rpkg/__init__.py,{H2},4\rpkg-1.0.dist-info/RECORD,,\r".encode(),
    "cr, then lf": f"pkg/__init__.py,{H2},4\rpkg/mod.py,{H1},3\npkg/x.py,,\n".encode(),
    "a last duplicate without a hash": f"pkg/mod.py,{H1},3\r\npkg/mod.py,,\r\n".encode(),
    "sha512 after sha256": f"pkg/mod.py,{H1},3\r\npkg/mod.py,sha512=abcd,3\r\n".encode(),
    "partly quoted path": f'"pkg/mod".py,{H1},3\r\npkg/mod.py,{H2},3\r\n'.encode(),
    "a fake row inside a quoted field": f'"x\npkg/mod.py,{H2},3",,\r\npkg/mod.py,{H1},3\r\n'.encode(),
    "a utf-8 bom": f"\ufeffpkg/mod.py,{H1},3\r\npkg/ünï.py,{H2},3\r\n".encode(),
    "an open quote": f'pkg/mod.py,{H1},3\r\n"pkg/open,,\r\n'.encode(),
    "not utf-8": b"pkg/\xff.py," + H2.encode() + b",3\r\npkg/mod.py," + H1.encode() + b",3\r\n",
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_row_means_what_csv_reads_in_it(tmp_path: Path, shape: str) -> None:
    record = tmp_path / "RECORD"
    data = SHAPES[shape]
    if data is None:
        _write(record, ROWS, "\r\n" if shape.startswith("crlf") else "\n")
    else:
        record.write_bytes(data)
    listed, hashed = _as_a_dict_of_csv_rows(record.read_bytes())
    for path in sorted(listed | {"pkg/mod.py", "pkg/none.py", "mod.py", "pkg/mod"}):
        assert wheel_record.lists(record, path) == (path in listed), path
        assert wheel_record.sha256_of(record, path) == hashed.get(path), path
    assert wheel_record.digest(record) == hashlib.sha256(record.read_bytes()).hexdigest()


def test_csv_quoting_and_a_row_without_a_hash(tmp_path: Path) -> None:
    record = _write(tmp_path / "RECORD", ROWS, "\r\n")
    assert wheel_record.sha256_of(record, "pkg/a,b.py") == hashlib.sha256(b"comma").hexdigest()
    assert wheel_record.sha256_of(record, 'pkg/say "hi".py') == hashlib.sha256(b"quote").hexdigest()
    assert wheel_record.sha256_of(record, "pkg/ünï.py") == hashlib.sha256(b"unicode").hexdigest()
    assert wheel_record.lists(record, "pkg/nohash.py") and wheel_record.sha256_of(record, "pkg/nohash.py") is None


def test_a_path_is_matched_whole_never_as_a_suffix_or_prefix(tmp_path: Path) -> None:
    record = _write(tmp_path / "RECORD", [["vendor/pkg/a.py", _b64(b"x"), "1"], ["pkg/a.pyi", _b64(b"y"), "1"]], "\r\n")
    assert not wheel_record.lists(record, "pkg/a.py")
    assert not wheel_record.lists(record, "a.py")
    assert wheel_record.lists(record, "vendor/pkg/a.py")


def test_the_last_row_naming_a_file_wins(tmp_path: Path) -> None:
    """As a dict built from the rows would have it (a RECORD rewritten by hand or by a tool)."""
    record = _write(
        tmp_path / "RECORD",
        [["pkg/a.py", _b64(b"old"), "3"], ["pkg/b.py", _b64(b"b"), "1"], ["pkg/a.py", _b64(b"new"), "3"]],
        "\r\n",
    )
    assert wheel_record.sha256_of(record, "pkg/a.py") == hashlib.sha256(b"new").hexdigest()


def test_a_changed_record_is_read_again(tmp_path: Path) -> None:
    record = _write(tmp_path / "RECORD", [["pkg/a.py", _b64(b"one"), "3"]], "\r\n")
    assert wheel_record.sha256_of(record, "pkg/a.py") == hashlib.sha256(b"one").hexdigest()
    assert wheel_record.digest(record) == hashlib.sha256(record.read_bytes()).hexdigest()
    replacement = _write(
        tmp_path / "RECORD.new", [["pkg/a.py", _b64(b"two"), "3"], ["pkg/c.py", _b64(b"c"), "1"]], "\r\n"
    )
    os.replace(replacement, record)  # as pip does: a new file (new inode) in its place
    assert wheel_record.sha256_of(record, "pkg/a.py") == hashlib.sha256(b"two").hexdigest()
    assert wheel_record.digest(record) == hashlib.sha256(record.read_bytes()).hexdigest()
    assert wheel_record.lists(record, "pkg/c.py")


def test_a_missing_or_unreadable_record_lists_nothing(tmp_path: Path) -> None:
    assert not wheel_record.lists(tmp_path / "RECORD", "pkg/a.py")
    assert wheel_record.digest(tmp_path / "RECORD") == ""
    (tmp_path / "dir").mkdir()
    assert not wheel_record.lists(tmp_path / "dir", "pkg/a.py")
    garbled = tmp_path / "RECORD"
    garbled.write_bytes(b"pkg/a.py,sha256=not base64!,3\r\n")
    assert wheel_record.lists(garbled, "pkg/a.py") and wheel_record.sha256_of(garbled, "pkg/a.py") is None
    nul = tmp_path / "nul" / "RECORD"
    nul.parent.mkdir()
    nul.write_bytes(
        b"pkg/a.py," + H1.encode() + b",3\r\npkg/\0.py,,\r\n"
    )  # csv refuses a NUL on 3.10: nothing listed there
    assert wheel_record.sha256_of(nul, "pkg/a.py") in (None, hashlib.sha256(b"one").hexdigest())


def test_a_record_that_is_a_fifo_is_unreadable_not_a_read_that_blocks(tmp_path: Path) -> None:
    """A reader that blocked on it would be fed the real rows (so the test ends either way);
    radpatch must see a FIFO, not those rows."""
    record = _write(tmp_path / "RECORD", [["pkg/a.py", _b64(b"a"), "1"]], "\r\n")
    with fifo_in_place_of(record):
        assert not wheel_record.lists(record, "pkg/a.py")
        assert wheel_record.digest(record) == ""


PER_INSTALL = ("direct_url.json", "INSTALLER", "REQUESTED")


@pytest.mark.parametrize(
    ("dropped", "varied", "terminator"),
    sample(itertools.product(range(1 << len(PER_INSTALL)), ("nothing", "per-install", "module"), ("\r\n", "\n"))),
)
def test_the_install_identity_ignores_only_the_rows_pip_writes_per_install(
    tmp_path: Path, dropped: int, varied: str, terminator: str
) -> None:
    """att21 F6: two RECORDs of the same files are the same install, whatever pip wrote per install
    (a direct_url.json of another wheel file, another INSTALLER, REQUESTED or not); a module's row that
    differs is another install. A record holding either spelling (its identity, or RECORD's sha256 as
    formats 2 to 4 wrote) speaks for the install."""
    info = "pkg-1.0.dist-info"

    def rows(url: bytes, module: bytes, keep: int) -> list[list[str]]:
        extra = {"direct_url.json": url, "INSTALLER": b"pip\n", "REQUESTED": b""}
        kept = [n for i, n in enumerate(PER_INSTALL) if keep >> i & 1]
        listed = [[f"{info}/{n}", _b64(extra[n]), str(len(extra[n]))] for n in kept]
        return sorted([*listed, [f"{info}/METADATA", _b64(b"m"), "1"], ["pkg/mod.py", _b64(module), "3"]]) + [
            [f"{info}/RECORD", "", ""]
        ]

    first = _write(tmp_path / "R1", rows(b"url-1", b"x=1", 0b111), terminator)
    url, module, keep = {
        "nothing": (b"url-1", b"x=1", 0b111),
        "per-install": (b"url-2", b"x=1", dropped),
        "module": (b"url-1", b"x=2", dropped),
    }[varied]
    second = _write(tmp_path / "R2", rows(url, module, keep), terminator)
    one, two = wheel_record.identity(first), wheel_record.identity(second)
    assert (one.files == two.files) == (varied != "module")
    assert two.record == hashlib.sha256(second.read_bytes()).hexdigest()
    assert two.holds(two.files) and two.holds(two.record) and not two.holds("")
    assert wheel_record.identity(tmp_path / "missing") == wheel_record.InstallId()
