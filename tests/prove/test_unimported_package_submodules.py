"""`import toyq` then a new `toyq.sub.VALUE` outside the standard library: a submodule read through
its package imported alone fails on a fresh interpreter (AttributeError) unless something imported
it. No target is asked (importing the package would run its code): the package's `__init__` file
decides (`from . import sub`, `from .sub import x`, `import toyq.sub`, binding `sub`), read as a file,
and what it cannot tell (a module `__getattr__`) passes.

Generated: each `__init__` spelling times a read one and two submodules deep, on radpatch's own
Python and the other targets under /root/.pyenv. Each patched module (another package's, so no
module of toyq's own imports anything) is run by the target in a fresh interpreter: the proof must
refuse exactly the patches whose new read raises AttributeError there.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.fresh_runs import fresh_run
from tests.lib.generated import sample
from tests.lib.interpreters import OTHER_TARGETS

INITS = {
    "empty": "",
    "from-dot-sub": "from . import sub\n",
    "from-dot-sub-name": "from .sub import VALUE\n",
    "import-absolute": "import toyq.sub\n",
    "from-package-sub": "from toyq import sub\n",
    "type-checking": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from . import sub\n",
    "in-function": "def g():\n    from . import sub\n",
    "from-dot-deep": "from . import deep\n",
    "from-deep-inner": "from .deep import inner\n",
    "module-getattr": (
        "import importlib\n\n\ndef __getattr__(name):\n    return importlib.import_module('.' + name, __name__)\n"
    ),
}
READS = {"sub": "toyq.sub.VALUE", "deep-inner": "toyq.deep.inner.VALUE"}
EXES = {"own": sys.executable, **{v: str(p) for v, p in OTHER_TARGETS.items()}}
CASES = sample(itertools.product(EXES, INITS, READS))
target_env = functools.cache(python_env)
BEFORE = "import toyq\n\n\ndef f():\n    return 'old'\n"


def toy(root: Path, init: str) -> None:
    pkg = root / "toyq"
    (pkg / "deep").mkdir(parents=True)
    (pkg / "__init__.py").write_text(INITS[init])
    (pkg / "sub.py").write_text("VALUE = 1\n")
    (pkg / "deep" / "__init__.py").write_text("")
    (pkg / "deep" / "inner.py").write_text("VALUE = 2\n")


@pytest.mark.parametrize(("exe", "init", "read"), CASES, ids=["-".join(c) for c in CASES])
def test_a_package_submodule_its_init_does_not_import_is_refused(
    exe: str, init: str, read: str, tmp_path: Path
) -> None:
    toy(tmp_path, init)
    after = BEFORE.replace("'old'", READS[read])
    run_it = f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n{after}\nprint(f())\n"
    run = subprocess.run([EXES[exe], "-I", "-c", run_it], capture_output=True, text=True)
    fails = run.returncode != 0
    if fails:
        assert "AttributeError" in run.stderr, run.stderr
    env = target_env(EXES[exe])
    env = dataclasses.replace(env, paths=(tmp_path, *env.paths))
    refused = names_check.names_refusal(BEFORE.encode(), after.encode(), "other/m.py", env, module="other.m")
    why = None if refused is None else refused.why
    assert (why is not None) == fails, (why, run.stderr[-300:])
    if why is not None:
        fix = READS[read].rpartition(".")[0]
        assert f"add_import: import {fix}" in why and "\n" not in why, why


def test_the_package_s_own_module_importing_the_submodule_binds_it_only_once_it_runs(tmp_path: Path) -> None:
    """toyq/m.py reads toyq.sub; toyq/other.py imports it: bound when the package's `__init__`
    imports toyq.other, not when nothing that runs does (issue 21 F4). Each verdict is the fresh
    interpreter's: `import toyq.m; toyq.m.f()`."""
    toy(tmp_path, "empty")
    (tmp_path / "toyq" / "other.py").write_text("import toyq.sub\n")
    after = BEFORE.replace("'old'", READS["sub"])
    env = target_env(sys.executable)
    env = dataclasses.replace(env, paths=(tmp_path, *env.paths))
    for init, runs in (("from . import other\n", True), ("", False), ("def g():\n    from . import other\n", False)):
        (tmp_path / "toyq" / "__init__.py").write_text(init)
        (tmp_path / "toyq" / "m.py").write_text(after)
        code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import toyq.m; toyq.m.f()"
        assert (fresh_run(sys.executable, code).returncode == 0) == runs
        (tmp_path / "toyq" / "m.py").write_text(BEFORE)
        refused = names_check.names_refusal(BEFORE.encode(), after.encode(), "toyq/m.py", env, module="toyq.m")
        if runs:
            assert refused is None, refused.why
        else:
            assert refused is not None and "add_import: import toyq.sub" in refused.why, (init, refused)


def test_a_read_of_the_running_module_through_its_package_passes(tmp_path: Path) -> None:
    """toyq/m.py reading toyq.m.X in a function: the module is imported whenever the function runs."""
    toy(tmp_path, "empty")
    before = "import toyq\n\nX = 1\n\n\ndef f():\n    return 'old'\n"
    after = before.replace("'old'", "toyq.m.X")
    (tmp_path / "toyq" / "m.py").write_text(after)
    run_it = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import toyq.m; print(toyq.m.f())"
    run = fresh_run(sys.executable, run_it)
    assert run.returncode == 0, run.stderr
    (tmp_path / "toyq" / "m.py").write_text(before)
    env = target_env(sys.executable)
    env = dataclasses.replace(env, paths=(tmp_path, *env.paths))
    refused = names_check.names_refusal(before.encode(), after.encode(), "toyq/m.py", env, module="toyq.m")
    assert refused is None, refused.why
