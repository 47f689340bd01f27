"""`radpatch import` end to end, against GNU patch: real modules (stdlib, vLLM fixtures) installed
by pip from a wheel, diffs generated from seeded edits, imported and applied by the real engine
through its CLI; every patched file must be AST-identical to what /usr/bin/patch makes of the
same diff (byte-identical ones are counted and printed), `status --check` must pass, and
`revert` must give RECORD's bytes back."""

from __future__ import annotations

import ast
import base64
import hashlib
import random
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import PACKAGE, Venv, edit, gnu_diff, gnu_patch, without_markers

pytestmark = pytest.mark.wheel

MODULES = (
    "std_textwrap",
    "std_shlex",
    "std_fnmatch",
    "std_calendar",
    "std_configparser",
    "std_difflib",
    "std_argparse",
    "std_dataclasses",
    "vllm_0_32_0_core",
    "vllm_0_33_0_core",
    "vllm_0_32_0_kv_cache_utils",
)


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _diff(tmp: Path, rel: str, before: str, after: str, context: int) -> str:
    return gnu_diff(tmp, rel, before, after, context).stdout.decode()


BYTE_EQUAL: list[bool] = []
BUT_MARKERS: list[bool] = []


@pytest.mark.parametrize("seed", range(16))
def test_imported_entry_gives_what_gnu_patch_gives(venv: Venv, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    modules = rng.sample(MODULES, rng.choice([1, 1, 2]))
    patch_text = ""
    pristine: dict[str, bytes] = {}
    for m in modules:
        rel = f"{PACKAGE}/{m}.py"
        data = (venv.site / rel).read_bytes()
        pristine[rel] = data
        before = data.decode()
        after = before
        for k in range(rng.randint(1, 3)):
            after = edit(after, rng, seed * 10 + k)
        # the diff is made against a copy with two comment lines more at the top: every hunk is at an offset
        shifted = "# vendored copy\n# of the module\n" + before
        patch_text += _diff(
            tmp_path / "d", rel, shifted, "# vendored copy\n# of the module\n" + after, rng.choice([1, 3, 5])
        )
    patch = tmp_path / f"edit{seed}.patch"
    patch.write_text(patch_text)
    expected = tmp_path / "gnu"
    for rel, data in pristine.items():
        (expected / rel).parent.mkdir(parents=True, exist_ok=True)
        (expected / rel).write_bytes(data)
    gnu = gnu_patch(expected, patch, 1)
    assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    assert "offset" in gnu.stdout

    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    said = [line for line in gnu.stdout.splitlines() if line.startswith("Hunk #")]
    assert said and [line.split(": ", 1)[1] for line in out.stdout.splitlines() if ": Hunk #" in line] == said
    name = f"edit{seed}"
    entry = yaml.safe_load((reg / f"{name}.yaml").read_text())
    assert entry["distribution"] == "rpimport-corpus" and entry["supported"] == "==1.0.0"
    assert str(patch) in entry["description"]
    applied = venv.radpatch("--registry", str(reg), "apply", name)
    assert applied.returncode == 0, applied.stderr + (reg / f"{name}.yaml").read_text()
    same = 0
    for rel in pristine:
        mine, theirs = (venv.site / rel).read_text(), (expected / rel).read_text()
        assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(theirs)), rel
        same += (venv.site / rel).read_bytes() == (expected / rel).read_bytes()
        BYTE_EQUAL.append(mine == theirs)
        BUT_MARKERS.append(without_markers(mine) == theirs)
    # the import's own count (its entries run in memory) is the one the engine's apply gives on disk
    counted = f"{same} of {len(pristine)} file{'s' if len(pristine) != 1 else ''} byte-identical to patch's result"
    assert counted in out.stdout, out.stdout
    assert ("the others AST-equal" in out.stdout) == (same < len(pristine)), out.stdout
    assert venv.radpatch("--registry", str(reg), "status", "--check", name).returncode == 0
    reverted = venv.radpatch("--registry", str(reg), "revert", name)
    assert reverted.returncode == 0, reverted.stderr
    record = next(venv.site.glob("rpimport_corpus-*.dist-info")).joinpath("RECORD").read_text()
    for rel, data in pristine.items():
        assert (venv.site / rel).read_bytes() == data
        assert f"{rel},{_record_hash(data)}," in record
    print(
        f"byte-identical so far: {sum(BYTE_EQUAL)} of {len(BYTE_EQUAL)} files; "
        f"but for radpatch's markers: {sum(BUT_MARKERS)}"
    )
