"""`radpatch capture` on layouts beyond one regular package (issue 20, att39 F3, F4, L2, L4).

Each case builds its toy wheels (tests/lib/wheels.py), pip-installs them into a venv, copies that
venv as the fresh install, edits the first one by hand, and runs radpatch as its own process:
- a namespace distribution (PEP 420: no `__init__.py`, at several depths, alone or sharing `ns/`
  with a second distribution): the edit of its module is captured, a new module beside it (no RECORD
  lists it, radpatch did not create it: fix64) and the other distribution's files are left out and
  said, and the entry applies on the fresh install;
- a captured edit importing a file capture leaves out (a backup named several ways, imported in
  several spellings, a new module no RECORD lists) or does not take in (a module not named) is
  refused, naming the import (file:line) and the file, and nothing is written;
- non-ASCII module names (PEP 3131) are imported as Python imports them; captured, such a new
  module is left out as any file no RECORD lists is, and the edit importing it refused;
- a new `.py` a package of the same name hides (or a new package hiding an installed module) is
  left out, said with the file Python imports and the one it hides.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.lib.generated import sample
from tests.lib.processes import clean_env
from tests.lib.venvs import Venv, make_venv, pip
from tests.lib.wheels import build_wheel

pytestmark = pytest.mark.wheel


@dataclass(frozen=True)
class Site:
    """An edited venv, the fresh install of the same wheels, the wheels, a working directory."""

    edited: Venv
    fresh: Venv
    wheels: dict[str, Path]
    cwd: Path

    def radpatch(
        self, *args: str, venv: Venv | None = None, registry: bool = False
    ) -> subprocess.CompletedProcess[str]:
        env = clean_env(
            PIP_CONFIG_FILE=os.devnull,
            PIP_INDEX_URL="http://127.0.0.1:9/simple/",  # nothing listens: the pristine bytes come from --wheel
            RADPATCH_CACHE=str(self.cwd.parent / "cache"),
        )
        reg = ["--registry", str(self.cwd / "reg")] if registry else []
        argv = [sys.executable, "-m", "radpatch", "--python", str((venv or self.edited).python), *reg, *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=self.cwd)

    def capture(self, dist: str, *paths: str) -> subprocess.CompletedProcess[str]:
        wheel = ["--wheel", str(self.wheels[dist])]
        return self.radpatch("capture", "t", *paths, "--out", "reg", "--distribution", dist, *wheel)

    def write(self, rel: str, text: str) -> None:
        path = self.edited.site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def entry(self) -> dict[str, Any]:
        data: dict[str, Any] = yaml.safe_load((self.cwd / "reg" / "t.yaml").read_text(encoding="utf-8"))
        return data

    def created(self) -> list[str]:
        """The modules the entry creates, by dotted name."""
        entry = self.entry()
        return sorted(entry["modules"][rw["file"]] for rw in entry["rewrites"] if "create_module" in rw)


def site_of(tmp: Path, dists: dict[str, dict[str, str | bytes]]) -> Site:
    wheels = {name: build_wheel(tmp / "wheels", name, "1.0", files) for name, files in dists.items()}
    venvs = []
    for which in ("edited", "fresh"):
        make_venv(tmp / which)
        venvs.append(Venv(tmp / which))
        pip(venvs[-1].python, "install", "--no-deps", "--no-index", "--quiet", *map(str, wheels.values()))
    cwd = tmp / "work"
    cwd.mkdir()
    return Site(venvs[0], venvs[1], wheels, cwd)


def files_of(venv: Venv) -> dict[str, bytes]:
    return {
        p.relative_to(venv.site).as_posix(): p.read_bytes()
        for p in sorted(venv.site.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def imports_in(venv: Venv, module: str) -> str:
    """`module`'s X, imported by the venv's own interpreter (a separate process)."""
    out = subprocess.run(
        [str(venv.python), "-c", f"import {module} as m; print(m.X)"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        env=clean_env(),
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def applied_on_fresh_install(site: Site, module: str, want: str) -> None:
    """The entry applies on the fresh install of the same wheels, the module imports with the
    captured code, and revert takes it back to the wheel's files."""
    before = files_of(site.fresh)
    r = site.radpatch("apply", "t", venv=site.fresh, registry=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert imports_in(site.fresh, module) == want
    r = site.radpatch("revert", "t", venv=site.fresh, registry=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert {k: v for k, v in files_of(site.fresh).items() if not k.startswith(".radpatch/")} == before


# --- 1. namespace distributions (att39 F4) ---------------------------------------------------------------

NS_DIRS = ["ns", "ns/a", "ns/a/b"]  # where nsa's module lives: no __init__.py anywhere
SHARERS = ["none", "same directory", "other directory"]  # nsb: absent, beside nsa's module, or in ns/other/
NEW = ["beside", "new package", "new portion"]  # the new code: a module, a package, a directory without __init__
UNLISTED = "no RECORD lists it and radpatch did not create it"


@pytest.mark.parametrize(("where", "sharer", "new"), sample([(w, s, n) for w in NS_DIRS for s in SHARERS for n in NEW]))
def test_a_namespace_distributions_edit_is_captured_and_new_files_and_another_distributions_left_out(
    tmp_path: Path, where: str, sharer: str, new: str
) -> None:
    dists: dict[str, dict[str, str | bytes]] = {"nsa": {f"{where}/m.py": "X = 1\n"}}
    theirs = {"same directory": f"{where}/b_mod.py", "other directory": "ns/other/b_mod.py"}.get(sharer)
    if theirs is not None:
        dists["nsb"] = {theirs: "B = 1\n"}
    site = site_of(tmp_path, dists)
    pkg = where.replace("/", ".")
    rel = {"beside": f"{where}/new.py", "new package": f"{where}/new/mod.py", "new portion": f"{where}/new/mod.py"}[new]
    site.write(rel, "N = 7\n")
    if new == "new package":
        site.write(f"{where}/new/__init__.py", "")
    if sharer == "other directory":
        site.write("ns/other/extra.py", "E = 1\n")  # a new file in nsb's directory: nsb's, not nsa's
    site.write(f"{where}/m.py", "X = 7\n")

    r = site.capture("nsa")

    assert r.returncode == 0, r.stdout + r.stderr
    assert site.created() == [], site.entry()
    assert f"left out {rel}: {UNLISTED}" in r.stdout, r.stdout
    if sharer == "same directory":
        assert (
            f"left out {theirs}: a file of nsb (its RECORD lists it: a namespace the distributions share)" in r.stdout
        )
    if sharer == "other directory" and where == "ns":  # under the directory scanned, in nsb's
        assert "left out ns/other/extra.py: in a directory of nsb; capture it with --distribution nsb" in r.stdout
    assert "extra" not in (site.cwd / "reg" / "t.yaml").read_text()  # deeper, ns/other/ is not nsa's to scan
    assert "b_mod" not in (site.cwd / "reg" / "t.yaml").read_text()
    assert "new" not in (site.cwd / "reg" / "t.yaml").read_text()
    applied_on_fresh_install(site, f"{pkg}.m", "7")


# --- 2. an entry importing what capture left out (att39 F3) ------------------------------------------------

BACKUPS = ["m_orig.py", "m_bak.py", "backup/m.py", "backup_20260301_101500/m.py", "old/m.py"]
SPELLINGS = ["from absolute", "from relative", "import as", "from package import module", "in a function"]


def import_line(package: str, backup: str, spelling: str) -> tuple[str, int]:
    """The edited m.py importing the backup module (relative to m's `package`), and the import's line."""
    sub = backup[: -len(".py")].replace("/", ".")
    full = f"{package}.{sub}"
    parent, _, last = full.rpartition(".")
    head = '"""m, edited by hand."""\n'
    if spelling == "in a function":
        return head + f"X = 1\n\n\ndef helper():\n    from {full} import helper as old\n    return old() + 1\n", 6
    line = {
        "from absolute": f"from {full} import helper as old",
        "from relative": f"from .{sub} import helper as old",
        "import as": f"import {full} as old",
        "from package import module": f"from {parent} import {last} as old",
    }[spelling]
    return head + f"{line}\nX = 1\n\n\ndef helper():\n    return 2\n", 2


@pytest.mark.parametrize(
    ("package", "backup", "spelling"),
    sample(
        [("toyd/sub" if (i + j) % 2 else "toyd", b, s) for i, b in enumerate(BACKUPS) for j, s in enumerate(SPELLINGS)]
    ),
)
def test_a_capture_whose_code_imports_a_backup_it_left_out_is_refused_naming_both(
    tmp_path: Path, package: str, backup: str, spelling: str
) -> None:
    pristine = "X = 1\n\n\ndef helper():\n    return 1\n"
    files: dict[str, str | bytes] = {"toyd/__init__.py": "", f"{package}/__init__.py": "", f"{package}/m.py": pristine}
    site = site_of(tmp_path, {"toyd": files})
    site.write(f"{package}/{backup}", pristine)  # the install script's copy of the module as installed
    text, line = import_line(package.replace("/", "."), backup, spelling)
    site.write(f"{package}/m.py", text)
    before = files_of(site.edited)

    r = site.capture("toyd")

    assert r.returncode == 1, r.stdout + r.stderr
    module = f"{package}/{backup}"[: -len(".py")].replace("/", ".")
    err = r.stderr.splitlines()
    assert err[0].startswith(
        f"radpatch: error: {site.edited.site}/{package}/m.py:{line} imports {module}, which is {package}/{backup}: "
        f"left out (a copy of {package}/m.py as installed (a backup?)"
    ), r.stderr
    assert "rename the file to a module name" in err[1] and "or remove the import" in err[1], r.stderr
    assert files_of(site.edited) == before
    assert not list((site.cwd / "reg").glob("*")) if (site.cwd / "reg").exists() else True


@pytest.mark.parametrize("how", ["named", "scan", "named, another distribution's", "named, a shared namespace"])
def test_named_files_whose_code_imports_a_new_module_not_named_are_refused(tmp_path: Path, how: str) -> None:
    """The class beyond backups: a new module on disk, imported by the captured code, that the
    capture does not take in (only some files named; in a scan, as no RECORD lists it) is refused.
    A module of another distribution (its own package, or its part of a shared namespace) is no such module."""
    top = "ns" if "namespace" in how else "toyd"
    files: dict[str, str | bytes] = {"toyd/__init__.py": "", "toyd/m.py": "X = 1\n"} if top == "toyd" else {}
    if top == "ns":
        files = {"ns/m.py": "X = 1\n"}
    other = {"tother/__init__.py": "N = 3\n"} if top == "toyd" else {"ns/helpers.py": "N = 3\n"}
    site = site_of(tmp_path, {"toyd": files, "tother": other} if "another" in how or top == "ns" else {"toyd": files})
    if "," in how:
        imported = "tother" if top == "toyd" else "ns.helpers"
        site.write(f"{top}/m.py", f"import os\nfrom {imported} import N\nX = N\n")
        r = site.capture("toyd", f"{top}/m.py")
        assert r.returncode == 0, r.stdout + r.stderr
        assert site.created() == []
        return
    site.write("toyd/helpers.py", "N = 3\n")
    site.write("toyd/m.py", "import os\nfrom toyd.helpers import N\nX = N\n")

    r = site.capture("toyd", *(["toyd/m.py"] if how == "named" else []))

    if how == "named":
        assert r.returncode == 1, r.stdout + r.stderr
        assert (
            f"{site.edited.site}/toyd/m.py:2 imports toyd.helpers, which is toyd/helpers.py: left out "
            "(not among the files captured)"
        ) in r.stderr, r.stderr
        assert not (site.cwd / "reg" / "t.yaml").exists()
    else:
        assert r.returncode == 1, r.stdout + r.stderr
        assert (
            f"{site.edited.site}/toyd/m.py:2 imports toyd.helpers, which is toyd/helpers.py: left out ({UNLISTED}"
        ) in r.stderr, r.stderr
        assert not (site.cwd / "reg" / "t.yaml").exists()


# --- 3. non-ASCII module names (att39 L2) -----------------------------------------------------------------

NAMES = ["módulo", "é", "数据", "naïve/módulo", "_ñ/x"]


@pytest.mark.parametrize(("name", "how"), sample([(n, h) for n in NAMES for h in ["capture", "import"]]))
def test_a_non_ascii_module_is_imported_as_python_imports_it_and_left_out_of_a_capture(
    tmp_path: Path, name: str, how: str
) -> None:
    files: dict[str, str | bytes] = {"toyd/__init__.py": "", "toyd/m.py": "X = 1\n"}
    site = site_of(tmp_path, {"toyd": files})
    dotted = "toyd." + name.replace("/", ".")
    new = {f"toyd/{name}.py": "F = 5\n"}
    if "/" in name:
        new[f"toyd/{name.split('/')[0]}/__init__.py"] = "# a new package\n"
    edited = f"from {dotted} import F\nX = F\n"
    if how == "capture":
        for rel, text in new.items():
            site.write(rel, text)
        site.write("toyd/m.py", edited)
        r = site.capture("toyd")
        assert r.returncode == 1, r.stdout + r.stderr
        assert f"m.py:1 imports {dotted.rpartition('.')[0] if '/' in name else dotted}, which is toyd/" in r.stderr
        assert f": left out ({UNLISTED}" in r.stderr, r.stderr
        return
    else:
        diff = "".join(
            f"--- /dev/null\n+++ b/{rel}\n@@ -0,0 +1,{len(text.splitlines())} @@\n"
            + "".join(f"+{x}\n" for x in text.splitlines())
            for rel, text in new.items()
        )
        diff += "--- a/toyd/m.py\n+++ b/toyd/m.py\n@@ -1 +1,2 @@\n-X = 1\n" + "".join(
            f"+{x}\n" for x in edited.splitlines()
        )
        (site.cwd / "p.diff").write_text(diff, encoding="utf-8")
        r = site.radpatch("import", "-p1", "--out", "reg", "--name", "t", "p.diff")
    assert r.returncode == 0, r.stdout + r.stderr
    assert dotted in site.created(), site.entry()
    applied_on_fresh_install(site, "toyd.m", "5")


@pytest.mark.parametrize("name", ["class", "import", "None"])
def test_a_new_module_named_by_a_keyword_is_left_out_and_said(tmp_path: Path, name: str) -> None:
    """`toyd/class.py` is a file no import statement can name: left out, as `core.bak.py` is."""
    site = site_of(tmp_path, {"toyd": {"toyd/__init__.py": "", "toyd/m.py": "X = 1\n"}})
    site.write(f"toyd/{name}.py", "F = 5\n")
    site.write("toyd/m.py", "X = 2\n")
    r = site.capture("toyd")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"left out toyd/{name}.py: not an importable module name" in r.stdout, r.stdout
    assert site.created() == []


# --- 4. a module a package hides (att39 L4) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "which", "how"),
    sample(
        [
            (w, k, h)
            for w in ["toyd", "toyd/sub"]
            for k in ["module hidden", "package hides", "under a module", "NFKC name"]
            for h in ["scan", "named"]
        ]
    ),
)
def test_a_module_a_package_hides_is_left_out_naming_the_file_python_imports(
    tmp_path: Path, where: str, which: str, how: str
) -> None:
    files: dict[str, str | bytes] = {
        "toyd/__init__.py": "",
        f"{where}/__init__.py": "",
        f"{where}/m.py": "X = 1\n",
        f"{where}/p/__init__.py": "P = 1\n",
        f"{where}/k.py": "K = 1\n",
    }
    site = site_of(tmp_path, {"toyd": files})
    if which == "module hidden":  # p.py beside the installed package p/: `import p` loads p/__init__.py
        new, want = f"{where}/p.py", f"the package {where}/p/ hides it: Python imports "
        want += f"{where.replace('/', '.')}.p from {where}/p/__init__.py, never from {where}/p.py"
    elif which == "package hides":  # a new package m/ beside the installed m.py: `import m` now loads m/__init__.py
        new, want = f"{where}/m/__init__.py", f"it makes {where.replace('/', '.')}.m a package, which hides "
        want += f"{where}/m.py (Python imports {where.replace('/', '.')}.m from {where}/m/__init__.py)"
    elif which == "under a module":  # m/extra.py beside the installed m.py, no m/__init__.py (att40b #6)
        new = f"{where}/m/extra.py"
        want = f"{where.replace('/', '.')}.m is the module {where}/m.py, not a package: Python never imports {new}"
    else:  # Python reads `ﬁx` as `fix` (NFKC) and looks for fix.py (att40b #6)
        new = f"{where}/\ufb01x.py"
        want = (
            f"Python reads its name as {where.replace('/', '.')}.fix (NFKC) and looks for {where}/fix.py, never {new}"
        )
    site.write(new, "X = 2\n")
    dotted = new.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    oracle = subprocess.run(  # Python itself: the new file is not what `import <its name>` runs
        [str(site.edited.python), "-c", f"import {dotted} as m; print(getattr(m, 'X', None))"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        env=clean_env(),
    )
    assert (oracle.stdout.strip() == "2") == (which == "package hides"), oracle  # it hides the module, or is hidden
    site.write(f"{where}/k.py", "K = 2\n")

    r = site.capture("toyd", *([f"{where}/k.py", new] if how == "named" else []))

    assert r.returncode == 0, r.stdout + r.stderr
    assert f"left out {new}: {want}; rename it" in r.stdout, r.stdout
    assert site.created() == []
    assert list(site.entry()["modules"].values()) == [f"{where.replace('/', '.')}.k"]
