"""Obsolete detection follows a decorator the release's module imports from another module of its own
package (issue 23, hf23): `@cached` with `from .utils import cached`, `from rptoy.utils import
cached`, or `utils` re-exporting it from `impl`; `@utils.cached` with `from . import utils`, `from
rptoy import utils` or `import rptoy.utils as utils`, `@rptoy.utils.cached` with `import
rptoy.utils`. The module defining it is read from the release's wheel (never imported): a deletion
upstream took is obsolete there when the decorator stores none of what the change removes, and still
"cannot tell" (not obsolete) when it does or cannot be read. Generated variants on real wheels of a
toy distribution served locally; the reference is the release's own code, run in a child
interpreter: obsolete exactly where an Engine has no `timeout` after configure(), as the patched
base has none.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample

CORE = """\
{imports}


class Engine:
    @{decorator}{call}
    def configure(self):
        self.a = 1
        self.timeout = 30
        self.b = 2
"""
IMPORTS = {
    "relative": "from .utils import cached",
    "absolute": "from rptoy.utils import cached",
    "re-exported": "from .utils import cached",
    # a module's attribute (`@utils.cached`): the module the name is read from
    "module relative": "from . import utils",
    "module absolute": "from rptoy import utils",
    "module aliased": "import rptoy.utils as utils",
    "module dotted": "import rptoy.other\nimport rptoy.utils",
    "module re-exported": "from . import utils",
}
DECORATOR = {"module dotted": "rptoy.utils.cached"}  # otherwise `utils.cached` for a module, else `cached`
PLAIN = """\
import functools


def cached({params}):
    def wrap(fn):
        @functools.wraps(fn)
        def run(self, *args):
            out = fn(self, *args)
            {extra}
            return out

        return run

    return wrap{applied}
"""
EXTRA = {"harmless": "self.calls = 1", "stores": "self.timeout = 30"}
ENTRY = """\
summary: No fixed timeout
description: A toy deletion.
distribution: radpatch-toy
supported: "==1.0"
modules:
  core: rptoy.core
rewrites:
  - id: t
    delete:
      scope: Engine.configure
      find: self.timeout = 30
"""


def _release(spelling: str, factory: bool, extra: str, dropped: bool) -> dict[str, str]:
    decorator = DECORATOR.get(spelling, "utils.cached" if spelling.startswith("module") else "cached")
    core = CORE.format(imports=IMPORTS[spelling], decorator=decorator, call="()" if factory else "")
    if dropped:
        core = core.replace("        self.timeout = 30\n", "")
    utils = PLAIN.format(params="" if factory else "fn", extra=EXTRA[extra], applied="" if factory else "(fn)")
    files = {"rptoy/__init__.py": "", "rptoy/core.py": core}
    files["rptoy/other.py"] = ""
    if spelling.endswith("re-exported"):
        files["rptoy/impl.py"] = utils
        files["rptoy/utils.py"] = "from .impl import cached\n\n__all__ = ['cached']\n"
    else:
        files["rptoy/utils.py"] = utils
    return files


CASES = sample(list(itertools.product(IMPORTS, (False, True), EXTRA)))


def carried_by_running(files: dict[str, str], root: Path) -> bool:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    code = "from rptoy.core import Engine\ne = Engine()\ne.configure()\nprint(hasattr(e, 'timeout'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True).stdout
    return out.strip() == "False"


@pytest.mark.parametrize(("spelling", "factory", "extra"), CASES, ids=["-".join(map(str, c)) for c in CASES])
def test_a_decorator_from_the_package_is_read_there(
    spelling: str, factory: bool, extra: str, loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    base, took = _release(spelling, factory, extra, False), _release(spelling, factory, extra, True)
    expected = carried_by_running(took, tmp_path / "run")
    assert expected is (extra == "harmless")  # the reference is not one answer across the family
    assert not carried_by_running(base, tmp_path / "base")
    loopback("radpatch-toy", {"1.0": base, "1.1": took})
    reg = write_registry("untimed", ENTRY)
    report = json.loads(radpatch("--registry", str(reg), "verify", "untimed", "--versions", ">=1.0", "--json").out)
    assert ("1.1" in report["obsolete"]) is expected, report["results"]


@pytest.mark.parametrize("spelling", ["relative", "module relative", "module aliased", "module dotted"])
def test_a_decorator_the_wheel_lacks_cannot_tell(
    spelling: str, loopback: Any, write_registry: Any, radpatch: Any
) -> None:
    base, took = _release(spelling, False, "harmless", False), _release(spelling, False, "harmless", True)
    del took["rptoy/utils.py"]  # not readable from the release: cannot tell, so not obsolete
    loopback("radpatch-toy", {"1.0": base, "1.1": took})
    reg = write_registry("untimed", ENTRY)
    report = json.loads(radpatch("--registry", str(reg), "verify", "untimed", "--versions", ">=1.0", "--json").out)
    assert report["obsolete"] == []


PACKAGE_BINDS = {
    "itself": {"rptoy/__init__.py": "from rptoy import impl as utils\n"},
    "by a star import": {
        "rptoy/__init__.py": "from rptoy.shim import *\n",
        "rptoy/shim.py": "from rptoy import impl as utils\n",
    },
}


@pytest.mark.parametrize(("factory", "binds"), [(f, b) for f in (False, True) for b in PACKAGE_BINDS])
def test_a_package_binding_the_name_wins_over_its_module(
    factory: bool, binds: str, loopback: Any, write_registry: Any, radpatch: Any, tmp_path: Path
) -> None:
    """`from rptoy import utils` where the package's `__init__` binds `utils` itself (to `impl`, whose
    decorator stores the removed attribute): that binding wins over rptoy/utils.py, so the module
    does not tell what runs: not obsolete, as running the release shows."""
    base, took = (
        _release("module absolute", factory, "harmless", False),
        _release("module absolute", factory, "harmless", True),
    )
    stores = _release("relative", factory, "stores", False)["rptoy/utils.py"]
    for files in (base, took):
        files.update(PACKAGE_BINDS[binds])
        files["rptoy/impl.py"] = stores
    assert not carried_by_running(took, tmp_path / "run")
    loopback("radpatch-toy", {"1.0": base, "1.1": took})
    reg = write_registry("untimed", ENTRY)
    report = json.loads(radpatch("--registry", str(reg), "verify", "untimed", "--versions", ">=1.0", "--json").out)
    assert report["obsolete"] == [], report["results"]
