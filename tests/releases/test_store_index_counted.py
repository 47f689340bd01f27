"""The store index's reads counted in verify's `fetched` bytes and said in its progress (issue 23).

A rename in a package over verify's file budget builds the release's store index: every `.py` file of
the package read by range requests (vLLM 0.33.0: 11.6 MiB). Those reads, and the files a rename's
rules read past verify's own fetches, were in neither `fetched.bytes` nor the progress lines: verify
said it read a few KiB while it read megabytes. The oracle is the loopback index's own log of every
byte it sent; the second run reads the kept index and sends nothing more for it."""

from __future__ import annotations

import json
from typing import Any

from tests.lib.toy_releases import DIST, GOOD, RENAME_ENTRY

ENTRY = RENAME_ENTRY
FILLERS = 650  # more than package_files.MAX_FILES (600): the store index picks the modules read


def _release() -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        "rptoy/__init__.py": "",
        "rptoy/core.py": "from rptoy import planning\n\nsize = planning.size_of\n",
        "rptoy/planning.py": GOOD.replace("def size(", "def size_of("),
        "rptoy/hook.py": "from rptoy import core\n\ncore.width = 1\n",
        "rptoy/fill/__init__.py": "",
    }
    for i in range(FILLERS):
        files[f"rptoy/fill/m{i:04d}.py"] = f"class C:\n    pass\n\n\nC.width = {i}\n"
    return files


def test_the_store_index_reads_are_counted_and_said(loopback: Any, write_registry: Any, radpatch: Any) -> None:
    index = loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": _release()})
    reg = write_registry("cap", ENTRY)
    for run in range(2):
        before = index.sent()
        got = radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json")
        told = json.loads(got.out)
        assert "moved: size is now rptoy.planning.size_of" in (told["results"][0]["error"] or ""), told
        assert told["fetched"]["bytes"] == index.sent() - before, (told["fetched"], index.sent() - before)
        indexing = [line for line in got.err.splitlines() if "indexing the stores of" in line]
        assert len(indexing) == (1 if run == 0 else 0), got.err
