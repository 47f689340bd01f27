"""A rename in a package of more than 600 `.py` files, as vLLM's (issue 23, port49): the declared module
binds the old name to the renamed definition (`size = planning.size_of`), and another module of the
package may store the name. verify read no other module of such a package (more than
package_files.MAX_FILES), so the cell said "a store from another module of the package cannot be ruled
out" for every rename there. Now the package's store index (releases.store_index: per module, the
attribute names it stores or deletes and its setattr-like calls' names) picks the modules that may
store the name, the rules read those: a store elsewhere refuses at its file:line, none follows the
rename (moved, proven under the new name).

Generated: the store in another module (none, an unrelated one, the old or the new name stored,
`setattr` by name or by a computed name, `del`; code run by `exec` or `eval` that stores it (port49, #4),
or constant code that never names it) x where that module sits among 650 others. The oracle:
Python imports every module of the release and asks whether `rptoy.core.size` is still the renamed
definition; the rename is followed exactly where it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.toy_releases import DIST, GOOD, RENAME_ENTRY, RENAMED, renamed_intact

ENTRY = RENAME_ENTRY
FILLERS = 650  # more than package_files.MAX_FILES (600)
STORES = {
    "no store": "",
    "an unrelated store": "from rptoy import core\n\ncore.other = 1  # STORE\nsetattr(core, 'width', 2)\n",
    "the old name stored": "from rptoy import core\n\ncore.size = lambda items: 99  # STORE\n",
    "the new name stored": "import rptoy.planning as p\n\np.size_of = lambda items: 99  # STORE\n",
    "setattr by name": "import rptoy.core\n\nsetattr(rptoy.core, 'size', len)  # STORE\n",
    "setattr by a computed name": "import rptoy.core\n\nname = 'si' + 'ze'\nsetattr(rptoy.core, name, len)  # STORE\n",
    "del": "from rptoy import core\n\ndel core.size  # STORE\n",
    "exec'd code": "from rptoy import core\n\nexec('core.size = len')  # STORE\n",
    "exec'd computed code": "from rptoy import core\n\ncode = 'core.si' + 'ze = len'\nexec(code)  # STORE\n",
    "eval's walrus": "from rptoy import core\n\neval('(size := len)', vars(core))  # STORE\n",
    "exec'd unrelated code": "exec('x = 1')  # STORE\n",
}
WHERE = {"first": "rptoy/aaa.py", "among the others": "rptoy/fill/m0321.py", "last, deep": "rptoy/zz/deep/hook.py"}
CASES = sample([(s, w) for s in STORES for w in WHERE])


def _release(store: str, where: str) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        "rptoy/__init__.py": "",
        "rptoy/core.py": "from rptoy import planning\n\nsize = planning.size_of\n",
        "rptoy/planning.py": RENAMED,
        "rptoy/fill/__init__.py": "",
        "rptoy/zz/__init__.py": "",
        "rptoy/zz/deep/__init__.py": "",
    }
    for i in range(FILLERS):  # attribute reads of the name and stores of others: no store of it
        files[f"rptoy/fill/m{i:04d}.py"] = f"class C:\n    pass\n\n\nC.width = {i}\nS = getattr(C, 'size', None)\n"
    if STORES[store]:
        files[WHERE[where]] = STORES[store]
    return files


@pytest.mark.parametrize(("store", "where"), CASES, ids=["-".join(c) for c in CASES])
def test_a_rename_in_a_large_package_reads_the_modules_that_may_store_it(
    loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path, store: str, where: str
) -> None:
    second = _release(store, where)
    intact = renamed_intact(tmp_path / "oracle", second)
    loopback(DIST, {"1.0": {"rptoy/__init__.py": "", "rptoy/core.py": GOOD}, "2.0": second})
    reg = write_registry("cap", ENTRY)
    told = json.loads(radpatch("--registry", str(reg), "verify", "cap", "--versions", "2.0", "--json").out)
    table = json.loads(radpatch("--registry", str(reg), "verify", "cap", "cap", "--versions", "2.0", "--json").out)
    (cell,) = table["matrix"][0]["cells"]
    error = told["results"][0]["error"] or ""
    assert "cannot be ruled out" not in error + (cell["detail"] or ""), (error, cell)
    if intact:
        assert "not followed" not in error and "moved: size is now rptoy.planning.size_of" in error, error
        assert cell["cell"] == "moved" and cell["proven"], cell
        return
    rel = WHERE[where]
    line = next(i for i, t in enumerate(str(second[rel]).splitlines(), 1) if "# STORE" in t)
    for words in (error, cell["detail"] or ""):
        assert "is not followed as a rename" in words and f"{rel}:{line}" in words, words
    assert cell["cell"] == "no match", cell
