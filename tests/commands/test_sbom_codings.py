"""A module in a PEP 263 coding other than UTF-8 (latin-1, cp1252): its diff, in `radpatch diff` and in
the SBOM (made with the registry and from the record alone), holds the file's own bytes, so GNU
`patch -p1` on the pristine files rebuilds the installed bytes exactly. The diffs were decoded with
replacement characters: the context no longer matched the pristine file (patch took it with fuzz)
and a created module was written with U+FFFD where its bytes were.

Generated: codings (UTF-8 with non-ASCII, latin-1, cp1252) × an edited module and a created one ×
where the non-ASCII text sits (a comment above the edit, the edited line itself)."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.sbom import bom_of, props
from tests.lib.site import Site, record_hash

PATCH = "/usr/bin/patch"
EDIT = """\
summary: Edit
description: Widens the size.
distribution: codpkg
supported: "==1.0"
modules:
  core: codpkg.core
rewrites:
  - id: a
    replace: {{scope: size, find: '{find}', with: '{find} + 1'}}
"""
CREATE = """\
summary: Create
description: A new module.
distribution: codpkg
supported: "==1.0"
modules:
  new: codpkg.newmod
rewrites:
  - create_module: {content: payload.py}
"""


def _source(coding: str, text_on_line: bool) -> tuple[bytes, str]:
    """core.py in `coding` with a non-ASCII character in a comment, or in the string the edit changes;
    the `find` of the edit."""
    head = f"# -*- coding: {coding} -*-\n# caf\u00e9 \u00e0 la cr\u00e8me\n"
    find = 'n = len("\u00e9t\u00e9")' if text_on_line else "n = len(items)"
    return (head + f"def size(items):\n    {find}\n    return n\n").encode(coding), find


def _diff_bytes(radpatch: Any, monkeypatch: pytest.MonkeyPatch, *argv: str) -> bytes:
    """What `radpatch diff` writes to stdout, as bytes (the captured text stream would decode them)."""
    out = io.BytesIO()
    with monkeypatch.context() as m:
        m.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", write_through=True))
        assert radpatch(*argv).code == 0
    return out.getvalue()


@pytest.mark.skipif(shutil.which(PATCH) is None, reason="GNU patch is not installed")
@pytest.mark.parametrize(
    ("coding", "create", "text_on_line"),
    sample([(c, m, t) for c in ("utf-8", "latin-1", "cp1252") for m in (False, True) for t in (False, True)]),
)
def test_a_non_utf8_modules_diff_rebuilds_its_bytes(
    coding: str,
    create: bool,
    text_on_line: bool,
    site: Site,
    write_registry: Any,
    radpatch: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    core, find = _source(coding, text_on_line)
    site.install("codpkg", "1.0", {"codpkg/__init__.py": ""})
    (site.root / "codpkg/core.py").write_bytes(core)  # bytes in its coding: RECORD lists it as pip would
    with (site.root / "codpkg-1.0.dist-info/RECORD").open("a") as record:
        record.write(f"codpkg/core.py,sha256={record_hash(core)},{len(core)}\n")
    pristine = tmp_path / "pristine"
    shutil.copytree(site.root / "codpkg", pristine / "codpkg")
    name = "create" if create else "edit"
    reg = write_registry(name, CREATE if create else EDIT.format(find=find))
    if create:
        (reg / "payload.py").write_bytes(core)
    assert radpatch("--registry", str(reg), "apply", name).code == 0
    diff = _diff_bytes(radpatch, monkeypatch, "--registry", str(reg), "diff", name)
    for registry in (("--registry", str(reg)), ()):
        r = radpatch(*registry, "status", "--format", "cyclonedx")
        assert r.code == 0, r.err
        (component,) = bom_of(r.out)["components"]
        assert props(component, "radpatch:patch") == [name]
        (text,) = [p["diff"]["text"] for p in component["pedigree"]["patches"]]
        carried = base64.b64decode(text["content"]) if text.get("encoding") == "base64" else text["content"].encode()
        assert carried == diff, registry
        assert ("encoding" in text) is (coding != "utf-8"), text  # UTF-8 stays readable text
    done = subprocess.run(
        [PATCH, "-p1", "--binary", "--batch", "--forward", "--no-backup-if-mismatch", "--fuzz=0"],
        input=diff,
        cwd=pristine,
        capture_output=True,
    )
    assert done.returncode == 0, (diff, done.stdout.decode())
    rel = "codpkg/newmod.py" if create else "codpkg/core.py"
    assert (pristine / rel).read_bytes() == (site.root / rel).read_bytes()
