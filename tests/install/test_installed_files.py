"""What radpatch reads of an installation (radpatch/install/): dist-info files and modules that are
FIFOs are never read until a writer comes, odd METADATA and direct_url.json are clear errors or
harmless, never a hang or a traceback.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.lib.fifo import fifo_in_place_of
from tests.lib.site import Site


@pytest.mark.parametrize("name", ["METADATA", "RECORD", "direct_url.json"])
def test_a_dist_info_file_that_is_a_fifo_is_never_read_until_a_writer_comes(
    site: Site, toy: Path, radpatch, name: str
) -> None:  # type: ignore[no-untyped-def]
    """The helper feeds a reader that blocked the real bytes, so a blocking read would look like
    a normal run; what radpatch must do instead is treat the file as unreadable."""
    path = site.root / "toypkg-1.0.dist-info" / name
    if not path.exists():
        path.write_text('{"url": "file:///src/toypkg", "dir_info": {}}')
    with fifo_in_place_of(path):
        r = radpatch("--registry", str(toy), "status", "--json", "toy")
    if name == "METADATA":  # no version: nothing can be decided
        assert r.code == 4 and "cannot read METADATA (not a regular file)" in r.err, r.err
    else:  # without RECORD (or direct_url.json) the files themselves decide
        assert r.code == 0 and json.loads(r.out)[0]["state"] == "not-applied", (r.out, r.err)
    if name == "RECORD":  # and a RECORD that cannot be read vouches for nothing
        with fifo_in_place_of(path):
            assert radpatch("--registry", str(toy), "apply", "toy").code == 0
        assert json.loads(radpatch("--registry", str(toy), "status", "--json", "toy").out)[0]["state"] == "applied"


@pytest.mark.parametrize("content", ['{"dir_info": 1}', '{"dir_info": {"editable": "yes"}}', "[" * 200_000, "[]"])
def test_a_malformed_direct_url_json_means_not_editable(site: Site, toy: Path, radpatch, content: str) -> None:  # type: ignore[no-untyped-def]
    (site.root / "toypkg-1.0.dist-info" / "direct_url.json").write_text(content)
    r = radpatch("--registry", str(toy), "status", "--json", "toy")
    assert r.code == 0 and json.loads(r.out)[0]["state"] == "not-applied", (r.out, r.err)


def test_a_metadata_description_of_one_endless_line_is_not_read_to_its_end(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    metadata = site.root / "toypkg-1.0.dist-info" / "METADATA"
    metadata.write_text("Metadata-Version: 2.1\nName: toypkg\nVersion: 1.0\nSummary: " + "x" * (3 << 20))
    r = radpatch("--registry", str(toy), "status", "--json", "toy")
    assert r.code == 0 and json.loads(r.out)[0]["state"] == "not-applied", (r.out, r.err)


def test_an_installed_version_too_long_to_convert_is_a_clear_error(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    metadata = site.root / "toypkg-1.0.dist-info" / "METADATA"
    metadata.write_text("Metadata-Version: 2.1\nName: toypkg\nVersion: 1." + "0" * 4400 + "\n\n")
    r = radpatch("--registry", str(toy), "status", "toy")
    assert r.code == 4 and "METADATA: no valid Version (found '1.000" in r.err, r.err
    assert "internal error" not in r.err and len(r.err.splitlines()) <= 2 and len(r.err) < 400


def test_a_version_past_the_first_mebibyte_of_metadata_is_not_read(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    metadata = site.root / "toypkg-1.0.dist-info" / "METADATA"
    metadata.write_text("Metadata-Version: 2.1\nSummary: " + "x" * (3 << 20) + "\nName: toypkg\nVersion: 1.0\n\n")
    r = radpatch("--registry", str(toy), "status", "toy")
    assert r.code == 4 and "METADATA: no valid Version (found None)" in r.err, r.err


def test_an_installed_module_that_is_a_fifo_is_an_error_not_a_hang(site: Site, toy: Path, radpatch) -> None:  # type: ignore[no-untyped-def]
    module = site.root / "toypkg/core.py"
    with fifo_in_place_of(module):
        r = radpatch("--registry", str(toy), "apply", "toy")
        assert stat.S_ISFIFO(module.lstat().st_mode)  # nothing was written over it
    assert r.code == 4 and "cannot read" in r.err and "not a regular file" in r.err, r.err
