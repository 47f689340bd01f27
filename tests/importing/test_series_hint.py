"""A patch that stacks on an earlier patch of its series, imported without it (or before it): the
refusal names the failing hunks as before, and its hint says the patch seems to need the earlier
patches (naming the one given after it that adds what it expects, or creates the file it needs),
to be imported together, in order (att20b F4). Generated: what the later patch needs of the earlier
(a line it changed, a line it keeps as context, a file it created) and how the series is given; a
patch that simply does not match (no series) keeps its hint."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.importing import Venv, pip_install
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel

MOD = "stk/mod.py"
SOURCE = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    y = 2\n    return y\n"
# the earlier patch's result per what the later one needs of it, and the later patch's own change
NEEDS = {
    "changed": (SOURCE.replace("x = 1", "x = 10"), lambda t: t.replace("x = 10", "x = 100")),
    "context": (
        SOURCE.replace("    return x\n", "    x += 1\n    return x\n"),
        lambda t: t.replace("    return x\n", "    return x * 2\n"),
    ),
}


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """One venv for the module: import reads the install and writes only its --out directory."""
    tmp = tmp_path_factory.mktemp("stk")
    return pip_install(tmp / "venv", build_wheel(tmp / "wheel", "stk", "1.0", {"stk/__init__.py": "", MOD: SOURCE}))


DEFAULT_HINT = "the installed file differs from the one the patch was made for; check the installed version, and -p/-d"


def diff(rel: str, before: str | None, after: str) -> str:
    old = f"a/{rel}" if before is not None else "/dev/null"
    lines = difflib.unified_diff((before or "").splitlines(True), after.splitlines(True), old, f"b/{rel}")
    return "".join(lines)


def series(tmp: Path, need: str) -> tuple[str, str]:
    """The two patches' texts: the earlier, and the later that needs it."""
    if need == "created":
        made = "def c():\n    return 3\n"
        return diff("stk/new.py", None, made), diff("stk/new.py", made, made.replace("return 3", "return 30"))
    earlier, later = NEEDS[need]
    return diff(MOD, SOURCE, earlier), diff(MOD, earlier, later(earlier))


CASES = sample([(need, given) for need in ("changed", "context", "created") for given in ("alone", "reversed")])


@pytest.mark.parametrize(("need", "given"), CASES)
def test_a_stacked_patch_without_its_earlier_patch_says_to_import_the_series(
    venv: Venv, tmp_path: Path, need: str, given: str
) -> None:
    one, two = series(tmp_path, need)
    p1, p2 = tmp_path / "0001-first.patch", tmp_path / "0002-second.patch"
    p1.write_text(one)
    p2.write_text(two)
    out = tmp_path / "reg"
    files = [str(p2)] if given == "alone" else [str(p2), str(p1)]

    r = venv.radpatch("import", "-p1", "--out", str(out), *files)

    assert r.returncode == 1 and not out.exists() and "Traceback" not in r.stderr, r
    assert len(r.stderr.strip().splitlines()) <= 2, r.stderr
    if need != "created":
        assert "0002-second.patch: stk/mod.py: Hunk #1 FAILED at" in r.stderr, r.stderr
    if given == "alone":
        assert "it seems to need the earlier patches of its series" in r.stderr, r.stderr
    else:
        assert f"it seems to need {p1} first" in r.stderr and f"({p1} before {p2})" in r.stderr, r.stderr
    assert (venv.site / MOD).read_text() == SOURCE
    # given in order, the series imports
    assert venv.radpatch("import", "-p1", "--out", str(out), str(p1), str(p2)).returncode == 0


@pytest.mark.parametrize("name", sample(["0002-second.patch", "second.patch"]))
def test_a_patch_that_does_not_match_keeps_its_hint(venv: Venv, tmp_path: Path, name: str) -> None:
    """Lines the file has, in another order: no sign of a missing earlier patch, whatever the name."""
    moved = SOURCE.replace("    x = 1\n    return x\n", "    return x\n    x = 1\n")
    patch = tmp_path / name
    patch.write_text(diff(MOD, moved, moved.replace("return x", "return -x")))

    r = venv.radpatch("import", "-p1", "--out", str(tmp_path / "reg"), str(patch))

    assert r.returncode == 1 and "Hunk #1 FAILED" in r.stderr, r
    assert DEFAULT_HINT in r.stderr and "series" not in r.stderr, r.stderr


def test_an_unnumbered_patch_alone_keeps_its_hint(venv: Venv, tmp_path: Path) -> None:
    """Nothing tells a lone patch of no numbered series from one made for another version."""
    earlier, later = NEEDS["changed"]
    patch = tmp_path / "second.patch"
    patch.write_text(diff(MOD, earlier, later(earlier)))

    r = venv.radpatch("import", "-p1", "--out", str(tmp_path / "reg"), str(patch))

    assert r.returncode == 1 and DEFAULT_HINT in r.stderr and "series" not in r.stderr, r.stderr
