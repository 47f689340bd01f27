"""A payload file with its own coding declaration (PEP 263) and non-ASCII text (att21c F7): it is
decoded by its own declaration, and the declaration (with a `#!` line) stays the payload file's,
never carried into the module, where on its first lines it would re-declare the module's
encoding. Generated: declaration spellings x encodings x placement, applied by the real engine
on an installed toy module, the result imported by a real interpreter, then reverted."""

from __future__ import annotations

import itertools
import subprocess
import sys
from typing import Any

import pytest

from tests.lib.registry import entry_head
from tests.lib.site import Site

MODULE = "def f():\n    return 1\n\n\ndef h():\n    return 2\n"
HEADERS = {
    "emacs": "# -*- coding: {enc} -*-\n",
    "plain": "# coding={enc}\n",
    "vim": "# vim: set fileencoding={enc} :\n",
    "shebang": "#!/usr/bin/env python3\n# coding: {enc}\n",
}
TEXTS = {"latin-1": "caf\u00e9", "cp1252": "\u20ac 5"}  # '€' is 0x80 in cp1252
WHERE = {"top": ("before", "f"), "middle": ("after", "f")}
CASES = list(itertools.product(HEADERS, TEXTS, WHERE))


@pytest.mark.parametrize(("header", "enc", "where"), CASES, ids=["-".join(c) for c in CASES])
def test_a_payload_is_read_by_its_own_coding_declaration(
    site: Site, write_registry: Any, radpatch: Any, header: str, enc: str, where: str
) -> None:
    site.install("toyenc", "1.0", {"toyenc/__init__.py": "", "toyenc/a.py": MODULE})
    target = site.root / "toyenc" / "a.py"
    side, anchor = WHERE[where]
    entry = entry_head("payload encoding", "toyenc", {"a": "toyenc.a"}) + (
        f"  - insert_definitions: {{payload: p_enc.py, {side}: {anchor}}}\n"
    )
    reg = write_registry("pe", entry)
    payload = HEADERS[header].format(enc=enc) + f"# the helper\ndef g():\n    return {TEXTS[enc]!r}\n"
    (reg / "p_enc.py").write_bytes(payload.encode(enc))

    r = radpatch("--registry", str(reg), "apply", "pe")

    assert r.code == 0, r
    patched = target.read_bytes()
    assert b"coding" not in patched and b"#!" not in patched and b"# the helper" in patched
    run = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); import toyenc.a as m; print(ascii(m.g()))",
            str(site.root),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and run.stdout.strip() == ascii(TEXTS[enc]), run
    assert radpatch("--registry", str(reg), "revert", "pe").code == 0
    assert target.read_bytes() == MODULE.encode()
