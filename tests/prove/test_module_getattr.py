"""Only a module's own `__getattr__` (PEP 562) makes its attributes dynamic: `from dep import nope`
then cannot be judged from the files and passes. A `__getattr__` of a class, or a function's local
one, answers for that object only, so `from dep import nope` is still a missing name.

Generated: where `dep.py` puts a `__getattr__` (class bodies, nested classes, a function's local,
a class attribute, and the module-level forms: a def, an async def, under an `if`, in a `try`, an
assignment, an import, a `global` set by a call) and what name the patch imports from it. The
oracle imports the patched module in a subprocess: the names step must refuse exactly the imports
that fail, and pass every module-level form.
"""

from __future__ import annotations

import sys
import sysconfig

import pytest

from radpatch.install.environment import PythonEnv
from radpatch.prove import names_check
from tests.lib.fresh_runs import fresh_run
from tests.lib.site import Site

GETTER = "def __getattr__(self, name):\n    return name\n"
FORMS = {  # dep.py's text -> whether its module-level __getattr__ makes the proof unable to tell
    "class": ("class C:\n" + "".join("    " + x + "\n" for x in GETTER.splitlines()), False),
    "nested-class": (
        "class C:\n    class D:\n" + "".join("        " + x + "\n" for x in GETTER.splitlines()),
        False,
    ),
    "class-attribute": ("class C:\n    __getattr__ = dict.get\n", False),
    "function-local": ("def f():\n    def __getattr__(name):\n        return name\n    return __getattr__\n", False),
    "getattr-read": ("import gadep_lazy\nread = gadep_lazy.__getattr__\n", False),
    "module-def": ("def __getattr__(name):\n    return name\n", True),
    "module-if": ("import sys\nif sys:\n    def __getattr__(name):\n        return name\n", True),
    "module-try": ("try:\n    def __getattr__(name):\n        return name\nexcept Exception:\n    pass\n", True),
    "module-assign": ("__getattr__ = str\n", True),
    "module-import": ("from gadep_lazy import __getattr__\n", True),
    "module-global": ("def _setup():\n    global __getattr__\n    __getattr__ = str\n\n\n_setup()\n", True),
}
NAMES = ["nope", "C", "X"]  # `C` is bound by some forms, `X` by every one


def _env(site: Site) -> PythonEnv:
    stdlib = sysconfig.get_paths()["stdlib"]
    return PythonEnv(sys.executable, (site.root, stdlib), site.root, (sys.version_info[0], sys.version_info[1]))


def _fails(site: Site) -> bool:
    code = f"import sys; sys.path.insert(0, {str(site.root)!r}); import gaimp.core"
    return fresh_run(sys.executable, code, (), ("-I", "-B")).returncode != 0


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("form", list(FORMS))
def test_only_a_module_getattr_makes_names_unknown(site: Site, form: str, name: str) -> None:
    text, dynamic = FORMS[form]
    core = "import os\n\n\ndef limit(n):\n    return n\n"
    site.install("gaimp", "1.0", {"gaimp/__init__.py": "", "gaimp/core.py": core})
    site.install(
        "gadep", "1.0", {"gadep.py": "X = 1\n" + text, "gadep_lazy.py": "def __getattr__(name):\n    return name\n"}
    )
    after = f"from gadep import {name}\n{core}"
    (site.root / "gaimp" / "core.py").write_text(after)
    fails = _fails(site)
    refusal = names_check.names_refusal(
        core.encode(), after.encode(), str(site.root / "gaimp" / "core.py"), _env(site), "gaimp.core"
    )
    if dynamic:
        assert refusal is None and not fails, (form, name, refusal)
    else:
        assert (refusal is not None) == fails, (form, name, fails, refusal)
    if name == "nope":
        assert fails != dynamic  # the oracle itself: the generated forms do what their names say
