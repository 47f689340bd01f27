"""An import cycle the patch closes through an unchanged sibling: `b` imports `a`; the patch makes
`a` import from `b`; `import a` works, `import b` fails on a half-initialised module. The import
check imports, after the changed module, each module of its package on such a cycle first.

Generated: cycles of two and three modules, closed by `from ... import name` (fails when the
sibling is imported first) or by `import pkg.sibling` (does not fail at import), and controls
whose new import closes no cycle. The oracle imports every module of the package first, in a
fresh interpreter, with the patched file in place: the check must refuse exactly when one of
those imports fails once patched and worked before."""

from __future__ import annotations

import itertools
import shutil
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import import_check
from radpatch.prove.cycles import closed_cycles
from radpatch.prove.plan import PlannedFile
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample
from tests.lib.site import Site

A = "LIMIT = 4\n\n\ndef f():\n    return LIMIT\n"
SIBLINGS = {  # the unchanged modules besides icyc.a
    "two": {"icyc/b.py": "import icyc.a\n\nX = 5\n"},
    "two-from": {"icyc/b.py": "from icyc.a import LIMIT\n\nX = LIMIT + 1\n"},
    "three": {"icyc/b.py": "import icyc.c\n\nX = 5\n", "icyc/c.py": "import icyc.a\n\nY = 6\n"},
    "no-cycle": {"icyc/b.py": "X = 5\n"},
    "no-cycle-chain": {"icyc/b.py": "import icyc.c\n\nX = 5\n", "icyc/c.py": "Y = 6\n"},
}
ADDED = {  # what the patch puts at the top of icyc.a
    "from-name": "from icyc.b import X as _rp_x\n",
    "import-module": "import icyc.b\n",
    "relative": "from .b import X as _rp_x\n",
}


def _imports_first(root: Path, modules: list[str]) -> dict[str, bool]:
    out = {}
    for m in modules:
        code = f"import sys; sys.path.insert(0, {str(root)!r}); import {m}"
        out[m] = fresh_run(sys.executable, code, (), ("-I", "-B")).returncode == 0
    return out


# a generated family: every case unsampled, a sample turning with the interpreter (tests/lib/generated.py)
CASES = sample(itertools.product(sorted(SIBLINGS), sorted(ADDED)))


@pytest.mark.parametrize(("siblings", "added"), CASES, ids=["-".join(c) for c in CASES])
def test_a_cycle_the_patch_closes_is_refused_exactly_when_a_sibling_imported_first_fails(
    tmp_path: Path, siblings: str, added: str
) -> None:
    site = Site(tmp_path / "site-packages")
    site.root.mkdir()
    files = {"icyc/__init__.py": "", "icyc/a.py": A, **SIBLINGS[siblings]}
    site.install("icyc", "1.0", files)
    a = site.root / "icyc" / "a.py"
    after = (ADDED[added] + A).encode()
    modules = sorted(f[:-3].replace("/", ".") for f in files if not f.endswith("__init__.py"))
    before_ok = _imports_first(site.root, modules)
    oracle_root = tmp_path / "oracle"
    shutil.copytree(site.root, oracle_root)
    (oracle_root / "icyc" / "a.py").write_bytes(after)
    after_ok = _imports_first(oracle_root, modules)
    breaks = any(before_ok[m] and not after_ok[m] for m in modules)

    env = PythonEnv(sys.executable, (site.root,), site.root, (sys.version_info[0], sys.version_info[1]))
    (v,) = import_check.check(env, [("p", PlannedFile("icyc.a", a, a.read_bytes(), after))], timeout=120)

    assert (v.result is import_check.Result.REFUSED) == breaks, (siblings, added, v, before_ok, after_ok)
    if breaks and after_ok["icyc.a"]:  # else the changed module's own import already fails
        assert v.reason.startswith("importing icyc.b first (it imports icyc.a back, a cycle the patch closes): ")
    assert a.read_bytes() == A.encode()


def test_only_the_modules_on_a_closed_cycle_are_imported_first(site: Site) -> None:
    site.install("icyc", "1.0", {"icyc/__init__.py": "", "icyc/a.py": A, **SIBLINGS["three"], "icyc/d.py": "Z = 1\n"})
    root = site.root
    patched = b"from icyc.b import X\nimport icyc.d\n" + A.encode()
    assert closed_cycles(root, "icyc.a", A.encode(), patched, {}) == ["icyc.b", "icyc.c"]
    assert closed_cycles(root, "icyc.a", A.encode(), b"import icyc.d\n" + A.encode(), {}) == []
    assert closed_cycles(root, "icyc.a", A.encode(), A.encode(), {}) == []
