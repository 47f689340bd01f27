"""A namespace package directory several distributions share (kw47, issue 20 item 3, att40b #10):
`ns/` holds files of each (no `__init__.py`), built as real wheels and pip-installed into one venv.
`import` said "changes files of several distributions (A, B)" without whose file is whose, and gave
a new module there to whichever distribution it met first; `capture` of a new module there said it
"is in no installed distribution", of the directory only the distributions' names; `apply` (and its
adoption) of an entry naming the other distribution said "remove the stale one (pip uninstall...)",
although neither is stale. Now each says which distribution owns which files, and what to do: the
`--include` runs of `import`, `--distribution` for `capture`, the entry's `distribution:`.

Generated: 2 or 3 distributions x 1 or 2 files each in `ns/` x what is done (a patch changing a file
of two of them; a patch creating a module there, alone or beside a change of one distribution's
file; `capture` of the directory, or of a new module there; `apply` of an entry naming another
distribution than the one whose file it changes). Oracle: pip's RECORD of each distribution (whose
file is whose). The refusal is one line and its hint, no traceback, exit 1 or 2, naming each
distribution with its files; then what the hint says to do is done, and succeeds."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lib.generated import sample
from tests.lib.importing import Venv, clean_env, gnu_diff
from tests.lib.tier import needs
from tests.lib.wheels import build_wheel

DOINGS = (
    "import two",
    "import new",
    "import new beside",
    "capture directory",
    "capture new",
    "apply other",
    "adopt other",
)
CASES = sample(list(itertools.product((2, 3), (1, 2), DOINGS)))


def _files(i: int, per: int) -> dict[str, str]:
    return {f"ns/m{i}_{k}.py": f"def f{i}_{k}():\n    return {k}\n" for k in range(per)}


def _install(tmp: Path, n: int, per: int) -> tuple[Venv, list[Path]]:
    """A fresh venv with the n distributions' wheels pip-installed (one pip run)."""
    needs("wheel", "pip-installs wheels into a venv")
    wheels = [build_wheel(tmp / "wheels", f"rpns{i}", "1.0", _files(i, per)) for i in range(n)]
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True, capture_output=True)
    venv = Venv(tmp / "venv")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv.python), "--disable-pip-version-check", "install"]
        + ["--no-deps", "--no-index", "--no-compile", *map(str, wheels)],
        capture_output=True,
        env=clean_env(),
        check=True,
    )
    return venv, wheels


def _owners(venv: Venv) -> dict[str, list[str]]:
    """The oracle: each distribution's files under ns/, as pip's RECORD lists them."""
    out: dict[str, list[str]] = {}
    for info in sorted(venv.site.glob("rpns*.dist-info")):
        rows = (info / "RECORD").read_text().splitlines()
        out[info.name.split("-")[0]] = [r.split(",")[0] for r in rows if r.startswith("ns/")]
    return out


def _refused(run: subprocess.CompletedProcess[str], owners: dict[str, list[str]], said: str) -> None:
    """One line and its hint, no traceback, exit 1 or 2, naming each distribution with its files."""
    err = run.stderr
    assert run.returncode in (1, 2) and "Traceback" not in err, (run.returncode, err)
    lines = err.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("radpatch: error: ") and lines[1].startswith("  hint: "), err
    for dist, files in owners.items():
        assert f"{dist}: " in lines[0] and all(f in lines[0] for f in files), (dist, files, err)
    assert said in lines[1], err


def _diff(tmp: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """One patch file (paths under ns/, for -p1 -d ns) of each file's `before` -> `after`."""
    patch = tmp / "change.patch"
    patch.write_bytes(b"".join(gnu_diff(tmp / f"d{i}", rel, *ba).stdout for i, (rel, ba) in enumerate(edits.items())))
    return patch


@pytest.mark.wheel
@pytest.mark.parametrize(("n", "per", "doing"), CASES, ids=str)
def test_a_shared_namespace_is_said_file_by_file_with_what_to_do(tmp_path: Path, n: int, per: int, doing: str) -> None:
    venv, wheels = _install(tmp_path, n, per)
    owners = _owners(venv)
    dists = sorted(owners)
    last, first = dists[-1], dists[0]
    new = "def g():\n    return 9\n"
    out = str(tmp_path / "reg")
    if doing == "import two":
        edits = {
            rel.removeprefix("ns/"): (text, text.replace("return", "return 10 +"))
            for d in (first, last)
            for rel, text in [(owners[d][0], (venv.site / owners[d][0]).read_text())]
        }
        patch = _diff(tmp_path, edits)
        run = venv.radpatch("import", str(patch), "-p1", "-d", "ns", "--out", out)
        _refused(run, {d: owners[d][:1] for d in (first, last)}, "--include")
        for d in (first, last):  # what the hint says: one run per distribution, with --include
            name = owners[d][0].removeprefix("ns/")
            assert f"'{name}' for {d}" in run.stderr, run.stderr
            done = venv.radpatch("import", str(patch), "-p1", "-d", "ns", "--include", name, "--name", d, "--out", out)
            assert done.returncode == 0, done.stderr
            assert f"distribution: {d}\n" in (tmp_path / "reg" / f"{d}.yaml").read_text()
    elif doing in ("import new", "import new beside"):
        edits = {"new.py": ("", new)}
        if doing == "import new beside":  # goes with the patch's other file: its distribution's
            text = (venv.site / owners[last][0]).read_text()
            edits[owners[last][0].removeprefix("ns/")] = (text, text.replace("return", "return 10 +"))
        run = venv.radpatch("import", str(_diff(tmp_path, edits)), "-p1", "-d", "ns", "--out", out)
        if doing == "import new":
            _refused(run, owners, "--distribution DIST")
            return
        assert run.returncode == 0, run.stderr
        assert f"distribution: {last}\n" in (tmp_path / "reg" / "change.yaml").read_text()
    elif doing == "capture directory":
        for d in dists:
            path = venv.site / owners[d][0]
            path.write_text(path.read_text().replace("return", "return 10 +"))
        _refused(venv.radpatch("capture", "x", "ns", "--dry-run"), owners, "--distribution DIST")
        done = venv.radpatch("capture", "x", "ns", "--distribution", last, "--dry-run", "--wheel", str(wheels[-1]))
        assert done.returncode == 0 and f"distribution: {last}\n" in done.stdout, done.stderr
    elif doing == "capture new":
        (venv.site / "ns" / "new.py").write_text(new)
        _refused(venv.radpatch("capture", "x", "ns/new.py", "--dry-run"), owners, "--distribution DIST")
        done = venv.radpatch(
            "capture", "x", "ns/new.py", "--distribution", last, "--dry-run", "--wheel", str(wheels[-1])
        )
        # whose it is settled, it is still a file no RECORD lists that radpatch did not create (fix64)
        assert done.returncode == 1 and "ns/new.py is no installed distribution's file" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 2, done.stderr
    else:  # an entry naming the first distribution, changing the last one's file
        module = owners[last][0].removesuffix(".py").replace("/", ".")
        entry = (
            'summary: t\ndescription: t\ndistribution: {d}\nsupported: "==1.0"\n'
            f"modules:\n  m: {module}\nrewrites:\n"
            "  - id: r\n    replace: {{scope: f"
            + module.rsplit(".m", 1)[1]
            + ', find: "return 0", with: "return 5"}}\n'
        )
        reg = tmp_path / "reg"
        reg.mkdir()
        (reg / "other.yaml").write_text(entry.format(d=first))
        if doing == "adopt other":  # the file carries the entry's result already (a `patch` step's)
            path = venv.site / owners[last][0]
            path.write_text(path.read_text().replace("return 0", "return 5"))
        run = venv.radpatch("--registry", str(reg), "apply", "other")
        _refused(run, {first: [], last: owners[last][:1]}, f"distribution: {last}")
        (reg / "other.yaml").write_text(entry.format(d=last))
        done = venv.radpatch("--registry", str(reg), "apply", "other", "--wheel", str(wheels[-1]))
        assert done.returncode == 0, done.stderr
        assert ("adopted" in done.stdout) is (doing == "adopt other"), done.stdout


@pytest.mark.wheel
def test_two_distributions_listing_one_file_there_are_still_a_stale_copy(tmp_path: Path) -> None:
    """Not a share: a fork's RECORD lists the same file (a copy of the same distribution); the refusal
    still says to remove the stale one."""
    venv, _ = _install(tmp_path, 1, 1)
    fork = build_wheel(tmp_path / "fork", "rpns0-fork", "1.0", _files(0, 1))
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv.python), "--disable-pip-version-check", "install"]
        + ["--no-deps", "--no-index", "--no-compile", str(fork)],
        capture_output=True,
        env=clean_env(),
        check=True,
    )
    reg = tmp_path / "reg"
    reg.mkdir()
    (reg / "e.yaml").write_text(
        'summary: t\ndescription: t\ndistribution: rpns0\nsupported: "==1.0"\nmodules:\n  m: ns.m0_0\n'
        'rewrites:\n  - id: r\n    replace: {scope: f0_0, find: "return 0", with: "return 5"}\n'
    )
    run = venv.radpatch("--registry", str(reg), "apply", "e")
    assert run.returncode == 1 and "remove the stale one" in run.stderr, run.stderr
