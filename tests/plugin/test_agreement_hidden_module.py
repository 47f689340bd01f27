"""A package directory made beside a patched module hides it (att55 F1): `rpagree/core/__init__.py`
beside the patched `rpagree/core.py` is what `import rpagree.core` loads, so the patch does not run.
`status --check` said drifted; the engine-start check read only the recorded file's hashes and said
applied, so an engine under RADPATCH_REQUIRE started with the unpatched code.

Generated: what is made beside the patched file (a package holding a pristine copy, a package whose
`__init__.py` is a symlink to the patched file, a package whose `__init__` is only a `.pyc` or an extension
module (att56 F1), a namespace directory without `__init__.py`, a package
of another name, a compiled extension module of the interpreter's suffix beside the `.py`, which the
import system loads first: status reads the patch incompatible there, and now so does the self-check)
x which of `a`'s files (core.py, util.py) x the patch applied or not. Oracle: the
venv's own interpreter importing the module in a subprocess (which file runs), against the states of
status and the self-check: both agree (tests/lib/agree), and the patch passes the check only where the
module imported is the file radpatch patched."""

from __future__ import annotations

import itertools
import os
import py_compile
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.lib.agree import CORE, FILES, UTIL, Target, Template, engine_starts, fresh, make_template
from tests.lib.generated import sample
from tests.lib.registry import write_entry

pytestmark = pytest.mark.wheel

MADE = [
    "package-pristine",
    "package-symlink",
    "package-pyc",
    "package-extension",
    "namespace-dir",
    "other-package",
    "extension",
]
FILES_OF_A = [CORE, UTIL]
# a package whose `__init__.py` (a copy, a symlink) hides the module: before `a` is applied, that file, which
# no RECORD lists, is what apply would patch, so status reads `a` incompatible (docs/safety.md)
UNLISTED = ("package-pristine", "package-symlink")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    return make_template(tmp_path_factory.mktemp("rphide"))


def _make(site: Path, made: str, relpath: str, python: Path) -> Path:
    stem = relpath[: -len(".py")]
    if made == "extension":  # a compiled module of the venv's interpreter (its own suffix) beside the .py
        made_file = site / (stem + _suffix(python))
        made_file.write_bytes(b"\x7fELF not really")
        return made_file
    folder = site / (stem if made != "other-package" else stem + "_other")
    folder.mkdir()
    if made == "package-pristine" or made == "other-package":
        (folder / "__init__.py").write_text(str(FILES[relpath]))
    elif made == "package-symlink":
        os.symlink(site / relpath, folder / "__init__.py")
    elif made == "package-pyc":  # a sourceless package: its __init__ only as bytecode (att56 F1)
        source = folder / "source.py"
        source.write_text(str(FILES[relpath]))
        py_compile.compile(str(source), cfile=str(folder / "__init__.pyc"), doraise=True)
        source.unlink()
    elif made == "package-extension":  # a compiled __init__ of the venv's interpreter (att56 F1)
        (folder / ("__init__" + _suffix(python))).write_bytes(b"\x7fELF not really")
    return folder


def _suffix(python: Path) -> str:
    """The venv's interpreter's first extension-module suffix."""
    code = "import importlib.machinery as m; print(m.EXTENSION_SUFFIXES[0])"
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def _imported_file(t: Target, relpath: str) -> Path:
    module = relpath[: -len(".py")].replace("/", ".")
    code = f"import {module} as m; print(m.__file__)"
    out = subprocess.run([str(t.python), "-c", code], capture_output=True, text=True)
    return Path(out.stdout.strip()) if out.returncode == 0 else Path("<import failed>")


@pytest.mark.parametrize(("made", "relpath", "applied"), sample(itertools.product(MADE, FILES_OF_A, [True, False])))
def test_a_module_hidden_by_a_package_fails_status_and_the_engine_start_check_alike(
    template: Template, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made: str, relpath: str, applied: bool
) -> None:
    t = fresh(template, tmp_path / "venv")
    if applied:
        assert t.radpatch("apply", "a")[0] == 0
    _make(t.site, made, relpath, t.python)
    runs_patched = _imported_file(t, relpath) == t.site / relpath
    passes = t.check_passes("a")
    seen = t.engine("a")["a"]
    status = t.status("a")["a"]
    if applied and made in ("package-pyc", "package-extension"):
        # status asks the target which file it imports: applied, the check failing (the patch does not
        # run); the self-check, which asks nothing, says drifted (docs/plugin.md): both fail
        assert status["state"] == "applied" and status["passes_check"] is False, status
        assert seen.state.value == "drifted", seen
    elif applied or made not in ("extension", *UNLISTED):
        assert seen.state.value.replace(" ", "-") == status["state"], (seen, status)
    else:  # never applied: the self-check has no record naming the module (status locates it: incompatible)
        assert seen.state.value == "not applied" and seen.detail == "no record", seen
        assert status["state"] == "incompatible", status
        if made in UNLISTED:  # the package's `__init__.py` is what apply would write: no RECORD lists it (att60 F09)
            assert f"{relpath[:-3]}/__init__.py is no file of the distribution" in str(status["reason"]), status
    assert seen.satisfied == passes == (applied and runs_patched), (seen, status, runs_patched)
    assert engine_starts(t.site, "a", monkeypatch) == passes
    if applied and not runs_patched:  # said as status says it, naming what hides it
        words = "compiled extension" if made == "extension" else "which hides it"
        assert words in seen.detail, seen
        assert words in str(status["reason"]) or "the patch does not run" in str(status["reason"]), status


DEP = """\
summary: s
description: d
distribution: rpagree
supported: ">=1.0,<2"
requires: [a]
modules:
  core: rpagree.core
rewrites:
  - id: scale
    file: core
    replace: {scope: scale, find: "x * 2", with: "x * 7"}
"""
HIDING = ["package-pristine", "package-pyc", "package-extension", "extension"]


@pytest.mark.parametrize("made", sample(HIDING))
def test_an_entry_whose_requirement_is_hidden_fails_in_both(
    template: Template, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made: str
) -> None:
    """att63 F3 (f12): `dep` requires `a`; a's util.py hidden by what is made beside it. status failed `a` but
    counted it as met for `dep`, whose check passed while the engine-start check read `dep` drifted."""
    t = fresh(template, tmp_path / "venv")
    registry = tmp_path / "registry"
    shutil.copytree(template.registry, registry)
    write_entry(registry, "dep", DEP, dedent=False)
    t = Target(t.venv, registry, t.wheels)
    assert t.radpatch("apply", "a", "dep")[0] == 0
    _make(t.site, made, UTIL, t.python)
    assert _imported_file(t, UTIL) != t.site / UTIL  # the oracle: a's code does not run
    for name in ("a", "dep"):
        passes = t.check_passes(name)
        assert not passes, (name, t.status(name)[name])
        assert engine_starts(t.site, name, monkeypatch) == passes, (name, t.engine(name)[name].detail)
    said = str(t.status("dep")["dep"]["reason"])
    assert "it requires a, which" in said, said
    monkeypatch.chdir(tmp_path)  # the venv lies below the working directory: what hides util.py is not its copy
    said = str(t.status("a")["a"]["reason"])
    assert "started in" not in said, said
