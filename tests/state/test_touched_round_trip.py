"""What a rewrite changes (`state.touched`) is kept in the applied entry's record and read back for
the overlap checks of later runs: read back, it must be the very `Touch` the registry gives, for
every operation (gz23c: `names`, filled for `insert_definitions`, came back as a list, so a touch
from a record was neither equal to nor hashable like the one it was written from)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from packaging.version import Version

from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops import OPERATIONS
from radpatch.state import touched
from tests.lib.registry import toy_entry_with
from tests.lib.registry import write_toy as write


@pytest.mark.parametrize("key", list(OPERATIONS))
def test_a_touch_read_back_from_the_record_is_the_one_written(tmp_path: Path, key: str) -> None:
    example = OPERATIONS[key].EXAMPLE.replace("../patches/kv_group_size/payload.py", "payload.py")  # type: ignore[attr-defined]
    patch = load_patch(write(tmp_path, toy_entry_with(f"- {key}:\n" + textwrap.indent(example, "    ") + "\n")))
    written = touched.of(patch, Version("1.0"))
    assert written, key
    back = touched.parse(json.loads(json.dumps(touched.plain(written))))
    assert back == written
    assert {hash(t) for t in back} == {hash(t) for t in written}
