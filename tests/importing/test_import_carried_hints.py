"""A patch made on an install radpatch patched (c0..c2 applied, one per module): its entry requires the
applied entries the files carry, so import needs each in a registry given, as applied. Generated:
each of three modules' entry is not applied, or applied and, in the registry given, present, renamed
since (c1 as c1n, the same YAML), revised since (another change of the same line) or missing. Import
refuses once, naming every unmet one (att48 #5); the user follows the hint as written (runs the
`radpatch apply` it names, gives the registry that holds the ones it names) and imports again, at
most twice (att48 #3, #4: the hints led nowhere). The entry then applies on a fresh install with
its requirements, as GNU `patch -p1` makes of the lower patches (as the registry has them) and it."""

from __future__ import annotations

import ast
import itertools
import re
import shutil
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.importing import PACKAGE, Venv, gnu_diff, gnu_patch, pip_install

pytestmark = pytest.mark.wheel

# per module: the lower entry's line (before, after, after as revised) and the top patch's line,
# more than 3 lines below it (a revision of the lower line leaves the top patch's context alone)
MODULES = (
    (
        f"{PACKAGE}/std_textwrap.py",
        ("        self.width = width\n", "        self.width = width + 0\n", "        self.width = width + 5\n"),
        ("        self.tabsize = tabsize\n", "        self.tabsize = tabsize + 0\n"),
    ),
    (
        f"{PACKAGE}/std_shlex.py",
        (
            "        self.whitespace_split = False\n",
            "        self.whitespace_split = bool(0)\n",
            "        self.whitespace_split = bool(())\n",
        ),
        ("        self.debug = 0\n", "        self.debug = int(0)\n"),
    ),
    (
        f"{PACKAGE}/std_argparse.py",
        (
            "        self._indent_increment = indent_increment\n",
            "        self._indent_increment = indent_increment + 0\n",
            "        self._indent_increment = indent_increment + 5\n",
        ),
        ("        self._action_max_length = 0\n", "        self._action_max_length = int(0)\n"),
    ),
)
FATES = ("unapplied", "present", "renamed", "revised", "missing")
CASES = sample(list(itertools.combinations_with_replacement(FATES, len(MODULES))))
APPLY = re.compile(r"`radpatch apply ([^`]+)`")
HOLDS = re.compile(r"give the registry that holds ([\w., -]+?) \(--registry DIR\)")


def _diff(work: Path, rel: str, before: str, after: str) -> bytes:
    return gnu_diff(work, rel, before, after).stdout


def _lower(tmp: Path, image: Venv, fates: tuple[str, ...]) -> tuple[Path, dict[str, Path], dict[str, Path]]:
    """The lower entries c0..c2 imported (as the image's registry had them), applied where the fate
    says, and the registry given now: (that registry, each entry's own registry, each entry's patch
    file as the registry given has it, for GNU patch)."""
    old, given, patches = tmp / "old", tmp / "given", {}
    old.mkdir()
    given.mkdir()
    for i, (rel, (before, after, revised), _) in enumerate(MODULES):
        text = (image.site / rel).read_text()
        (old / f"c{i}.patch").write_bytes(_diff(tmp / f"d{i}", rel, text, text.replace(before, after, 1)))
        (given / f"c{i}.patch").write_bytes(_diff(tmp / f"r{i}", rel, text, text.replace(before, revised, 1)))
        patches[f"c{i}"] = old / f"c{i}.patch"
    out = image.radpatch("import", *(str(old / f"c{i}.patch") for i in range(len(MODULES))), "-p1", "--out", str(old))
    assert out.returncode == 0, out.stderr
    revised = [f"c{i}" for i, f in enumerate(fates) if f == "revised"]
    if revised:  # the registry's entry, revised since: imported from the revised change
        out = image.radpatch("import", *(str(given / f"{n}.patch") for n in revised), "-p1", "--out", str(given))
        assert out.returncode == 0, out.stderr
        patches |= {n: given / f"{n}.patch" for n in revised}
    holds = {}
    for i, fate in enumerate(fates):
        name = f"c{i}"
        holds[name] = tmp / "holds" / name
        holds[name].mkdir(parents=True)
        shutil.copy(old / f"{name}.yaml", holds[name] / f"{name}.yaml")
        if fate == "present":
            shutil.copy(old / f"{name}.yaml", given / f"{name}.yaml")
        elif fate == "renamed":
            shutil.copy(old / f"{name}.yaml", given / f"{name}n.yaml")
    applied = [f"c{i}" for i, f in enumerate(fates) if f != "unapplied"]
    if applied:
        out = image.radpatch("--registry", str(old), "apply", *applied)
        assert out.returncode == 0, out.stderr
    return given, holds, patches


@pytest.mark.parametrize("fates", CASES, ids="-".join)
def test_following_the_refusal_imports_the_patch(tmp_path: Path, corpus_wheel: Path, fates: tuple[str, ...]) -> None:
    image = pip_install(tmp_path / "image", corpus_wheel)
    given, holds, patches = _lower(tmp_path, image, fates)
    top = tmp_path / "top.patch"
    texts = {rel: (image.site / rel).read_text() for rel, _, _ in MODULES}
    top.write_bytes(
        b"".join(
            _diff(tmp_path / f"t{i}", rel, texts[rel], texts[rel].replace(*line, 1))
            for i, (rel, _, line) in enumerate(MODULES)
        )
    )
    unmet = [f"c{i}" for i, f in enumerate(fates) if f in ("renamed", "revised", "missing")]
    registries = [given]
    said: list[str] = []
    for _ in range(3):  # bounded: the first refusal names every unmet entry; following it, import goes
        out = image.radpatch(*_registries(registries), "import", str(top), "-p1", "--out", str(tmp_path / "new"))
        assert "Traceback" not in out.stderr
        if out.returncode == 0:
            break
        said.append(out.stderr)
        assert len(out.stderr.strip().splitlines()) == 2, out.stderr
        assert all(re.search(rf"\b{n}\b", said[0].splitlines()[0]) for n in unmet), (unmet, said[0])
        command = APPLY.search(out.stderr)
        if command:
            ran = image.radpatch(*_registries(registries), "apply", *command.group(1).split())
            assert ran.returncode == 0, ran.stdout + ran.stderr
        names = HOLDS.search(out.stderr)
        if names:
            registries += [holds[n] for n in re.split(r", | and ", names.group(1))]
        assert command or names, out.stderr
    else:
        pytest.fail(f"following the hints never imported the patch: {said}")
    assert len(said) == (1 if unmet else 0), said
    (entry,) = (tmp_path / "new").glob("*.yaml")

    fresh = pip_install(tmp_path / "fresh", corpus_wheel)  # the entry and what it requires, on a new image
    out = fresh.radpatch(*_registries(registries), "--registry", str(tmp_path / "new"), "apply", entry.stem)
    assert out.returncode == 0, out.stdout + out.stderr
    oracle = pip_install(tmp_path / "oracle", corpus_wheel)
    carried = [f"c{i}" for i, f in enumerate(fates) if f != "unapplied"]
    for patch in [*(patches[n] for n in carried), top]:
        gnu = gnu_patch(oracle.site, patch, 1)
        assert gnu.returncode == 0, gnu.stdout + gnu.stderr
    for rel, _, _ in MODULES:
        mine, gnus = (fresh.site / rel).read_text(), (oracle.site / rel).read_text()
        assert ast.dump(ast.parse(mine)) == ast.dump(ast.parse(gnus)), rel


def _registries(dirs: list[Path]) -> list[str]:
    return [a for d in dirs for a in ("--registry", str(d))]
