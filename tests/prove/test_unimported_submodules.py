"""`import xml` then a new read of `xml.dom.minidom`: a submodule read through a parent imported
alone fails on a fresh interpreter (AttributeError) unless something imported it; the names step
must refuse such a read a patch adds, and pass one the parent's own `__init__` binds (`json.decoder`,
`os.path`) or the module imports itself where it runs (`import xml.dom.minidom` at module level, or
in the function that reads it; not in another function, never called).

Generated: reads of standard-library submodules and attributes times whether the module also
imports the submodule, on radpatch's own Python and every other target under /root/.pyenv. Each
patched module is run by that target in a fresh interpreter: the proof must refuse exactly the
patches whose new read raises AttributeError there.

Package: the patched module is toy/m.py of a toy package whose other module, toy/other.py, imports
the submodule (`import a.b`, `from a.b import x`, `from a import b`), only its parent, or names the
import where it never runs (in a function, under `if TYPE_CHECKING:`, in a docstring); toy.other
itself is imported by the package's `__init__`, by toy.m at module level, or by nothing that runs
(nothing, a function never called, `if TYPE_CHECKING:`). The target runs `import toy.m` then the new
read in a fresh interpreter: the read works exactly when a module of the package that runs imports
the submodule, and the proof, reading the package's files (not importing them), must accept exactly
those (issue 21 F4: a module nothing imports counted for the whole process).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import python_env
from radpatch.prove import names_check
from tests.lib.fresh_runs import Run, fresh_runs
from tests.lib.generated import sample
from tests.lib.interpreters import OTHER_TARGETS

READS = {  # the new read, and the submodule an extra import would bind
    "xml.dom": ("xml.dom.minidom.parseString('<a/>').documentElement.tagName", "xml.dom.minidom"),
    "xml.etree": ("xml.etree.ElementTree.fromstring('<a/>').tag", "xml.etree.ElementTree"),
    "json.decoder": ("json.decoder.JSONDecodeError.__name__", "json.decoder"),
    "os.path": ("os.path.join('a', 'b')", "os.path"),
    "email.mime": ("email.mime.text.MIMEText('x').get_content_type()", "email.mime.text"),
    "concurrent.futures": ("concurrent.futures.Future.__name__", "concurrent.futures"),
    "logging.handlers": ("logging.handlers.RotatingFileHandler.__name__", "logging.handlers"),
    "importlib.util": ("importlib.util.find_spec.__name__", "importlib.util"),
}
IMPORTS = ("parent-only", "also-submodule", "submodule-in-function", "submodule-in-f")
EXES = {"own": sys.executable, **{v: str(p) for v, p in OTHER_TARGETS.items()}}
# generated families: every case unsampled, about one in RADPATCH_TEST_SAMPLE (each target, read and
# placement still) turning with the interpreter (tests/lib/generated.py)
CASES = sample(itertools.product(EXES, READS, IMPORTS))
# each target asked for its environment once per run, not once per case
target_env = functools.cache(python_env)


def sources(read: str, imports: str) -> tuple[str, str]:
    expr, sub = READS[read]
    top = read.split(".")[0]
    head = f"import {top}\n"
    if imports == "also-submodule":
        head += f"import {sub}\n"
    before = head + "\n\ndef f():\n    return 'old'\n"
    if imports == "submodule-in-function":
        before += f"\n\ndef g():\n    import {sub}\n    return None\n"
    new = f"import {sub}\n    return {expr}" if imports == "submodule-in-f" else f"return {expr}"
    return before, before.replace("return 'old'", new)


@pytest.fixture(scope="module")
def read_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Run]:
    """Each case's patched module run by its target as a fresh interpreter runs it, every case of a
    target in one process of it (tests/lib/fresh_runs)."""
    tmp = tmp_path_factory.mktemp("reads")
    runs: dict[tuple[str, ...], Run] = {}
    for exe in EXES:
        cases = [c for c in CASES if c[0] == exe]
        programs = [sources(read, imports)[1] + "\nprint(f())\n" for _, read, imports in cases]
        runs.update(zip(cases, fresh_runs(EXES[exe], programs, tmp / exe)))
    return runs


@pytest.mark.parametrize(("exe", "read", "imports"), CASES, ids=["-".join(c) for c in CASES])
def test_a_submodule_read_nothing_imports_is_refused(
    exe: str, read: str, imports: str, read_runs: dict[tuple[str, ...], Run]
) -> None:
    before, after = sources(read, imports)
    run = read_runs[exe, read, imports]
    fails = run.returncode != 0
    if fails:
        assert "AttributeError" in run.stderr, run.stderr
    refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target_env(EXES[exe]))
    why = None if refused is None else refused.why
    assert (why is not None) == fails, (why, run.stderr[-300:])
    if why is not None:
        assert "a fresh `import" in why and f"import {read}" in why, why


PACKAGE_READS = {  # the new read; the other module's import of the submodule, in three forms
    "xml.dom": (
        "xml.dom.minidom.parseString('<a/>').documentElement.tagName",
        ("import xml.dom.minidom", "from xml.dom.minidom import parseString", "from xml import dom"),
    ),
    "multiprocessing.connection": (
        "multiprocessing.connection.wait.__name__",
        (
            "import multiprocessing.connection",
            "from multiprocessing.connection import wait",
            "from multiprocessing import connection",
        ),
    ),
    "logging.handlers": (
        "logging.handlers.RotatingFileHandler.__name__",
        ("import logging.handlers", "from logging.handlers import RotatingFileHandler", "from logging import handlers"),
    ),
}
NOT_RUN = {  # the other module names the submodule's import where it never runs
    "in-function": "def g():\n    {}\n",
    "type-checking": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    {}\n",
    "docstring": '"""Usage:\n\n    {}\n"""\n',
}
OTHER = ("import-submodule", "from-submodule", "from-parent", "parent-only", *NOT_RUN)
# what imports toy.other in a process that imports toy.m and calls its f() (issue 21 F4: a module
# nothing that runs imports binds nothing, however it spells the import)
WHO = {
    "nothing": ("", ""),
    "package-init": ("from . import other\n", ""),
    "init-absolute": ("import toy.other\n", ""),
    "m-module-level": ("", "from toy import other as _other\n"),
    "m-relative": ("", "from . import other as _other\n"),
    "m-never-called-function": ("", "def g():\n    import toy.other\n\n\n"),
    "init-under-type-checking": (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from . import other\n",
        "",
    ),
}
PACKAGE_CASES = sample(itertools.product(EXES, PACKAGE_READS, OTHER, WHO))


def toy_package(root: Path, read: str, other: str, who: str = "package-init") -> tuple[str, str]:
    """toy/__init__.py, toy/other.py importing the submodule as `other` says, toy/m.py holding the
    original, toy.other imported as `who` says; returns (original, patched) of toy/m.py."""
    expr, forms = PACKAGE_READS[read]
    top = read.split(".")[0]
    pkg = root / "toy"
    pkg.mkdir()
    init, head = WHO[who]
    (pkg / "__init__.py").write_text(init)
    if other in NOT_RUN:
        text = f"import {top}\n" + NOT_RUN[other].format(forms[0])
    else:
        text = (f"import {top}" if other == "parent-only" else forms[OTHER.index(other)]) + "\n"
    (pkg / "other.py").write_text(text)
    before = f"import {top}\n{head}\n\ndef f():\n    return 'old'\n"
    (pkg / "m.py").write_text(before)
    return before, before.replace("return 'old'", f"return {expr}")


@pytest.fixture(scope="module")
def package_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Run]:
    """Each case's package, toy/m.py patched, imported by its target as a fresh interpreter imports
    it and f() called, every case of a target in one process of it (tests/lib/fresh_runs)."""
    tmp = tmp_path_factory.mktemp("packages")
    runs: dict[tuple[str, ...], Run] = {}
    for exe in EXES:
        cases = [c for c in PACKAGE_CASES if c[0] == exe]
        programs = []
        for i, (_, read, other, who) in enumerate(cases):
            root = tmp / exe / str(i)
            root.mkdir(parents=True)
            (root / "toy" / "m.py").write_text(toy_package(root, read, other, who)[1])
            programs.append(f"import sys; sys.path.insert(0, {str(root)!r}); import toy.m; print(toy.m.f())")
        runs.update(zip(cases, fresh_runs(EXES[exe], programs, tmp / exe / "runs")))
    return runs


@pytest.mark.parametrize(("exe", "read", "other", "who"), PACKAGE_CASES, ids=["-".join(c) for c in PACKAGE_CASES])
def test_a_submodule_a_module_of_the_package_that_runs_imports_is_accepted(
    exe: str, read: str, other: str, who: str, tmp_path: Path, package_runs: dict[tuple[str, ...], Run]
) -> None:
    before, after = toy_package(tmp_path, read, other, who)
    run = package_runs[exe, read, other, who]
    fails = run.returncode != 0
    if fails:
        assert "AttributeError" in run.stderr, run.stderr
    env = target_env(EXES[exe])
    env = dataclasses.replace(env, paths=(tmp_path, *env.paths))
    refused = names_check.names_refusal(before.encode(), after.encode(), "toy/m.py", env, module="toy.m")
    why = None if refused is None else refused.why
    assert (why is not None) == fails, (why, run.stderr[-300:])
    if why is not None:
        fix = PACKAGE_READS[read][1][0]
        line = after.splitlines().index(f"    return {PACKAGE_READS[read][0]}") + 1
        assert f"line {line}, in f()" in why and f"add_import: {fix}" in why and "\n" not in why, why
