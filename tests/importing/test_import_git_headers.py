"""git sections without a hunk, from real `git format-patch` output: an empty new module or package
`__init__.py` (`new file mode`, `index 0000000..e69de29`, no hunk), a copy (`copy from`/`copy to`),
each imported and applied by the engine to a pip-installed wheel and compared byte for byte with
what GNU patch makes of the same patch file, in seeded combinations; and the ones an entry cannot
say (a deleted empty module, a rename, a mode change, a binary file), each refused by name in one
or two lines, with nothing written, whatever it is combined with."""

from __future__ import annotations

import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import PACKAGE, Venv, gnu_patch

pytestmark = pytest.mark.wheel

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.fileMode=true"]


def _repo(venv: Venv, root: Path) -> Path:
    """A git repository holding the installed package as pip wrote it, committed."""
    shutil.copytree(venv.site / PACKAGE, root / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    subprocess.run([*GIT, "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(root), "commit", "-qm", "base"], check=True)
    return root


def _format_patch(root: Path, out: Path, *flags: str) -> Path:
    subprocess.run([*GIT, "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(root), "commit", "-qm", "Change the package"], check=True)
    done = subprocess.run(
        [*GIT, "-C", str(root), "format-patch", "-1", "-o", str(out), *flags],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(done.stdout.strip())


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


# --- what an entry can say: each edits the repository's work tree ------------------------------


def _empty_package(root: Path, rng: random.Random, k: int) -> None:
    pkg = root / PACKAGE / f"plug{k}"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "fast.py").write_text(f"def fast():\n    return {k}\n")


def _empty_module(root: Path, rng: random.Random, k: int) -> None:
    (root / PACKAGE / "sub" / f"marker{k}.py").write_text("")


def _empty_nested_package(root: Path, rng: random.Random, k: int) -> None:
    deep = root / PACKAGE / f"outer{k}" / "inner"
    deep.mkdir(parents=True)
    (deep.parent / "__init__.py").write_text("")
    (deep / "__init__.py").write_text("")


def _copy(root: Path, rng: random.Random, k: int) -> None:
    source = rng.choice(["std_shlex.py", "std_fnmatch.py", "std_textwrap.py"])
    text = (root / PACKAGE / source).read_text()
    if rng.random() < 0.5:
        text += f"\n\nCOPIED = {k}\n"
    (root / PACKAGE / f"copy{k}_{source}").write_text(text)


def _executable_new(root: Path, rng: random.Random, k: int) -> None:
    path = root / PACKAGE / f"tool{k}.py"
    path.write_text("#!/usr/bin/env python3\nprint('tool')\n")
    path.chmod(0o755)


MAKERS: tuple[Callable[[Path, random.Random, int], None], ...] = (
    _empty_package,
    _empty_module,
    _empty_nested_package,
    _copy,
    _executable_new,
)


def test_header_only_sections_import_and_apply_as_gnu_patch_applies_them(venv: Venv, tmp_path: Path) -> None:
    pristine = _tree(venv.site / PACKAGE)
    for seed in range(6):
        rng = random.Random(seed)
        work = tmp_path / str(seed)
        root = _repo(venv, work / "repo")
        makers = rng.sample(MAKERS, rng.randint(1, len(MAKERS)))
        if seed < len(MAKERS):
            makers = [MAKERS[seed], *[m for m in makers if m is not MAKERS[seed]]]  # each kind at least once
        for k, make in enumerate(makers):
            make(root, rng, k)
        flags = ("-C", "-C", "--find-copies-harder") if rng.random() < 0.7 else ()
        patch = _format_patch(root, work / "out", *flags)
        text = patch.read_text()
        if _empty_package in makers and not flags:  # with copies found, git calls it a copy of sub/__init__.py
            assert "index 0000000..e69de29" in text and "new file mode 100644" in text  # and writes no hunk
        gnu = work / "gnu"
        shutil.copytree(venv.site / PACKAGE, gnu / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
        assert gnu_patch(gnu, patch, 1).returncode == 0, text

        reg = work / "reg"
        out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
        assert out.returncode == 0, (seed, out.stderr, text)
        if _executable_new in makers:
            assert "left out: the mode 100755 of" in out.stdout, out.stdout
        name = patch.stem
        entry = yaml.safe_load((reg / f"{name}.yaml").read_text())
        assert {next(iter(set(r) - {"id", "file"})) for r in entry["rewrites"]} == {"create_module"}, entry
        applied = venv.radpatch("--registry", str(reg), "apply", name)
        assert applied.returncode == 0, (seed, applied.stderr)

        assert _tree(venv.site / PACKAGE) == _tree(gnu / PACKAGE), seed  # byte for byte: every file, every new one
        status = venv.radpatch("--registry", str(reg), "status", "--check", name)
        assert status.returncode == 0, status.stdout + status.stderr
        reverted = venv.radpatch("--registry", str(reg), "revert", name)
        assert reverted.returncode == 0, reverted.stderr
        assert _tree(venv.site / PACKAGE) == pristine, seed


@pytest.mark.parametrize("changed", [False, True], ids=["copied as it is", "copied and changed"])
def test_a_copy_of_a_file_the_patch_also_edits_copies_it_as_it_was(venv: Venv, tmp_path: Path, changed: bool) -> None:
    """att60 F01: git writes the source's edit first, then `copy from` it; GNU patch copies the file as it
    was before the patch file, not as the edit leaves it (which radpatch did: the edit got into the copy)."""
    root = _repo(venv, tmp_path / "repo")
    source = root / PACKAGE / "std_shlex.py"
    original = source.read_text()
    (root / PACKAGE / "zz_copy.py").write_text(original + ("\n\nCOPIED = 1\n" if changed else ""))
    source.write_text(original.replace("self.commenters = '#'", "self.commenters = 'THE_SOURCES_OWN_EDIT'", 1))
    assert source.read_text() != original
    patch = _format_patch(root, tmp_path / "out", "-C", "-C", "--find-copies-harder")
    text = patch.read_text()
    assert "copy from" in text and text.index("+++ b/" + PACKAGE + "/std_shlex.py") < text.index("copy from"), text
    gnu = tmp_path / "gnu"
    shutil.copytree(venv.site / PACKAGE, gnu / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    assert gnu_patch(gnu, patch, 1).returncode == 0, text
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    applied = venv.radpatch("--registry", str(reg), "apply", patch.stem)
    assert applied.returncode == 0, applied.stderr
    assert _tree(venv.site / PACKAGE) == _tree(gnu / PACKAGE)
    assert "THE_SOURCES_OWN_EDIT" not in (venv.site / PACKAGE / "zz_copy.py").read_text()


# --- what an entry cannot say: refused by name ------------------------------------------------


def _delete_empty(root: Path) -> str:
    (root / PACKAGE / "sub" / "__init__.py").unlink()  # empty in the wheel: git writes no hunk
    return f"{PACKAGE}/sub/__init__.py: the patch deletes this module"


def _rename(root: Path) -> str:
    (root / PACKAGE / "std_shlex.py").rename(root / PACKAGE / "std_shlex2.py")
    return f"a git rename of {PACKAGE}/std_shlex.py to {PACKAGE}/std_shlex2.py"


def _rename_empty(root: Path) -> str:
    (root / PACKAGE / "sub" / "__init__.py").rename(root / PACKAGE / "sub" / "init2.py")
    return f"a git rename of {PACKAGE}/sub/__init__.py to {PACKAGE}/sub/init2.py"


def _mode(root: Path) -> str:
    (root / PACKAGE / "std_fnmatch.py").chmod(0o755)
    return f"{PACKAGE}/std_fnmatch.py changes only its mode (100644 -> 100755)"


def _rename_edited(root: Path) -> str:
    text = (root / PACKAGE / "std_textwrap.py").read_text()
    (root / PACKAGE / "std_textwrap.py").unlink()
    (root / PACKAGE / "std_textwrap2.py").write_text(text + "\nRENAMED = True\n")  # `similarity index 99%`, a hunk
    return f"a git rename of {PACKAGE}/std_textwrap.py to {PACKAGE}/std_textwrap2.py"


def _symlink(root: Path) -> str:
    (root / PACKAGE / "link.py").symlink_to("std_shlex.py")  # `new file mode 120000`, the target as its one line
    return f"{PACKAGE}/link.py is a symbolic link in the patch (git mode 120000)"


def _binary(root: Path) -> str:
    (root / PACKAGE / "blob.bin").write_bytes(bytes(range(256)))
    return f"binary patch for {PACKAGE}/blob.bin: radpatch (like GNU patch) cannot apply it"


def _binary_changed(root: Path) -> str:
    (root / PACKAGE / "data.txt").write_bytes(b"\0binary now\n")  # a `delta`/`literal` of an installed file
    return f"binary patch for {PACKAGE}/data.txt: radpatch (like GNU patch) cannot apply it"


# GNU patch 2.7 applies the others (renames, links, modes) and cannot apply these two: exit 1
GNU_CANNOT = (_binary, _binary_changed)


@pytest.mark.parametrize(
    "kind",
    [_delete_empty, _rename, _rename_empty, _rename_edited, _mode, _symlink, _binary, _binary_changed],
    ids=lambda f: f.__name__,
)
def test_header_only_sections_an_entry_cannot_say_are_refused_by_name(
    venv: Venv, tmp_path: Path, kind: Callable[[Path], str]
) -> None:
    root = _repo(venv, tmp_path / "repo")
    said = kind(root)
    # with something it can say in the same patch file (not empty: git would pair two empty files as a rename)
    (root / PACKAGE / "sub" / "said.py").write_text("SAID = 1\n")
    patch = _format_patch(root, tmp_path / "out", "--binary")
    gnu = tmp_path / "gnu"
    shutil.copytree(venv.site / PACKAGE, gnu / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    assert gnu_patch(gnu, patch, 1).returncode == (1 if kind in GNU_CANNOT else 0), patch.read_text()
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 1, out.stdout + out.stderr
    assert said in out.stderr and "--exclude" in out.stderr, out.stderr
    assert f"{patch}:" in out.stderr, out.stderr  # the patch file is named
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 2, out.stderr
    assert "changes only its mode" not in out.stderr or kind is _mode
    assert not reg.exists()


def test_an_empty_new_module_that_exists_is_refused_as_created_already(venv: Venv, tmp_path: Path) -> None:
    rel = f"{PACKAGE}/sub/__init__.py"  # installed, and empty
    patch = tmp_path / "p.patch"
    patch.write_text(f"diff --git a/{rel} b/{rel}\nnew file mode 100644\nindex 0000000..e69de29\n")
    out = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg"))
    assert out.returncode == 1 and f"{rel}: the patch creates this file (empty), which already exists" in out.stderr
    assert not (tmp_path / "reg").exists()


@pytest.mark.parametrize("kind", GNU_CANNOT, ids=lambda f: f.__name__)
def test_a_binary_patch_left_out_on_purpose_is_listed_as_one_and_the_rest_imported(
    venv: Venv, tmp_path: Path, kind: Callable[[Path], str]
) -> None:
    root = _repo(venv, tmp_path / "repo")
    kind(root)
    (root / PACKAGE / "sub" / "said.py").write_text("SAID = 1\n")
    patch = _format_patch(root, tmp_path / "out", "--binary")
    reg = tmp_path / "reg"
    out = venv.radpatch("import", str(patch), "-p1", "--exclude", "*.bin", "--exclude", "*.txt", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    assert "(a binary patch)" in out.stdout and "(no hunks)" not in out.stdout, out.stdout
    assert (reg / f"{patch.stem}.yaml").exists()
