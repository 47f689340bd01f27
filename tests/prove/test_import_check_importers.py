"""`apply --import-check` on a patch that leaves its module importable and breaks a module of the
same package that imports it, at that module's import (issue 21, impchk36; prove/import_importers.py):
the check imported only the patched module, read "imports once patched", and `import pp.other` then
failed on the target. The modules that import it are now imported after it, and a failure only the
patch causes is refused, naming the importer.

Generated: how the other module uses the patched module at import time (a call, a class attribute, a
decorator; taken by from-import, through `from . import mod`, through `import pp.mod as m`) times
what the patch does (a signature, the attribute, the decorator's result, or a change the importer
does not see). The oracle is the target itself: the importer imported in a fresh interpreter with the
patched file in place decides refused or not.
"""

from __future__ import annotations

import itertools
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample
from tests.lib.registry import entry_head
from tests.lib.site import Site

MOD = (
    "def helper(x):\n    return x\n\n\nclass Conf:\n    SIZE = 4\n\n\ndef register(fn):\n    return fn\n\n\nLIMIT = 3\n"
)
TAKES = {  # how pp/other.py reaches pp.mod
    "from-import": "from pp.mod import helper, Conf, register\n\n",
    "from-package": "from . import mod\n\nhelper, Conf, register = mod.helper, mod.Conf, mod.register\n\n",
    "module-alias": "import pp.mod as m\n\nhelper, Conf, register = m.helper, m.Conf, m.register\n\n",
}
USES = {  # what pp/other.py does with it at import time
    "call": "X = helper(1) + 1\n",
    "class-attribute": "X = Conf.SIZE * 2\n",
    "decorator": "@register\ndef handler():\n    return 1\n\n\nX = handler()\n",
}
PATCHES = {  # (scope, find, with)
    "signature": ("helper", "return x", "return x[0]"),
    "attribute": ("Conf", "SIZE = 4", "WIDTH = 4"),
    "decorator-result": ("register", "return fn", "return None"),
    "unseen": ("<module>", "LIMIT = 3", "LIMIT = 5"),
}
CASES = sample(itertools.product(TAKES, USES, PATCHES))

ONE_MORE = '{scope: helper, find: "return x", with: "return x + 1"}'


def _imports(site: Path, module: str) -> bool:
    """The oracle: the target interpreter imports `module` from `site`, in a fresh process."""
    code = f"import sys; sys.path.insert(0, {str(site)!r}); import {module}"
    return fresh_run(sys.executable, code, (), ("-I", "-B")).returncode == 0


def _dry_run(site: Site, write_registry: Any, radpatch: Any, files: dict[str, str], replace: str) -> Any:
    """pp 1.0 installed with pp/mod.py (MOD) and `files`, an entry replacing in pp.mod as
    `replace` says, and `apply --dry-run --import-check` of it: radpatch's result."""
    site.install("pp", "1.0", {"pp/__init__.py": "", "pp/mod.py": MOD, **files})
    entry = entry_head("importers", "pp", {"mod": "pp.mod"}) + f"  - id: r\n    file: mod\n    replace: {replace}\n"
    reg = write_registry("im", entry)
    return radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "im")


@pytest.mark.parametrize(("takes", "uses", "patch"), CASES, ids=["-".join(c) for c in CASES])
def test_a_module_that_imports_the_patched_one_is_imported_after_it(
    site: Site, write_registry: Any, radpatch: Any, tmp_path: Path, takes: str, uses: str, patch: str
) -> None:
    other = TAKES[takes] + USES[uses]
    site.install("pp", "1.0", {"pp/__init__.py": "", "pp/mod.py": MOD, "pp/other.py": other})
    scope, find, with_ = PATCHES[patch]
    spec = f"{{scope: {scope}, find: {json.dumps(find)}, with: {json.dumps(with_)}}}"
    entry = entry_head("importers", "pp", {"mod": "pp.mod"}) + f"  - id: r\n    file: mod\n    replace: {spec}\n"
    reg = write_registry("im", entry)
    oracle = tmp_path / "oracle"
    shutil.copytree(site.root / "pp", oracle / "pp")
    (oracle / "pp" / "mod.py").write_text(MOD.replace(find, with_))
    assert _imports(site.root, "pp.other")  # the pristine install imports
    breaks = not _imports(oracle, "pp.other")
    assert not (breaks and patch == "unseen")  # the control never breaks the importer

    r = radpatch("--registry", str(reg), "apply", "--dry-run", "--import-check", "im")

    if breaks:
        assert r.code == 1, r
        first = r.err.splitlines()[0]
        assert first.startswith("radpatch: error: im: import check: pp.mod does not import once patched: "), r.err
        assert "importing pp.other after it (it imports pp.mod): " in first, first
        where = f"({sys.executable}, Python {sys.version_info[0]}.{sys.version_info[1]})"
        assert first.endswith(f"; unpatched, pp.other imports {where}"), first
    else:
        assert r.code == 0, r
        assert r.out.splitlines()[0] == f"im: import check: pp.mod imports once patched ({sys.executable})"


def test_an_importer_the_image_lacks_a_module_for_is_not_a_refusal(
    site: Site, write_registry: Any, radpatch: Any
) -> None:
    """An importer that fails both ways (a GPU-only module on a CPU image) says nothing of the patch."""
    other = "import rp_missing_gpu_kernels\nfrom pp.mod import helper\n\nX = helper(1)\n"
    r = _dry_run(site, write_registry, radpatch, {"pp/other.py": other}, ONE_MORE)

    assert r.code == 0, r
    assert r.out.splitlines()[0] == f"im: import check: pp.mod imports once patched ({sys.executable})"


@pytest.mark.parametrize("failing", [8, 40])
def test_a_refusal_among_many_importers_failing_both_ways_with_deep_tracebacks_is_read(
    site: Site, write_registry: Any, radpatch: Any, failing: int
) -> None:
    """Importers that fail both ways with a deep traceback (a recursion: 400 frames reported each)
    make a long answer: it is read whole, and the one importer only the patch breaks is refused."""
    deep = "from pp.mod import helper\n\n\ndef f(n):\n    return f(n + 1)\n\n\nf(0)\n"
    more = {f"pp/imp{i:02d}.py": deep for i in range(failing)}
    other = "from pp.mod import helper\n\nX = helper(1) + 1\n"
    replace = '{scope: helper, find: "return x", with: "return x[0]"}'
    r = _dry_run(site, write_registry, radpatch, {"pp/zz_other.py": other, **more}, replace)

    assert r.code == 1, r
    assert "importing pp.zz_other after it (it imports pp.mod): TypeError: " in r.err, r.err


@pytest.mark.parametrize(
    "ends", ["import os\nos._exit(0)\n", "import os\nos._exit(3)\n", "import os, signal\nos.kill(os.getpid(), 9)\n"]
)
def test_importers_that_end_the_interpreter_both_ways_are_said_unchecked(
    site: Site, write_registry: Any, radpatch: Any, ends: str
) -> None:
    """An importer whose import ends the interpreter patched and pristine alike (os._exit, a signal)
    leaves every importer of that run unchecked: inconclusive, saying so, not 'imports once patched'."""
    other = "from pp.mod import helper\n\nX = helper(1)\n" + ends
    r = _dry_run(site, write_registry, radpatch, {"pp/other.py": other}, ONE_MORE)

    assert r.code == 0, r
    first = r.out.splitlines()[0]
    assert first.startswith("im: import check inconclusive for pp.mod: the modules that import it (pp.other)"), first
    assert first.endswith(", unpatched too; not a refusal"), first
