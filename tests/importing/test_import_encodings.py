"""Modules Python reads in another encoding than plain UTF-8 (a PEP 263 coding declaration, a UTF-8
byte order mark) import like any other: seeded edits of each (non-ASCII text added or changed,
statements inserted), diffed with GNU diff on the bytes, imported, applied by the engine to a
pip-installed wheel and compared with what GNU patch makes of the same diff (as syntax trees, in
the module's own encoding; byte-equal ones counted); revert gives the wheel's bytes back. A new
module in a declared encoding is created with the patch's bytes, as GNU patch creates it."""

from __future__ import annotations

import ast
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.lib.importing import Venv, gnu_diff, gnu_patch, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

PKG = "rpenc"
MODULES = {
    f"{PKG}/legacy.py": ("latin-1", "# -*- coding: latin-1 -*-\n"),
    f"{PKG}/windows.py": ("cp1252", "# coding: cp1252\n"),
    f"{PKG}/marked.py": ("utf-8-sig", ""),
}
BODY = "NAME = 'caf\xe9'\n\n\ndef greet(who):\n    word = 'h\xe9llo'\n    return word + ' ' + who\n\n\nLIMIT = 10\n"


@pytest.fixture
def env(tmp_path: Path) -> Venv:
    files: dict[str, str | bytes] = {f"{PKG}/__init__.py": ""}
    for rel, (encoding, head) in MODULES.items():
        files[rel] = (head + BODY).encode(encoding)
    wheel = build_wheel(tmp_path / "wheel", PKG, "1.0", files)
    return pip_install(tmp_path / "venv", wheel)


def _edit(text: str, rng: random.Random) -> str:
    choices = [
        lambda t: t.replace("'caf\xe9'", "'caf\xe9 cr\xe8me'"),
        lambda t: t.replace("LIMIT = 10", "LIMIT = 11"),
        lambda t: t.replace("    return word", "    word = word.upper()  # \xe9t\xe9\n    return word"),
        lambda t: t + "\n\ndef extra():\n    return '\xfcber'\n",
    ]
    for f in rng.sample(choices, rng.randint(1, len(choices))):
        text = f(text)
    return text


def _udiff(work: Path, rel: str, old: bytes, new: bytes) -> bytes:
    out = gnu_diff(work, rel, old, new)
    assert out.returncode == 1
    return out.stdout


def test_modules_in_a_declared_encoding_import_and_apply_as_gnu_patch_applies_them(env: Venv, tmp_path: Path) -> None:
    same_bytes = 0
    for seed in range(4):
        rng = random.Random(seed)
        work = tmp_path / str(seed)
        patches = []
        for rel, (encoding, head) in MODULES.items():
            old = (env.site / rel).read_bytes()
            new = (head + _edit(BODY, rng)).encode(encoding)
            patches.append(work / f"{rel.split('/')[1][:-3]}.patch")
            patches[-1].parent.mkdir(parents=True, exist_ok=True)
            patches[-1].write_bytes(_udiff(work / "d" / rel, rel, old, new))
        gnu = work / "gnu"
        shutil.copytree(env.site / PKG, gnu / PKG, ignore=shutil.ignore_patterns("__pycache__"))
        for p in patches:
            assert gnu_patch(gnu, p, 1).returncode == 0
        reg = work / "reg"
        out = env.radpatch("import", *map(str, patches), "-p1", "--out", str(reg))
        assert out.returncode == 0, (seed, out.stderr)
        names = [p.stem for p in patches]
        applied = env.radpatch("--registry", str(reg), "apply", *names)
        assert applied.returncode == 0, (seed, applied.stderr)
        for rel, (encoding, head) in MODULES.items():
            mine, theirs = (env.site / rel).read_bytes(), (gnu / rel).read_bytes()
            assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(theirs)), (seed, rel)  # bytes: as Python reads them
            assert mine.decode(encoding).startswith(head), (seed, rel)  # in the module's own encoding, BOM kept
            same_bytes += mine == theirs
        ran = subprocess.run(
            [str(env.python), "-c", f"import {PKG}.legacy, {PKG}.windows, {PKG}.marked"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
        assert env.radpatch("--registry", str(reg), "status", "--check", *names).returncode == 0
        assert env.radpatch("--registry", str(reg), "revert", *names).returncode == 0
        for rel, (encoding, head) in MODULES.items():
            assert (env.site / rel).read_bytes() == (head + BODY).encode(encoding), (seed, rel)
    print(
        f"modules in a declared encoding: {same_bytes} of {4 * len(MODULES)} byte-equal to GNU patch's, all AST-equal"
    )


NEW_MODULES = {  # a coding declaration, and text only that encoding writes so
    "latin-1": ("# -*- coding: latin-1 -*-\n", "X = '\xe9t\xe9'\n"),
    "cp1252": ("# coding: cp1252\n", "X = '\u20ac \xe9'\n"),
    "koi8-r": ("# vim: set fileencoding=koi8-r :\n", "X = '\u043f\u0440\u0438\u0432\u0435\u0442'\n"),
    "utf-8": ("# -*- coding: utf-8 -*-\n", "X = '\u00e9\u20ac'\n"),
}


@pytest.mark.parametrize("encoding", list(NEW_MODULES))
def test_a_new_module_in_a_declared_encoding_is_created_byte_for_byte(env: Venv, tmp_path: Path, encoding: str) -> None:
    """att20 F4: GNU patch creates it; so does the imported entry, with the same bytes (its content
    file beside the entry holds them as they are); status --check passes; revert deletes it."""
    rel = f"{PKG}/fresh.py"
    head, body = NEW_MODULES[encoding]
    data = (head + body + "\n\ndef twice():\n    return X * 2\n").encode(encoding)
    patch = tmp_path / "fresh.patch"
    text = gnu_diff(tmp_path / "d", rel, b"", data).stdout
    patch.write_bytes(b"--- /dev/null\n" + text[text.index(b"+++ ") :])  # a new file, as `diff -N` writes it
    gnu = tmp_path / "gnu"
    gnu.mkdir()
    assert gnu_patch(gnu, patch, 1).returncode == 0
    reg = tmp_path / "reg"
    out = env.radpatch("import", str(patch), "-p1", "--out", str(reg))
    assert out.returncode == 0, out.stderr
    assert (reg / "fresh" / rel).read_bytes() == data  # the content file: the patch's bytes
    applied = env.radpatch("--registry", str(reg), "apply", "fresh")
    assert applied.returncode == 0, applied.stderr
    assert (env.site / rel).read_bytes() == (gnu / rel).read_bytes() == data
    assert env.radpatch("--registry", str(reg), "status", "--check", "fresh").returncode == 0
    reverted = env.radpatch("--registry", str(reg), "revert", "fresh")
    assert reverted.returncode == 0, reverted.stderr
    assert not (env.site / rel).exists()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"# -*- coding: latin-1 -*-\n", b"# -*- coding: iso-8859-15 -*-\n"),
        (b"", b"# coding: cp1252\n"),
        (b"# coding: cp1252\n", b"\xef\xbb\xbf"),
    ],
)
def test_a_patch_that_changes_the_encoding_is_refused_saying_so(tmp_path: Path, old: bytes, new: bytes) -> None:
    """att59 F8: the coding line (or a byte order mark) changed with the code: an entry keeps the
    file's encoding, so import refuses it naming the change, not the entry's code it never wrote."""
    rel = f"{PKG}/coded.py"
    body = b"A = 'x'\nB = 1\n"
    venv = pip_install(
        tmp_path / "venv", build_wheel(tmp_path / "w", PKG, "1.0", {f"{PKG}/__init__.py": "", rel: old + body})
    )
    patch = tmp_path / "c.patch"
    patch.write_bytes(gnu_diff(tmp_path / "d", rel, old + body, new + body.replace(b"B = 1", b"B = 2")).stdout)
    run = venv.radpatch("import", str(patch), "-p1", "--out", str(tmp_path / "reg"))
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert "the patch changes the file's encoding" in run.stderr.splitlines()[0], run.stderr
