"""radpatch's own wheel is fit for the package index (issue 11.7): license file and expression,
classifiers that agree with what tools/test.sh tests, dependency floors, the shipped registry."""

from __future__ import annotations

import email.parser
import re
import zipfile
from pathlib import Path

import pytest

from tests.lib import REPO


@pytest.fixture(scope="module")
def wheel(radpatch_wheel: Path) -> Path:
    """radpatch's own wheel (tests/conftest.py builds it once, offline, with its real backend)."""
    assert radpatch_wheel.name.startswith("radpatch-") and radpatch_wheel.name.endswith("-py3-none-any.whl")
    return radpatch_wheel


def _metadata(wheel: Path) -> tuple[email.message.Message, list[str]]:
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(z.read(meta).decode()), names


def test_license_is_in_the_wheel_and_declared(wheel: Path) -> None:
    meta, names = _metadata(wheel)
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta.get_all("License-File") == ["LICENSE"]
    (lic,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    with zipfile.ZipFile(wheel) as z:
        text = z.read(lic).decode()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert text == (REPO / "LICENSE").read_text()


def test_classifiers_are_valid_and_name_exactly_the_pythons_the_tests_run(wheel: Path) -> None:
    trove = pytest.importorskip("trove_classifiers")
    meta, _ = _metadata(wheel)
    classifiers = meta.get_all("Classifier") or []
    assert classifiers and not [c for c in classifiers if c not in trove.classifiers]
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression says it
    pythons = sorted(
        c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    )
    assert pythons == ["3.10", "3.11", "3.12", "3.13"]
    assert meta["Requires-Python"] == ">=3.10"
    script = (REPO / "tools" / "test.sh").read_text()
    assert "for minor in 10 11 12 13" in script  # the matrix tools/test.sh runs is the classifiers' list


def test_requirements_are_the_four_runtime_dependencies_at_their_floors(wheel: Path) -> None:
    meta, _ = _metadata(wheel)
    plain = sorted(r for r in meta.get_all("Requires-Dist") or [] if ";" not in r)
    floors = sorted(
        f"{line.split('==')[0]}>={line.split('==')[1]}"
        for line in (REPO / "tools" / "constraints-floor.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    assert plain == floors


def test_the_registry_and_payloads_ship_in_the_wheel(wheel: Path) -> None:
    _, names = _metadata(wheel)
    assert "radpatch/_shipped/registry/kv_group_size.yaml" in names
    assert "radpatch/_shipped/patches/kv_group_size/payload.py" in names
    assert "radpatch/py.typed" in names
    urls = [line for line in (REPO / "pyproject.toml").read_text().splitlines() if line.startswith("[project.urls]")]
    if urls:  # once the project has a public home, the wheel must carry it
        meta, _ = _metadata(wheel)
        assert meta.get_all("Project-URL")
