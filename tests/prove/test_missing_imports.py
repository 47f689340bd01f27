"""A new unguarded import of what the target's import path lacks fails at import: a top-level
module not installed, a submodule that is not there, a name a module does not bind. The names
step looks them up on the target's path without importing anything; what it cannot tell from the
files (a module that binds names dynamically, one the patch itself changes) passes.

Generated: each import added to a module of a small installed package; the oracle imports the
patched module in a subprocess of this interpreter: the proof must refuse exactly the imports
that fail, except the cases it documents as unknown (which must pass)."""

from __future__ import annotations

import sys
import sysconfig
import textwrap

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import names, names_check
from tests.lib.fresh_runs import fresh_run
from tests.lib.site import Site

FILES = {
    "icimp/__init__.py": "VERSION = 1\n",
    "icimp/core.py": "import os\n\n\ndef limit(n):\n    return n\n",
    "icimp/sub.py": "X = 1\n\n\ndef _setup():\n    global Y\n    Y = 2\n\n\n_setup()\n",
    "icimp/lazy.py": "def __getattr__(name):\n    return name\n",
    "icimp/inner/__init__.py": "",
    "icimp/inner/deep.py": "Z = 3\n",
    "icdep/__init__.py": "DEP = 1\n",
    # a package __init__ with a module __getattr__ (as vllm/__init__.py has): attributes, not submodules
    "iclazy/__init__.py": "def __getattr__(name):\n    return name\n",
    "iclazy/real.py": "R = 1\n",
    # a package __init__ that extends its own __path__: its submodules may be anywhere
    "icpath/__init__.py": "import os\n__path__.append(os.path.join(os.path.dirname(__file__), 'more'))\n",
    "icpath/more/extra.py": "E = 1\n",
    # a plain module that serves submodules through an import hook, as six serves six.moves
    "icsix.py": (
        "import sys, types\n\n\nclass _Finder:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'icsix.moves':\n            import importlib.util\n"
        "            return importlib.util.spec_from_loader(name, self)\n        return None\n\n"
        "    def create_module(self, spec):\n        return types.ModuleType(spec.name)\n\n"
        "    def exec_module(self, module):\n        module.M = 1\n\n\nsys.meta_path.append(_Finder())\n"
    ),
    "icplain.py": "P = 1\n",
}
# the import added at the top of icimp/core.py -> whether the proof cannot tell (it must pass then)
IMPORTS = {
    "import rp_not_installed_xyz": False,
    "import icdep": False,
    "import json": False,
    "import icimp.nosuch": False,
    "import icimp.inner.deep": False,
    "import icimp.inner.nosuch": False,
    "import json.nosuch": False,
    "from icimp import sub": False,
    "from icimp import nosuch": True,  # the package's own module: another entry of the run may add it
    "from icimp import VERSION": False,
    "from icimp.sub import X, Y": False,
    "from icimp.sub import nosuch": True,  # the package's own module: another entry of the run may add it
    "from icimp.inner import deep": False,
    "from icimp.inner import nosuch": True,  # the package's own module: another entry of the run may add it
    "from .sub import X": False,
    "from .sub import nosuch": True,  # the package's own module: another entry of the run may add it
    "from . import nosuch": True,  # the package's own module: another entry of the run may add it
    "from json import dumps": False,
    "from json import nosuch_name": False,
    "from icdep import DEP": False,
    "from icdep import nosuch": False,
    "from rp_not_installed_xyz import a": False,
    "from icimp.lazy import anything": True,  # a module __getattr__ provides any name
    "from iclazy import anything": True,  # ... and any attribute of a package
    "import iclazy.nosuch": False,  # but never a submodule: `import pkg.sub` searches pkg.__path__
    "from iclazy.nosuch import x": False,
    "import iclazy.real": False,
    "from iclazy.real import R": False,
    "import icpath.extra": True,  # an __init__ that edits __path__ finds submodules elsewhere
    "import icpath.nosuch": True,
    "from icsix.moves import M": True,  # a module that installs an import hook may serve submodules
    "import icsix.moves": True,
    "import icplain.nosuch": False,  # a plain module has no submodules
    "from os import nosuch_name": False,  # the standard library: the target tells (os's star import)
    "try:\n    import rp_not_installed_xyz\nexcept ImportError:\n    pass": False,
    "if os.environ.get('RP_NEVER_SET'):\n    import rp_not_installed_xyz": False,
    "def later():\n    import rp_not_installed_xyz": False,  # fails when called (the oracle calls it)
}


def _env(site: Site) -> PythonEnv:
    """This interpreter with the site and its standard library on the path, as a target's sys.path has."""
    stdlib = sysconfig.get_paths()["stdlib"]
    return PythonEnv(sys.executable, (site.root, stdlib), site.root, (sys.version_info[0], sys.version_info[1]))


def _fails(site: Site, source: str) -> bool:
    (site.root / "icimp" / "core.py").write_text(source)
    code = (
        f"import sys; sys.path.insert(0, {str(site.root)!r}); import icimp.core as m\nif hasattr(m, 'later'): m.later()"
    )
    return fresh_run(sys.executable, code, (), ("-I", "-B")).returncode != 0


@pytest.mark.parametrize("added", list(IMPORTS))
def test_a_new_import_the_target_lacks_is_refused(site: Site, added: str) -> None:
    site.install("icimp", "1.0", FILES)
    before = FILES["icimp/core.py"].encode()
    after = (FILES["icimp/core.py"] + "\n\n" + added + "\n").encode()
    env = _env(site)
    where = str(site.root / "icimp" / "core.py")

    refusal = names_check.names_refusal(before, after, where, env, "icimp.core")
    fails = _fails(site, after.decode())

    if IMPORTS[added]:
        assert refusal is None, refusal
    else:
        assert (refusal is not None) == fails, (added, fails, refusal)
    if refusal is not None:
        assert "would fail to import" in refusal.why and "guard the import" in refusal.hint


def test_the_patch_own_modules_and_a_patch_with_requirements_are_not_judged_by_their_files(site: Site) -> None:
    """Their planned text is not on disk: a payload this patch inserts into icimp.sub, imported here."""
    site.install("icimp", "1.0", FILES)
    before = FILES["icimp/core.py"].encode()
    after = b"from icimp.sub import _rp_helper\n" + before
    env = _env(site)
    where = str(site.root / "icimp" / "core.py")

    # a name of the package's own module: an entry applied before it in the same run may add it
    assert names_check.names_refusal(before, after, where, env, "icimp.core") is None
    assert names_check.names_refusal(before, after, where, env, "icimp.core", ("icimp.core", "icimp.sub")) is None
    assert names_check.names_refusal(before, after, where, env, "icimp.core", None) is None
    missing = b"import rp_not_installed_xyz\n" + before  # a missing module is still missing
    assert names_check.names_refusal(before, missing, where, env, "icimp.core", None) is not None


def test_an_import_hook_that_may_provide_a_module_makes_it_unknown(site: Site) -> None:
    site.install("icimp", "1.0", FILES)
    (site.root / "__editable___rp_devpkg_finder.py").write_text(textwrap.dedent("MAPPING = {'rp_devpkg': '/src'}\n"))
    before = FILES["icimp/core.py"].encode()
    env = _env(site)
    where = str(site.root / "icimp" / "core.py")
    assert names_check.names_refusal(before, b"import rp_devpkg\n" + before, where, env, "icimp.core") is None
    assert names.MISSING_NAME in {
        p.kind for p in names_check._missing_imports(before, b"from icdep import nope\n" + before, None, env, ())
    }


@pytest.mark.parametrize("shared", ["declared by an installed distribution", "imported by the unpatched module"])
def test_a_module_the_install_already_needs_is_the_installs_failure_not_the_patchs(site: Site, shared: str) -> None:
    """A target installed without its dependencies (pip --no-deps) lacks what its own code imports:
    the patched module fails there as the unpatched one does, so only what nothing expects is refused."""
    site.install("icimp", "1.0", FILES)
    before = FILES["icimp/core.py"].encode()
    env = _env(site)
    where = str(site.root / "icimp" / "core.py")
    added_ = ("import rp_not_installed_xyz", "from rp_not_installed_xyz.sub import thing")
    for added in added_:  # refused while nothing expects the module
        assert names_check.names_refusal(before, (added + "\n").encode() + before, where, env, "icimp.core") is not None
    for added in added_:
        after = (added + "\n").encode() + before
        if shared.startswith("declared"):
            meta = site.root / "icneeds-1.0.dist-info"
            meta.mkdir(exist_ok=True)
            (meta / "METADATA").write_text(
                "Metadata-Version: 2.1\nName: icneeds\nVersion: 1.0\nRequires-Dist: rp-not-installed-xyz (>=1)\n"
            )
            old = before
        else:
            old = before + b"\n\ndef _late():\n    import rp_not_installed_xyz\n"
            after = (added + "\n").encode() + old
        assert names_check.names_refusal(old, after, where, env, "icimp.core") is None, added
        other = (b"import rp_other_missing_xyz\n") + old  # what nothing expects is still refused
        assert names_check.names_refusal(old, other, where, env, "icimp.core") is not None


def test_a_module_the_packages_own_modules_import_is_expected_and_a_series_may_create_its_own(site: Site) -> None:
    """A distribution installed without its dependencies: another module of the package imports the
    missing module already (it fails patched or not). An entry with requirements may import a
    module of its own package that a requirement creates. A missing submodule is still refused."""
    site.install("icimp", "1.0", FILES)
    before = FILES["icimp/core.py"].encode()
    env = _env(site)
    where = str(site.root / "icimp" / "core.py")
    after = b"import rp_not_installed_xyz\n" + before
    assert names_check.names_refusal(before, after, where, env, "icimp.core") is not None
    (site.root / "icimp" / "other.py").write_text("import rp_not_installed_xyz\n")
    assert names_check.names_refusal(before, after, where, env, "icimp.core") is None
    created = b"from icimp.made_by_a_requirement import thing\n" + before
    assert names_check.names_refusal(before, created, where, env, "icimp.core") is not None
    assert names_check.names_refusal(before, created, where, env, "icimp.core", None) is None
    nosub = b"import icimp.nosuch\n" + before
    assert names_check.names_refusal(before, nosub, where, env, "icimp.core") is not None
