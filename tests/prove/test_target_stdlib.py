"""A new import of a standard-library module the target Python lacks (`import tomllib` for 3.10,
`import imp` for 3.12, `import cgi` for 3.13) is refused: the target interpreter is asked which
modules its standard library has and looks for the rest on its own import path, without
importing anything.

Generated: for each real target interpreter under /root/.pyenv that is another version than
radpatch's own, the modules radpatch's standard library has and that target's does not (read
from both interpreters' sys.stdlib_module_names), plus one every version has, times how the patch
imports it (module level, `from` import, inside the function, guarded by try/except ImportError
or by a version check, under TYPE_CHECKING). Each patched module is also run by that
interpreter: the proof must refuse exactly the modules that raise ModuleNotFoundError.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.install.environment import PythonEnv, python_env
from radpatch.prove import names_check, refusal
from tests.lib.interpreters import OTHER_TARGETS, fail_when_run, stdlib_lacking

SHAPES = {
    "import": ("import {m}\n", "    return 1\n"),
    "import-as": ("import {m} as _rp_mod\n", "    return 1\n"),
    "function": ("", "    import {m}\n    return 1\n"),
    "try-guarded": ("try:\n    import {m}\nexcept ImportError:\n    {m} = None\n", "    return 1\n"),
    "version-guarded": ("if sys.version_info < (3, 0):\n    import {m}\n", "    return 1\n"),
    "flag-guarded": ("PY2 = sys.version_info < (3, 0)\nif PY2:\n    import {m}\n", "    return 1\n"),
    "version-taken": ("if sys.version_info >= (3, 0):\n    import {m}\n", "    return 1\n"),
    "version-sliced": ("if sys.version_info[:2] > (3, 9):\n    import {m}\n", "    return 1\n"),
    "in-else": ("if sys.version_info < (3, 0):\n    pass\nelse:\n    import {m}\n", "    return 1\n"),
    "type-checking": ("if TYPE_CHECKING:\n    import {m}\n", "    return 1\n"),
}

HEAD = "import sys\nfrom typing import TYPE_CHECKING\n"


def module(name: str | None, shape: str) -> str:
    top, body = SHAPES[shape]
    if name is None:
        top, body = "", "    return 1\n"
    return HEAD + top.format(m=name) + "\n\ndef f():\n" + body.format(m=name)


def lacking(executable: Path) -> list[str]:
    """Public modules radpatch's standard library has that this interpreter's does not (at most 3)."""
    return list(stdlib_lacking(executable)[:3])


def fails_when_run(executable: str, source: str, tmp: Path, path: Path | None = None) -> bool:
    script = tmp / "generated.py"
    script.write_text(source + "\nf()\n")
    extra = f"import sys; sys.path.insert(0, {str(path)!r}); " if path else ""
    done = subprocess.run(
        [executable, "-I", "-c", extra + f"exec(compile(open({str(script)!r}).read(), 'generated.py', 'exec'))"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 or "ModuleNotFoundError" in done.stderr, done.stderr
    return done.returncode != 0


def cases() -> dict[str, list[tuple[str, str]]]:
    """Per target version: (module name, shape) of every case; a target whose standard library has
    every public module radpatch's has (3.11 seen from 3.12) has no case to refuse and is left out."""
    out: dict[str, list[tuple[str, str]]] = {}
    for version, executable in OTHER_TARGETS.items():
        missing = lacking(executable)
        if missing:
            out[version] = list(itertools.product([*missing, "json"], SHAPES))
    return out


CASES = cases()


@pytest.mark.interpreters
@pytest.mark.skipif(not CASES, reason="no Python other than radpatch's own under /root/.pyenv")
@pytest.mark.parametrize("version", sorted(CASES))
def test_a_new_import_the_targets_standard_library_lacks_is_refused(version: str, tmp_path: Path) -> None:
    """Every (module, shape) case for one target: the proof refuses exactly the modules the target
    fails to run (ModuleNotFoundError), with the target's version in the message."""
    target = python_env(str(OTHER_TARGETS[version]))
    cases = CASES[version]
    sources = [module(name, shape) for name, shape in cases]
    truth = fail_when_run(target.executable, sources, tmp_path, "ModuleNotFoundError")
    assert any(truth) and not all(truth), truth  # both outcomes are exercised
    for (name, shape), fails in zip(cases, truth):
        before, after = module(None, shape), module(name, shape)
        refused = names_check.names_refusal(before.encode(), after.encode(), "m.py", target)
        assert (refused is not None) == fails, (name, shape, after, refused)
        if refused is not None:
            assert refused.hint == refusal.MISSING_MODULE_HINT
            why = refused.why
            assert why.startswith(f"the patched m.py would fail to import for Python {version}: `{name}` (line ")
            assert f"is not a module of Python {version}'s standard library, nor installed there" in why


def test_a_module_installed_on_the_targets_path_is_not_refused(tmp_path: Path) -> None:
    python = OTHER_TARGETS.get("3.10")
    if python is None:
        pytest.skip("no Python 3.10 other than radpatch's own")
    site = tmp_path / "site"
    site.mkdir()
    before, after = module(None, "import").encode(), module("tomllib", "import").encode()
    bare = PythonEnv(str(python), (site,), site, (3, 10))
    assert names_check.names_refusal(before, after, "m.py", bare) is not None
    other = tmp_path / "other-site"
    other.mkdir()
    (other / "tomllib.py").write_text("loads = None\n")  # a backport installed under the standard name
    with_backport = PythonEnv(str(python), (other,), other, (3, 10))
    assert not fails_when_run(bare.executable, after.decode(), tmp_path, other)
    assert names_check.names_refusal(before, after, "m.py", with_backport) is None


def test_radpatchs_own_python_needs_no_subprocess(monkeypatch: pytest.MonkeyPatch) -> None:
    """On radpatch's own version the standard library is the same: the check asks no interpreter."""

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("a subprocess was started")

    monkeypatch.setattr(subprocess, "run", refuse)
    own = PythonEnv(sys.executable, (), Path(sys.prefix), (sys.version_info[0], sys.version_info[1]))
    before, after = module(None, "import").encode(), module("tomllib", "import").encode()
    refused = names_check.names_refusal(before, after, "m.py", own)
    if sys.version_info >= (3, 11):  # tomllib is this interpreter's own
        assert refused is None
    else:  # judged in process all the same: 3.10 has no tomllib, and no interpreter is asked
        assert refused is not None and refused.why == (
            "the patched m.py would fail to import: `tomllib` (line 3, at module level) is not a module of "
            "Python 3.10's standard library, nor installed there (ModuleNotFoundError)"
        )
