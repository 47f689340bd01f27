"""A patch made on an install that radpatch already patched: its diff's context is the applied
entries' code, so the entry import writes requires the entries the files it changes carry (as a
capture's does), and applied on a fresh install it goes on top of them, giving what GNU patch gives
of them and the patch (att47 #4: written with no `requires:`, it failed there with "not found"), by
the very command the import prints.
Without the registry that holds them, import says which entry it needs."""

from __future__ import annotations

import ast
import itertools
import shlex
from pathlib import Path

import pytest
import yaml

from tests.lib.generated import sample
from tests.lib.hints import without_python
from tests.lib.importing import PACKAGE, gnu_diff, gnu_patch, pip_install

pytestmark = pytest.mark.wheel

TEXTWRAP = f"{PACKAGE}/std_textwrap.py"
SHLEX = f"{PACKAGE}/std_shlex.py"
# the lower entries: one line each, in one module each
LOWER = {
    "low_wrap": (TEXTWRAP, "        self.width = width\n", "        self.width = width + 0\n"),
    "low_lex": (SHLEX, "        self.whitespace_split = False\n", "        self.whitespace_split = bool(0)\n"),
}
# the top patch's change per module: next to (within 3 lines of) the lower entry's line
TOP = {
    TEXTWRAP: ("        self.tabsize = tabsize\n", "        self.tabsize = tabsize + 0\n"),
    SHLEX: ("        self.debug = 0\n", "        self.debug = int(0)\n"),
}
CASES = sample(
    [
        (applied, top)
        for applied in (("low_wrap",), ("low_lex",), ("low_wrap", "low_lex"))
        for top in ((TEXTWRAP,), (SHLEX,), (TEXTWRAP, SHLEX))
    ]
)


def _diff(work: Path, changes: dict[str, tuple[str, str]]) -> bytes:
    return b"".join(gnu_diff(work / rel.replace("/", "_"), rel, a, b).stdout for rel, (a, b) in changes.items())


@pytest.mark.parametrize(("applied", "top"), CASES, ids=lambda v: "+".join(p.split("/")[-1] for p in v))
def test_the_entry_requires_what_the_files_it_changes_carry(
    tmp_path: Path, corpus_wheel: Path, applied: tuple[str, ...], top: tuple[str, ...]
) -> None:
    image = pip_install(tmp_path / "image", corpus_wheel)
    pristine = {rel: (image.site / rel).read_text() for rel in (TEXTWRAP, SHLEX)}
    lower = tmp_path / "lower"
    for name, (rel, old, new) in LOWER.items():
        (tmp_path / f"{name}.patch").write_bytes(
            _diff(tmp_path / name, {rel: (pristine[rel], pristine[rel].replace(old, new, 1))})
        )
    out = image.radpatch("import", *(str(tmp_path / f"{n}.patch") for n in LOWER), "-p1", "--out", str(lower))
    assert out.returncode == 0, out.stderr
    out = image.radpatch("--registry", str(lower), "apply", *applied)
    assert out.returncode == 0, out.stderr
    now = {rel: (image.site / rel).read_text() for rel in top}
    top_patch = tmp_path / "top.patch"
    top_patch.write_bytes(_diff(tmp_path / "top", {rel: (now[rel], now[rel].replace(*TOP[rel], 1)) for rel in top}))
    new = tmp_path / "new"

    alone = image.radpatch("import", str(top_patch), "-p1", "--out", str(new))
    carried = sorted(n for n in applied if LOWER[n][0] in top)
    if carried:  # no registry holds what it needs: said, nothing written
        assert alone.returncode == 1 and any(n in alone.stderr for n in carried) and "--registry" in alone.stderr, (
            alone.stderr
        )
        assert "Traceback" not in alone.stderr and not new.exists()
    out = image.radpatch("--registry", str(lower), "import", str(top_patch), "-p1", "--out", str(new))
    assert out.returncode == 0, out.stderr
    (entry,) = new.glob("*.yaml")
    doc = yaml.safe_load(entry.read_text())
    assert sorted(doc.get("requires", [])) == carried

    # a new image: the command the import printed (`try: radpatch ...`, run as printed: att49 #3, it
    # left out the registry holding what the entry requires) goes on top of what it requires
    printed = shlex.split(out.stdout.rsplit("try: ", 1)[1])
    assert printed[:3] == ["radpatch", "--python", str(image.python)] and printed[-2:] == ["apply", entry.stem]
    printed = without_python(printed[1:])  # the new image's own interpreter, as its radpatch is run
    fresh = pip_install(tmp_path / "fresh", corpus_wheel)
    out = fresh.radpatch(*printed)
    assert out.returncode == 0, out.stderr
    oracle = pip_install(tmp_path / "oracle", corpus_wheel)
    for patch in [*(tmp_path / f"{n}.patch" for n in carried), top_patch]:
        gnu = gnu_patch(oracle.site, patch, 1)
        assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    for rel in itertools.chain(top, (LOWER[n][0] for n in carried)):
        assert ast.dump(ast.parse((fresh.site / rel).read_text())) == ast.dump(
            ast.parse((oracle.site / rel).read_text())
        )


def test_a_patch_named_as_the_entry_it_was_made_on_is_refused_naming_the_option(
    tmp_path: Path, corpus_wheel: Path
) -> None:
    """`low_wrap.patch` made on an install carrying the entry low_wrap: its entry would require itself
    (att48 #2: refused as a broken registry file that was never written); import says to pass --name."""
    image = pip_install(tmp_path / "image", corpus_wheel)
    rel, old, new = LOWER["low_wrap"]
    pristine = (image.site / rel).read_text()
    lower = tmp_path / "lower"
    (tmp_path / "low_wrap.patch").write_bytes(_diff(tmp_path / "a", {rel: (pristine, pristine.replace(old, new, 1))}))
    assert image.radpatch("import", str(tmp_path / "low_wrap.patch"), "-p1", "--out", str(lower)).returncode == 0
    assert image.radpatch("--registry", str(lower), "apply", "low_wrap").returncode == 0
    now = (image.site / rel).read_text()
    top = tmp_path / "top" / "low_wrap.patch"
    top.parent.mkdir()
    top.write_bytes(_diff(tmp_path / "b", {rel: (now, now.replace(*TOP[rel], 1))}))
    out = image.radpatch("--registry", str(lower), "import", str(top), "-p1", "--out", str(tmp_path / "new"))
    assert out.returncode == 2 and "--name" in out.stderr and "low_wrap" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 2 and not (tmp_path / "new").exists()
    named = image.radpatch(
        "--registry", str(lower), "import", str(top), "-p1", "--name", "top", "--out", str(tmp_path / "new")
    )
    assert named.returncode == 0, named.stderr
    assert yaml.safe_load((tmp_path / "new" / "top.yaml").read_text())["requires"] == ["low_wrap"]
