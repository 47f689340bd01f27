"""A package `pp` of a few modules written under a temp site, the names proof's verdict on a change
of its pp/mod.py, and the truth it is held to: whether importing the package, as patched, fails in
a fresh interpreter (the tests of names_check's import cycles and importers share it)."""

from __future__ import annotations

import sys
import sysconfig
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from radpatch.install.environment import PythonEnv
from radpatch.prove import names_check
from tests.lib.fresh_runs import fresh_run


def site_env(root: Path) -> PythonEnv:
    """This interpreter as the target, with `root` as its site-packages."""
    return PythonEnv(sys.executable, (root, Path(sysconfig.get_paths()["stdlib"])), root, sys.version_info[:2])


def write_package(root: Path, modules: Mapping[str, str]) -> Path:
    """root/pp/<name>.py for each of `modules` (name -> source); returns pp/mod.py."""
    pkg = root / "pp"
    pkg.mkdir(parents=True, exist_ok=True)
    for name, source in modules.items():
        (pkg / f"{name}.py").write_text(source)
    return pkg / "mod.py"


def imports_fail(root: Path, statements: str) -> bool:
    """Whether `statements` (imports of pp's modules) fail in a fresh interpreter with `root` on its
    path; a failure other than an ImportError or AttributeError fails the test."""
    code = f"import sys; sys.path.insert(0, {str(root)!r}); {statements}"
    done = fresh_run(sys.executable, code, (), ("-I", "-B"))
    assert done.returncode == 0 or "ImportError" in done.stderr or "AttributeError" in done.stderr, done.stderr
    return done.returncode != 0


class Judged(NamedTuple):
    """The truth (importing the patched package fails) and the proof's refusal (None: accepted)."""

    fails: bool
    refused: names_check.Refusal | None


def judge(root: Path, patched: str, statements: str) -> Judged:
    """pp/mod.py (as written) changed to `patched`: whether `statements` then fail (they must not
    before), and the proof's verdict, which reads the package as installed, before the change."""
    mod = root / "pp" / "mod.py"
    before = mod.read_bytes()
    assert not imports_fail(root, statements)
    mod.write_text(patched)
    truth = imports_fail(root, statements)
    after = mod.read_bytes()
    mod.write_bytes(before)
    return Judged(truth, names_check.names_refusal(before, after, str(mod), site_env(root), "pp.mod"))


def package_release(pkg: str, core: str, files: Mapping[str, str]) -> dict[str, str]:
    """A release's files: `pkg` (a top-level package, or dotted a subpackage) whose core.py is `core`,
    and `files` beside it, `{pkg}` in them its import name (tests/releases/test_verify_*.py)."""
    root = pkg.replace(".", "/")
    out = {f"{root}/__init__.py": "", f"{root}/core.py": core}
    if "." in pkg:
        out[f"{pkg.split('.')[0]}/__init__.py"] = ""
    out.update({f"{root}/{rel}": text.replace("{pkg}", pkg) for rel, text in files.items()})
    return out


def core_entry(dist: str, pkg: str, description: str, rewrite: str) -> str:
    """An entry of the one rewrite `r` (`rewrite`, `{pkg}` in it the import name) on `pkg`.core."""
    return f"""\
summary: A change
description: {description}
distribution: {dist}
supported: ">=1.0,<2"
modules:
  core: {pkg}.core
rewrites:
  - id: r
    {rewrite.replace("{pkg}", pkg)}
"""
