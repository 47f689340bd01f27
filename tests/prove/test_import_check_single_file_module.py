"""`apply --import-check` on a top-level module that is one file (`mod.py`, no package) whose import
reads data beside it (imp39, issue 21 I5): the check copied only `mod.py` into its temporary
directory, so the import read a missing file, failed patched and pristine alike, and the line
said `inconclusive` for a patch that imports fine. Now what lies beside a one-file module that is
not code comes with it: data files copied (or linked, from 1 MiB), directories that are not
packages copied when they hold only data, else linked.

Generated: what the module reads (a data file beside it, a file in a data directory beside it, a
data file of LINK_FROM bytes) times how it finds it (`os.path.dirname(__file__)`,
`pathlib.Path(__file__).resolve().parent`) times whether the module also writes there (a cache
file beside the data). The oracle: a fresh interpreter imports the patched module from
the install; the check says it imports once patched; the site tree is byte for byte as before."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from typing import Any

import pytest

from radpatch.prove.import_overlay import LINK_FROM
from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site, tree_digest

DATA = {  # relpath beside the module -> its size
    "file": ("rpsm_table.json", 64),
    "directory": ("rpsm_assets/table.json", 64),
    "large": ("rpsm_weights.bin", LINK_FROM + 1),
}
FIND = {
    "dirname": "import os\n_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), {rel!r})\n",
    "pathlib": "import pathlib\n_path = pathlib.Path(__file__).resolve().parent / {rel!r}\n",
}
WRITE = {"reads": "", "writes-too": "open(str(_path) + '.cache', 'w').write('x')\n"}
MODULE = "{find}with open(_path, 'rb') as _f:\n    SIZE = len(_f.read())\n{write}LIMIT = 3\n"


@pytest.mark.parametrize(("data", "find", "write"), sample(itertools.product(DATA, FIND, WRITE)))
def test_a_one_file_module_reads_the_data_beside_it_in_the_check(
    site: Site, write_registry: Any, radpatch: Any, data: str, find: str, write: str
) -> None:
    rel, size = DATA[data]
    site.install("rpsm", "1.0", {"rpsm.py": MODULE.format(find=FIND[find].format(rel=rel), write=WRITE[write])})
    (site.root / rel).parent.mkdir(parents=True, exist_ok=True)
    (site.root / rel).write_bytes(b"0" * size)
    if data == "directory":
        (site.root / "rpsm_assets" / "unrelated.txt").write_text("x")
    run = f"import sys; sys.path.insert(0, {str(site.root)!r}); import rpsm; assert rpsm.SIZE == {size}"
    done = subprocess.run([sys.executable, "-I", "-B", "-c", run], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr  # the module imports from the install
    for cache in site.root.rglob("*.cache"):
        cache.unlink()
    spec = json.dumps({"scope": "<module>", "find": "LIMIT = 3", "with": "LIMIT = 5"})
    entry = entry_head("sm", "rpsm", {"core": "rpsm"}) + f"  - id: r\n    file: core\n    replace: {spec}\n"
    before = tree_digest(site.root)

    r = radpatch("--registry", str(write_registry("sm", entry)), "apply", "--dry-run", "--import-check", "sm")

    assert r.code == 0, r
    assert r.out.splitlines()[0] == f"sm: import check: rpsm imports once patched ({sys.executable})", r
    assert tree_digest(site.root) == before
