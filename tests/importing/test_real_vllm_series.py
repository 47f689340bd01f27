"""Real tier: a vLLM patch series a team applies to its deployment, imported in one command and
applied like GNU patch.

The series is omni-infer's (github.com/zhengjinhuan/omni-infer, MIT licence, copied with its
LICENSE into tests/fixtures/series/omni-infer-vllm-0.9.0/): the patch files its
infer_engines/bash_install_code.sh applies to vLLM v0.9.0 (`git apply`, equivalent to
`patch -p1` on them), in that script's order: 18 patch files, 148 hunks on 23 modules, most
stacked on files earlier patches changed (scheduler.py by ten of them), several at offsets,
and one requirements file (left out with `--include`). The script's 19th patch,
function_calling_and_reasoning_content.patch, is not in the fixture: it makes
chat_completion_full_generator read `tool_choice_function_name`, which is defined only in
another method, and radpatch's proof refuses the entry for that NameError.

The target is vLLM 0.9.0's own package files, from its sdist on the index
(harness/vllm_sdist.py, cached), built into a wheel by the one wheel builder and pip-installed
into a temp venv (the compiled extensions are not in the sdist; radpatch reads Python files
only). GNU patch applies the same sections to a copy of the same files. Then every file the
series changes must be AST-equal (byte-equal ones counted and printed), `status --check` exit 0
with every entry applied, and `revert` give RECORD's bytes back.
"""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

import pytest
import yaml

from harness import vllm_sdist
from tests.lib import REPO
from tests.lib.importing import gnu_patch
from tests.lib.series import apply_like_gnu, check_applied, radpatch, revert_to_record
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import build_wheel

pytestmark = [pytest.mark.real, pytest.mark.network]

FIXTURE = REPO / "tests" / "fixtures" / "series" / "omni-infer-vllm-0.9.0"
VERSION = "0.9.0"


def _vllm_files() -> dict[str, bytes]:
    """vllm/** of the release's sdist, as site-packages paths."""
    top = f"vllm-{VERSION}/"
    files: dict[str, bytes] = {}
    with tarfile.open(vllm_sdist.ensure_sdist(VERSION)) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.startswith(f"{top}vllm/"):
                data = tar.extractfile(m)
                assert data is not None
                files[m.name[len(top) :]] = data.read()
    return files


def test_a_real_vllm_series_imports_whole_and_applies_like_gnu_patch(tmp_path: Path) -> None:
    patches = [FIXTURE / n for n in (FIXTURE / "series").read_text().split()]
    files = _vllm_files()
    wheel = build_wheel(tmp_path / "wheel", "vllm", VERSION, files)
    python = make_venv(tmp_path / "venv")
    pip(python, "install", "--no-deps", "--no-index", "--no-compile", str(wheel))
    site = site_packages(tmp_path / "venv")
    pristine = {rel: (site / rel).read_bytes() for rel in files}

    gnu = tmp_path / "gnu"
    for rel, data in files.items():
        (gnu / rel).parent.mkdir(parents=True, exist_ok=True)
        (gnu / rel).write_bytes(data)
    (gnu / "requirements").mkdir()
    (gnu / "requirements" / "common.txt").write_text("")  # the one section outside the package
    for p in patches:
        if "requirements/" in p.read_text():
            continue  # only that section: the test checks this below, against the import's report
        done = gnu_patch(gnu, p, 1)
        assert done.returncode == 0, f"{p.name}: {done.stdout}{done.stderr}"
    changed = sorted(rel for rel in files if (gnu / rel).read_bytes() != files[rel])

    reg = tmp_path / "reg"
    out = radpatch(python, "import", *map(str, patches), "-p1", "--include=vllm/*.py", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    left_out = re.findall(r"^  left out: (\S+)", out.stdout, re.MULTILINE)
    assert left_out == ["b/requirements/common.txt"], out.stdout
    names = [p.stem for p in patches if (reg / f"{p.stem}.yaml").exists()]
    assert len(names) == len(patches) - 1  # common_dependency.patch changes the requirements only
    entries = {n: yaml.safe_load((reg / f"{n}.yaml").read_text()) for n in names}
    stacked = [n for n, e in entries.items() if e.get("requires")]
    assert len(stacked) >= 10, stacked

    same_bytes = apply_like_gnu(python, reg, names, site, gnu, changed)
    print(
        f"\nomni-infer vLLM {VERSION} series: {len(patches)} patch files, {len(entries)} entries "
        f"({len(stacked)} stacked), {sum(len(e['rewrites']) for e in entries.values())} rewrites, "
        f"{len(changed)} files; AST-equal to GNU patch: {len(changed)}, byte-equal: {same_bytes}"
    )
    check_applied(python, reg, names)
    revert_to_record(python, reg, names, site, "vllm", {rel: pristine[rel] for rel in changed})
