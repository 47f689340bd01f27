"""Real tier: whole patch series a distribution carries, imported in one command and applied like
GNU patch to the release they target, pip-installed from its wheel.

The series are Debian's (quilt, `patch -p1` over the upstream source tree), fetched from the
Debian archive at test time and cached: Twisted 22.4.0 (twisted 22.4.0-4+deb12u1, 35 patches:
CVE fixes, a new module twisted/web/pages.py and patches stacked on it, test changes, docs) and
Django 3.2.25 (python-django 3:3.2.25-0+deb12u3, 38 patches: mostly CVE fixes, one new module).
Each is imported as a user would: every patch file of debian/patches/series in one
`radpatch import`, `-p` mapping the source tree's paths onto site-packages, `--include` keeping
the package's Python files (docs, tests/ outside the package, setup.cfg, HTML templates and
newsfragments left out, and reported), `--exclude` naming the few sections radpatch refuses
(deleted modules; a shebang-only change). GNU patch gets the same sections (filtered here by a
reader of its own), applied to a copy of the pristine package; then:

- every entry applies, in series order; every file the series changes is AST-equal to GNU
  patch's (byte-equal ones counted and printed), and the modules it creates exist;
- `status --check` exits 0 and says each entry is applied;
- `revert` gives every changed file RECORD's bytes back and removes the created modules.
"""

from __future__ import annotations

import fcntl
import fnmatch
import hashlib
import os
import re
import shutil
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.lib.importing import gnu_patch
from tests.lib.series import apply_like_gnu, check_applied, radpatch, revert_to_record
from tests.lib.venvs import make_venv, pip, site_packages
from tests.lib.wheels import download_wheel

pytestmark = [pytest.mark.real, pytest.mark.network]

POOL = "https://deb.debian.org/debian/pool/main"


@dataclass(frozen=True)
class Series:
    name: str
    url: str  # the Debian source package's debian.tar.xz
    sha256: str
    requirement: str  # the release the series targets, from the package index
    wheel: str  # glob of its wheel file
    package: str  # the top-level package in site-packages
    strip: int  # -p: the source tree's path of a module -> its path in site-packages
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    min_entries: int  # entries the import must write (most of the series' Python changes)


SERIES = (
    Series(
        "twisted",
        f"{POOL}/t/twisted/twisted_22.4.0-4%2Bdeb12u1.debian.tar.xz",
        "01726d7438cdc1465e9dbea7a6f35333a91f6387e82924ab9db3c1cf4469e4d2",
        "twisted==22.4.0",
        "[Tt]wisted-22.4.0-*.whl",
        "twisted",
        2,  # a/src/twisted/web/http.py (and twisted-22.4.0/src/twisted/...) -> twisted/web/http.py
        ("twisted/*.py",),
        (
            "twisted/python/*pydoctor.py",  # deleted by pydoctor-22.7.patch
            "twisted/test/*test_failure.py",  # moved (deleted and created) by Test-Ignore-test_failure.py-file
        ),
        25,
    ),
    Series(
        "django",
        f"{POOL}/p/python-django/python-django_3.2.25-0%2Bdeb12u3.debian.tar.xz",
        "33ae8f9d57c639150a4ca63fde8594d7accf691ea250ff49b6ca2f9e606d630d",
        "django==3.2.25",
        "[Dd]jango-3.2.25-*.whl",
        "django",
        1,
        ("django/*.py",),
        ("django/bin/django-admin.py",),  # its shebang only: no code changes
        33,
    ),
)


def _cache() -> Path:
    root = os.environ.get("RADPATCH_HARNESS_CACHE") or "~/.cache/radpatch/harness"
    return Path(root).expanduser() / "series"


def _fetch(url: str, sha256: str) -> Path:
    """The file at `url`, downloaded once into the cache (checked against its sha256)."""
    dest = _cache() / url.rsplit("/", 1)[1].replace("%2B", "+")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest.parent / f".{dest.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not dest.exists():
            with urllib.request.urlopen(url, timeout=120) as r:  # noqa: S310 (a fixed https URL)
                data = r.read()
            got = hashlib.sha256(data).hexdigest()
            assert got == sha256, f"{url}: sha256 {got}, expected {sha256}"
            fd, tmp = tempfile.mkstemp(dir=dest.parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, dest)
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == sha256, dest
    return dest


def _patches(series: Series, into: Path) -> list[Path]:
    """debian/patches/* in the order debian/patches/series gives."""
    with tarfile.open(_fetch(series.url, series.sha256)) as tar:
        tar.extractall(into, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))  # type: ignore[arg-type]
    root = into / "debian" / "patches"
    names = [ln.split()[0] for ln in (root / "series").read_text().splitlines() if ln.strip() and ln[0] != "#"]
    return [root / n for n in names]


# --- the same sections for GNU patch: a reader of its own, not radpatch's ----------------------

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _strip(name: str, n: int) -> str | None:
    parts = name.split("\t")[0].strip().split("/")
    return "/".join(parts[n:]) if len(parts) > n and name != "/dev/null" else None


def _sections(text: str) -> tuple[str, list[list[str]]]:
    """(preamble, sections): a section is a `diff --git` or `---`/`+++` header with its hunks."""
    lines = text.splitlines(keepends=True)
    preamble: list[str] = []
    out: list[list[str]] = []
    current: list[str] | None = None
    git_headers = False  # the current section is a git one still before its ---/+++ lines
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _HUNK.match(line)
        if m and current is not None:
            old = 1 if m.group(1) is None else int(m.group(1))
            new = 1 if m.group(2) is None else int(m.group(2))
            current.append(line)
            i += 1
            while (old > 0 or new > 0) and i < len(lines):
                c = lines[i][:1]
                old -= c in (" ", "-", "\n")
                new -= c in (" ", "+", "\n")
                current.append(lines[i])
                i += 1
                if i < len(lines) and lines[i].startswith("\\"):
                    current.append(lines[i])
                    i += 1
            continue
        starts_git = line.startswith("diff --git ")
        starts_plain = line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")
        if starts_git or (starts_plain and not git_headers):
            current = [line]
            out.append(current)
            git_headers = starts_git
        elif current is None:
            preamble.append(line)
        elif starts_plain:
            current.append(line)
            git_headers = False
        elif current is not None and (git_headers or line.startswith("+++ ")):
            current.append(line)
        i += 1
    return "".join(preamble), out


def _names(section: list[str], strip: int) -> list[str]:
    names: list[str] = []
    for line in section:
        if line.startswith("diff --git "):
            names += [n for n in (_strip(p, strip) for p in line.split()[2:4]) if n]
        elif line.startswith(("--- ", "+++ ")):
            n = _strip(line[4:], strip)
            if n:
                names.append(n)
        elif line.startswith("@@"):
            break
    return names


def _filtered(text: str, series: Series) -> str:
    """The patch with only the sections `--include`/`--exclude` keep."""
    _, sections = _sections(text)
    kept = []
    for section in sections:
        names = _names(section, series.strip)
        if any(fnmatch.fnmatchcase(n, g) for n in names for g in series.exclude):
            continue
        if any(fnmatch.fnmatchcase(n, g) for n in names for g in series.include):
            kept.append("".join(section))
    return "".join(kept)


# --- the test ------------------------------------------------------------------------------------


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root.parent).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.mark.parametrize("series", SERIES, ids=[s.name for s in SERIES])
def test_a_debian_series_imports_whole_and_applies_like_gnu_patch(series: Series, tmp_path: Path) -> None:
    patches = _patches(series, tmp_path / "debian")
    python = make_venv(tmp_path / "venv")
    wheel = download_wheel(series.requirement, _cache() / "wheels" / series.name, series.wheel)
    pip(python, "install", "--no-deps", "--no-index", "--no-compile", str(wheel))
    site = site_packages(tmp_path / "venv")
    pristine = _tree(site / series.package)

    # GNU patch: the same sections, in order, on a copy of the pristine package
    gnu = tmp_path / "gnu"
    shutil.copytree(site / series.package, gnu / series.package)
    for n, p in enumerate(patches):
        text = _filtered(p.read_text(encoding="utf-8", errors="surrogateescape"), series)
        if text:
            f = tmp_path / "filtered" / f"{n:03d}.patch"
            f.parent.mkdir(exist_ok=True)
            f.write_text(text, encoding="utf-8", errors="surrogateescape")
            done = gnu_patch(gnu, f, series.strip)
            assert done.returncode == 0, f"{p.name}: {done.stdout}{done.stderr}"
    expected = _tree(gnu / series.package)
    changed = sorted(r for r, data in expected.items() if pristine.get(r) != data)
    created = sorted(set(expected) - set(pristine))
    assert not set(pristine) - set(expected)  # the series deletes nothing once filtered

    # radpatch: the whole series, one command
    reg = tmp_path / "reg"
    flags = [f"-p{series.strip}", *(f"--include={g}" for g in series.include)]
    flags += [f"--exclude={g}" for g in series.exclude]
    out = radpatch(python, "import", *map(str, patches), *flags, "--out", str(reg))
    assert out.returncode == 0, out.stderr
    names = [n for n in (p.stem for p in patches) if (reg / f"{n}.yaml").exists()]
    entries = {n: yaml.safe_load((reg / f"{n}.yaml").read_text()) for n in names}
    assert len(entries) >= series.min_entries, out.stdout
    left_out = re.findall(r"^  left out: (\S+)", out.stdout, re.MULTILINE)
    stripped = [_strip(w, series.strip) or "" for w in left_out]
    unasked = [
        n
        for n in stripped
        if n.startswith(f"{series.package}/")
        and n.endswith(".py")
        and not any(fnmatch.fnmatchcase(n, g) for g in series.exclude)
    ]
    assert not unasked, f"Python sections of the package left out unasked: {unasked}"

    same_bytes = apply_like_gnu(python, reg, names, site, gnu, changed)
    rewrites = sum(len(e["rewrites"]) for e in entries.values())
    print(
        f"\n{series.name}: {len(patches)} patch files, {len(entries)} entries, {rewrites} rewrites, "
        f"{len(changed)} files ({len(created)} created); AST-equal to GNU patch: {len(changed)}, "
        f"byte-equal: {same_bytes}; sections left out: {len(left_out)}"
    )
    check_applied(python, reg, names)
    originals = {rel: pristine[rel] for rel in changed if rel not in created}
    revert_to_record(python, reg, names, site, series.package, originals, created)
