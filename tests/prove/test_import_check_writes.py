"""`apply --import-check` on an import that writes next to its own `__file__` (a cache file, a
directory of compiled kernels, a data file rewritten): the check ran the import from the install,
so a dry run left new and changed files in it (fb38 #2). Now each subprocess imports from a copy of
the changed package (prove/import_overlay.py), and the install is byte for byte as it was.

Generated: what the import writes (a new file, a new directory with a file, an existing data file
rewritten, a new file in the package's parent directory) times who writes it (the patched module,
an unchanged module it imports, a module that imports it, run after it) times where the patched
module sits (the package's top, a subpackage). The oracle hashes the whole site tree, directories
and files, before and after; and a fresh interpreter importing the same code from a copy of the
site does write there, so the write is real."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from radpatch.prove.import_overlay import LINK_FROM
from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site, tree_digest

WRITES = {  # module-level code writing next to the module's own file
    "new-file": "open(os.path.join(_here, 'cache.json'), 'w').write('{}')\n",
    "new-directory": "os.makedirs(os.path.join(_here, 'kernels'), exist_ok=True)\n"
    "open(os.path.join(_here, 'kernels', 'k.bin'), 'wb').write(b'k')\n",
    "rewrite-data": "open(os.path.join(_here, 'data.txt'), 'a').write('more\\n')\n",
    "parent-directory": "open(os.path.join(os.path.dirname(_here), 'marker'), 'w').write('x')\n",
}
WHO = ("patched", "imported", "importer")
WHERE = {"top": "icw", "subpackage": "icw.sub"}
WRITER = "import os\n\n_here = os.path.dirname(os.path.abspath(__file__))\n{write}"


@pytest.mark.parametrize(("write", "who", "where"), sample(itertools.product(WRITES, WHO, WHERE)))
def test_an_import_writing_next_to_its_file_leaves_the_install_as_it_was(
    site: Site, write_registry: Any, radpatch: Any, tmp_path: Path, write: str, who: str, where: str
) -> None:
    package = WHERE[where]
    folder = package.replace(".", "/")
    writer = WRITER.format(write=WRITES[write])
    core = (
        (writer if who == "patched" else "") + ("from . import helper\n" if who == "imported" else "") + "LIMIT = 3\n"
    )
    files = {"icw/__init__.py": "", f"{folder}/core.py": core, f"{folder}/data.txt": "data\n"}
    if where == "subpackage":
        files["icw/sub/__init__.py"] = ""
    if who == "imported":
        files[f"{folder}/helper.py"] = writer
    if who == "importer":
        files[f"{folder}/user.py"] = f"from {package} import core\n\nX = core.LIMIT\n" + writer
    site.install("icw", "1.0", files)
    copy = tmp_path / "oracle"
    shutil.copytree(site.root, copy)
    last = "user" if who == "importer" else "core"
    run = f"import sys; sys.path.insert(0, {str(copy)!r}); import {package}.core, {package}.{last}"
    assert subprocess.run([sys.executable, "-I", "-B", "-c", run], capture_output=True).returncode == 0
    assert tree_digest(copy) != tree_digest(site.root)  # the import does write next to its file
    spec = json.dumps({"scope": "<module>", "find": "LIMIT = 3", "with": "LIMIT = 5"})
    entry = (
        entry_head("writes", "icw", {"core": f"{package}.core"}) + f"  - id: r\n    file: core\n    replace: {spec}\n"
    )
    before = tree_digest(site.root)

    r = radpatch("--registry", str(write_registry("wr", entry)), "apply", "--dry-run", "--import-check", "wr")

    assert r.code == 0, r
    assert r.out.splitlines()[0] == f"wr: import check: {package}.core imports once patched ({sys.executable})", r
    assert tree_digest(site.root) == before, "the import check wrote into the install"


@pytest.mark.parametrize("odd", ["fifo", "unreadable", "large"])
def test_a_package_holding_a_file_that_is_not_copied_as_is_is_still_checked(
    site: Site, write_registry: Any, radpatch: Any, odd: str
) -> None:
    """A named pipe (copying it blocks or fails), a file this user cannot read, a file past
    import_overlay.LINK_FROM: the copy leaves the first out and links the others, and the check runs."""
    site.install("icw", "1.0", {"icw/__init__.py": "", "icw/core.py": "import os\n\nLIMIT = 3\n"})
    where = site.root / "icw" / "odd.bin"
    if odd == "fifo":
        os.mkfifo(where)
    else:
        where.write_bytes(b"\0" * (LINK_FROM + 1) if odd == "large" else b"secret")
    spec = json.dumps({"scope": "<module>", "find": "LIMIT = 3", "with": "LIMIT = 5"})
    entry = entry_head("writes", "icw", {"core": "icw.core"}) + f"  - id: r\n    file: core\n    replace: {spec}\n"
    before = tree_digest(site.root)  # a pipe: by its name
    if odd == "unreadable":
        where.chmod(0)

    r = radpatch("--registry", str(write_registry("wr", entry)), "apply", "--dry-run", "--import-check", "wr")

    assert r.code == 0, r
    assert r.out.splitlines()[0] == f"wr: import check: icw.core imports once patched ({sys.executable})", r
    where.chmod(0o600)
    assert tree_digest(site.root) == before
