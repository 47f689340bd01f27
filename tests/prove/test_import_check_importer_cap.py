"""`apply --import-check`'s importers are capped (prove/import_importers.MAX_IMPORTERS): they were the
first 64 direct importers in name order, so 64 modules named before it hid the one importer a patch
breaks, and the line read "imports once patched" (fb38 #2). Now they are taken nearest first (the
direct importers, then the modules importing those), and the line says how many went unchecked.

Generated: the importer the patch breaks (pp/zz_other.py: importing pp.mod, or a hub that does)
times what fills the package besides (modules importing pp.mod directly, modules importing a hub
that imports it, modules of a subpackage whose `__init__` imports it) times how many (under the cap,
over it). The oracle is a fresh interpreter
importing pp.zz_other with the patched file in place: it fails, so apply refuses naming it, or, when
the cap leaves it out, says how many it did not check."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from radpatch.prove.import_importers import MAX_FARTHER_PARSES, MAX_IMPORTERS
from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

MOD = "def helper(x):\n    return x\n"
BROKEN = {  # the module the patch breaks, at distance 1 or 2 from pp.mod: its files, its distance
    "direct": ({"pp/zz_other.py": "from pp.mod import helper\n\nX = helper(1) + 1\n"}, 1),
    "second": (
        {
            "pp/zz_hub.py": "from pp.mod import helper\n",
            "pp/zz_other.py": "from pp.zz_hub import helper\n\nX = helper(1) + 1\n",
        },
        2,
    ),
}
FILLERS = {  # kind: (files for n fillers, how many of them import pp.mod at distance 1, at distance 2)
    "direct": lambda n: ({f"pp/a{i:03d}.py": "import pp.mod\n" for i in range(n)}, n, 0),
    "via-hub": lambda n: (
        {"pp/hub.py": "from pp import mod\n"} | {f"pp/a{i:03d}.py": "import pp.hub\n" for i in range(n)},
        1,
        n,
    ),
    "subpackage": lambda n: (
        {"pp/a_sub/__init__.py": "from pp.mod import helper\n"}
        | {f"pp/a_sub/m{i:03d}.py": "from pp.a_sub import helper\n" for i in range(n)},
        1,
        n,
    ),
}
COUNTS = (3, MAX_IMPORTERS + 6)


def _fails_patched(site: Path, tmp_path: Path) -> bool:
    """The oracle: pp.zz_other imported by a fresh interpreter with the patched pp/mod.py first on its path."""
    copy = tmp_path / "oracle"
    shutil.copytree(site / "pp", copy / "pp")
    (copy / "pp" / "mod.py").write_text(MOD.replace("return x", "return x[0]"))
    code = f"import sys; sys.path.insert(0, {str(copy)!r}); import pp.zz_other"
    return subprocess.run([sys.executable, "-I", "-B", "-c", code], capture_output=True).returncode != 0


@pytest.mark.parametrize(("broken", "kind", "count"), sample(itertools.product(BROKEN, FILLERS, COUNTS)))
def test_the_importer_cap_takes_the_nearest_first_and_says_what_it_left(
    site: Site, write_registry: Any, radpatch: Any, tmp_path: Path, broken: str, kind: str, count: int
) -> None:
    files, near, far = FILLERS[kind](count)
    own, distance = BROKEN[broken]
    site.install("pp", "1.0", {"pp/__init__.py": "", "pp/mod.py": MOD, **own, **files})
    entry = entry_head("importers", "pp", {"mod": "pp.mod"})
    entry += '  - id: r\n    file: mod\n    replace: {scope: helper, find: "return x", with: "return x[0]"}\n'
    assert _fails_patched(site.root, tmp_path)

    r = radpatch("--registry", str(write_registry("im", entry)), "apply", "--dry-run", "--import-check", "im")

    near += len(own) - 1  # zz_hub: a direct importer
    ahead = near + (far if distance == 2 else 0)  # taken before zz_other (nearer, or named before it)
    if ahead < MAX_IMPORTERS:
        assert r.code == 1, r
        assert "importing pp.zz_other after it (it imports pp.mod): TypeError: " in r.err, r.err
        return
    assert r.code == 0, r
    # found: the modules up to the distance that fills the cap (zz_other among them, or farther)
    found = near + 1 if distance == 1 else near if near >= MAX_IMPORTERS else near + far + 1
    first = r.out.splitlines()[0]
    said = f"; of the modules that import it, {MAX_IMPORTERS} were checked, nearest first: "
    left = f"{found - MAX_IMPORTERS} more found were not checked, nor were farther ones looked for"
    assert first.endswith(said + left), first  # the search stopped at the distance that filled the cap


@pytest.mark.parametrize("named", [MAX_FARTHER_PARSES - 10, MAX_FARTHER_PARSES + 10])
def test_a_search_past_the_direct_importers_is_bounded_and_says_so(
    site: Site, write_registry: Any, radpatch: Any, named: int
) -> None:
    """Past the direct importers the search parses at most MAX_FARTHER_PARSES files (vLLM's tree took
    12 s): modules naming the hub without importing it fill that budget, and the line says how many
    were checked (not the cap's 64) and that farther ones were not looked for."""
    files = {f"pp/a{i:03d}.py": "# hub\nX = 1\n" for i in range(named)}
    files |= {"pp/hub.py": "from pp.mod import helper\n", "pp/zz_far.py": "from pp.hub import helper\n"}
    site.install("pp", "1.0", {"pp/__init__.py": "", "pp/mod.py": MOD, **files})
    entry = entry_head("importers", "pp", {"mod": "pp.mod"})
    entry += '  - id: r\n    file: mod\n    replace: {scope: helper, find: "return x", with: "return x + 1"}\n'

    r = radpatch("--registry", str(write_registry("im", entry)), "apply", "--dry-run", "--import-check", "im")

    assert r.code == 0, r
    first = r.out.splitlines()[0]
    if named + 1 <= MAX_FARTHER_PARSES:  # every file naming the hub parsed: pp.zz_far found, nothing left
        assert first == f"im: import check: pp.mod imports once patched ({sys.executable})", first
    else:
        said = "; of the modules that import it, 1 was checked, nearest first: farther ones were not looked for"
        assert first.endswith(said), first
