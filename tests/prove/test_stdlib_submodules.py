"""A new `import pkg.sub` of a standard-library submodule the target lacks is refused for every
standard-library package (att21 N3: `import asyncio.taskgroups` and `import importlib.resources.abc`
passed on 3.10, because asyncio's `__init__` star-imports and importlib's reads sys.modules, so its
files could not tell; `import wsgiref.types` was refused).

Generated: for each real target interpreter other than radpatch's own, the standard-library
submodules (found in the files, nothing imported) radpatch's Python has and the target lacks, and as
many the target has too. The target imports each: the proof refuses exactly those that fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.interpreters import OTHER_TARGETS, fail_when_run

_LIST = r"""
import json, os, sys, sysconfig
root = sysconfig.get_paths()["stdlib"]
out = []
skip = {"test", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "venv", "__phello__"}
for top in sorted(sys.stdlib_module_names):
    base = os.path.join(root, top)
    if top.startswith("_") or top in skip or not os.path.isfile(os.path.join(base, "__init__.py")):
        continue
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if os.path.isfile(os.path.join(d, x, "__init__.py")) and "test" not in x)
        rel = os.path.relpath(d, root).replace(os.sep, ".")
        out += [rel + "." + f[:-3] for f in sorted(files) if f.endswith(".py") and f != "__init__.py"
                and not f.startswith(("_", "test")) and f != "__main__.py"]
        out += [rel + "." + x for x in dirs]
print(json.dumps(out))
"""


def submodules(executable: str) -> list[str]:
    done = subprocess.run([executable, "-I", "-S", "-c", _LIST], capture_output=True, text=True, check=True)
    found: list[str] = json.loads(done.stdout)
    return found


def cases() -> dict[str, list[str]]:
    ours = submodules(sys.executable)
    out: dict[str, list[str]] = {}
    for version, executable in OTHER_TARGETS.items():
        theirs = set(submodules(str(executable)))
        lacking = [m for m in ours if m not in theirs]
        lacking = [
            m for i, m in enumerate(lacking) if m.split(".")[0] not in {n.split(".")[0] for n in lacking[:i]}
        ] + [m for m in lacking[1:] if m.count(".") > 1][:4]
        shared = [m for m in ours if m in theirs][:: max(1, len(ours) // 10)][:10]
        if lacking:
            out[version] = lacking + shared
    return out


CASES = cases()


def module(dotted: str | None) -> str:
    return "X = 1\n" + (f"import {dotted}\n" if dotted else "") + "\n\ndef f():\n    return 1\n"


@pytest.mark.interpreters
@pytest.mark.skipif(not CASES, reason="no Python other than radpatch's own under /root/.pyenv")
@pytest.mark.parametrize("version", sorted(CASES))
def test_a_standard_library_submodule_the_target_lacks_is_refused(version: str, tmp_path: Path) -> None:
    target = python_env(str(OTHER_TARGETS[version]))
    names = CASES[version]
    truth = fail_when_run(target.executable, [module(n) for n in names], tmp_path)
    assert any(truth) and not all(truth), list(zip(names, truth))
    for name, fails in zip(names, truth):
        refused = names_check.names_refusal(module(None).encode(), module(name).encode(), "m.py", target)
        assert (refused is not None) == fails, (name, refused)
        if refused is not None:
            assert refused.why.startswith(f"the patched m.py would fail to import for Python {version}: `")


@pytest.mark.interpreters
@pytest.mark.skipif("3.10" not in OTHER_TARGETS, reason="no Python 3.10 other than radpatch's own")
@pytest.mark.parametrize("dotted", ["asyncio.taskgroups", "importlib.resources.abc"])
def test_the_reported_submodules_are_refused_on_310(dotted: str, tmp_path: Path) -> None:
    target = python_env(str(OTHER_TARGETS["3.10"]))
    assert fail_when_run(target.executable, [module(dotted)], tmp_path) == [True]
    refused = names_check.names_refusal(module(None).encode(), module(dotted).encode(), "m.py", target)
    assert refused is not None and f"`{dotted}`" in refused.why
