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

import ast
import base64
import csv
import hashlib
import io
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from harness import vllm_sdist
from tests.lib import REPO
from tests.lib.importing import clean_env, gnu_patch
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import build_wheel

pytestmark = [pytest.mark.real, pytest.mark.network]

FIXTURE = REPO / "tests" / "fixtures" / "series" / "omni-infer-vllm-0.9.0"
VERSION = "0.9.0"


def _radpatch(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "radpatch", "--python", str(python), *args],
        capture_output=True,
        text=True,
        timeout=3600,
        env=clean_env(),
        check=False,
    )


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


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


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
    out = _radpatch(python, "import", *map(str, patches), "-p1", "--include=vllm/*.py", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    left_out = re.findall(r"^  left out: (\S+)", out.stdout, re.MULTILINE)
    assert left_out == ["b/requirements/common.txt"], out.stdout
    names = [p.stem for p in patches if (reg / f"{p.stem}.yaml").exists()]
    assert len(names) == len(patches) - 1  # common_dependency.patch changes the requirements only
    entries = {n: yaml.safe_load((reg / f"{n}.yaml").read_text()) for n in names}
    stacked = [n for n, e in entries.items() if e.get("requires")]
    assert len(stacked) >= 10, stacked

    applied = _radpatch(python, "--registry", str(reg), "apply", *names)
    assert applied.returncode == 0, applied.stderr
    same_bytes = 0
    for rel in changed:
        mine, theirs = (site / rel).read_bytes(), (gnu / rel).read_bytes()
        assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(theirs)), rel
        same_bytes += mine == theirs
    print(
        f"\nomni-infer vLLM {VERSION} series: {len(patches)} patch files, {len(entries)} entries "
        f"({len(stacked)} stacked), {sum(len(e['rewrites']) for e in entries.values())} rewrites, "
        f"{len(changed)} files; AST-equal to GNU patch: {len(changed)}, byte-equal: {same_bytes}"
    )

    status = _radpatch(python, "--registry", str(reg), "status", "--check", *names)
    assert status.returncode == 0, status.stdout + status.stderr
    states = {ln.split()[0]: ln.split()[1] for ln in status.stdout.splitlines()[1:] if ln.strip()}
    assert states == {n: "applied" for n in names}, status.stdout

    reverted = _radpatch(python, "--registry", str(reg), "revert", *names)
    assert reverted.returncode == 0, reverted.stderr
    (dist_info,) = site.glob("vllm-*.dist-info")
    record = {r[0]: r[1] for r in csv.reader(io.StringIO((dist_info / "RECORD").read_text())) if len(r) > 1}
    for rel in changed:
        assert (site / rel).read_bytes() == pristine[rel] and record[rel] == _record_hash(pristine[rel]), rel
