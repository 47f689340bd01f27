"""verify agrees with apply on the checks that need the target's other files or its interpreter: a
patch apply refuses because of what the installed package or the target interpreter says (a new
import the target lacks, an import cycle or a partially imported package the new import closes, a
name another module of the package imports taken away, a guarded import's fallback that never runs
there, code in a branch a version test makes dead on the target's Python) is never a silent PASS of
verify: it refuses too (the version test, decided for `--python X.Y` or radpatch's own Python; the
cycles, partially imported packages and importers, read from the release's other modules), or
says per release "not checked: needs an installed target (what)", in text and in JSON
(`not_checked`). A patch none of them concerns reads as before: nothing not checked.

Generated: each target-dependent check x the version verify judges for (radpatch's own, `--python`
naming it) x where the module sits (a plain module, a subpackage), each built into a wheel served
from the loopback index and installed for apply.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.package_imports import core_entry, package_release
from tests.lib.site import Site
from tests.lib.wheels import Wheels

DIST = "rpneeds-toy"
HERE = f"{sys.version_info[0]}.{sys.version_info[1]}"
CORE = "LIMIT = 5\nOLD = 1\n"
WHY = "A change whose proof reads the target."

# check -> (the package's files, {pkg} for its import name; the rewrite; what verify must say: "refuse"
# when it can decide it without a target, "names" when it decides it from the release's other modules
# (read from the wheel), else a word of its not-checked line)
CASES: dict[str, tuple[dict[str, str], str, str]] = {
    "missing-module": ({}, "add_import: {import: import rpneeds_nowhere}", "import rpneeds_nowhere"),
    "cycle-read": (
        {"other.py": "from {pkg}.core import LIMIT\n"},
        "add_import: {import: from {pkg} import other}",
        "names",
    ),
    "partial-package": (
        {"__init__.py": 'from .core import LIMIT\nVERSION = "1"\n'},
        "add_import: {import: from {pkg} import VERSION}",
        "names",
    ),
    "partial-attribute": (  # attack37: a new import-time read of a module the package imports only later
        {
            "__init__.py": "from .core import LIMIT\nfrom . import other\n",
            "other.py": "A = 1\n",
            "core.py": "import {pkg}\n" + CORE,
        },
        "set_constant: {name: B, value: {pkg}.other.A}",
        "names",
    ),
    "importer": (
        {"other.py": "from {pkg}.core import OLD\n"},
        "delete: {scope: <module>, find: OLD = 1}",
        "names",
    ),
    "fallback": (
        {
            "core.py": CORE
            + "try:\n    from json import dumps\nexcept ImportError:\n    def dumps(x):\n        return 1\n"
        },
        "replace: {scope: dumps, find: return 1, with: return 2}",
        "the fallback at line 5",
    ),
    "version-branch": (
        {"core.py": CORE + "import sys\nif sys.version_info < (3, 8):\n    LIMIT = 6\n"},
        "replace: {scope: <module>, find: LIMIT = 6, with: LIMIT = 7}",
        "refuse",
    ),
}
PYTHONS = ("own", "given")
PACKAGES = ("rpneeds", "rpneeds.sub")


def _files(case: str, pkg: str) -> dict[str, str]:
    return package_release(pkg, CORE, CASES[case][0])


def _entry(case: str, pkg: str) -> str:
    return core_entry(DIST, pkg, WHY, CASES[case][1])


@pytest.mark.parametrize(("case", "python", "pkg"), sample(itertools.product(CASES, PYTHONS, PACKAGES)))
def test_verify_refuses_or_says_not_checked_where_apply_refuses(
    case: str,
    python: str,
    pkg: str,
    site: Site,
    loopback: Callable[[str, Wheels], IndexServer],
    write_registry: Any,
    radpatch: Any,
) -> None:
    reg = write_registry("needs", _entry(case, pkg))
    files = _files(case, pkg)
    site.install(DIST, "1.0", files)
    applied = radpatch("--registry", str(reg), "apply", "needs", "--dry-run")
    assert applied.code != 0 and "Traceback" not in applied.err, (case, applied.err)  # apply refuses it

    loopback(DIST, {"1.0": dict(files)})
    given = ("--python", HERE) if python == "given" else ()
    r = radpatch("--registry", str(reg), "verify", "needs", "--versions", "1.0", "--json", *given)
    data = json.loads(r.out)
    got = data["results"][0]
    assert data["python"] == HERE and data["python_from"] == ("--python" if given else "radpatch"), data
    said = CASES[case][2]
    if said == "refuse":
        assert r.code == 1 and not got["ok"] and got["checks"]["placement"] is False, got
        return
    if said == "names":  # read from the release's other modules (releases.package_files), as apply reads them
        assert r.code == 1 and not got["ok"] and got["checks"]["names"] is False, got
        return
    assert any(said in line and f"{pkg.replace('.', '/')}/core.py" in line for line in got["not_checked"]), (case, got)

    text = radpatch("--registry", str(reg), "verify", "needs", "--versions", "1.0", *given)
    assert "Traceback" not in text.err, text.err
    assert "1.0: not checked: needs an installed target (" in text.out and said in text.out, text.out
    assert f"judged for Python {HERE}" in text.out, text.out


def test_a_patch_no_target_check_concerns_has_nothing_not_checked(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    entry = _entry("version-branch", "rpneeds").replace("LIMIT = 6, with: LIMIT = 7", "LIMIT = 5, with: LIMIT = 8")
    reg = write_registry("needs", entry)
    loopback(DIST, {"1.0": _files("version-branch", "rpneeds")})
    r = radpatch("--registry", str(reg), "verify", "needs", "--versions", "1.0", "--json")
    got = json.loads(r.out)["results"][0]
    assert r.code == 0 and got["ok"] and got["not_checked"] == [], got
    text = radpatch("--registry", str(reg), "verify", "needs", "--versions", "1.0")
    assert "not checked" not in text.out and "judged for" not in text.out, text.out


@pytest.mark.parametrize("bad", ["3", "three.ten", "2.7", "3.x", ""])
def test_a_python_that_is_not_a_version_is_said_in_one_line(bad: str, write_registry: Any, radpatch: Any) -> None:
    reg = write_registry("needs", _entry("missing-module", "rpneeds"))
    r = radpatch("--registry", str(reg), "verify", "needs", "--python", bad)
    assert r.code == 2 and "Traceback" not in r.err and f"--python {bad!r} is not a Python version" in r.err, r.err


@pytest.mark.parametrize(("minor", "dead"), [(10, True), (11, False), (13, False)])
def test_python_names_the_version_a_version_test_is_decided_for(
    minor: int, dead: bool, loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    files = {
        "rpneeds/__init__.py": "",
        "rpneeds/core.py": CORE + "import sys\nif sys.version_info >= (3, 11):\n    LIMIT = 6\n",
    }
    reg = write_registry("needs", _entry("version-branch", "rpneeds"))
    loopback(DIST, {"1.0": files})
    r = radpatch("--registry", str(reg), "verify", "needs", "--versions", "1.0", "--json", "--python", f"3.{minor}")
    got = json.loads(r.out)["results"][0]
    assert got["ok"] is not dead, got
    if dead:
        assert got["checks"]["placement"] is False and "3.10" in got["error"], got


@pytest.mark.parametrize(
    ("imported", "python", "listed"),
    [
        ("import math", HERE, False),
        ("from json import dumps", HERE, False),
        ("from json import rpneeds_nothing", HERE, True),
        ("import tomllib", "3.10", True),
        ("import math", "3.9", True),
    ],
)
def test_a_new_standard_library_import_is_not_checked_only_where_radpatch_cannot_answer_it(
    imported: str,
    python: str,
    listed: bool,
    loopback: Callable[[str, Wheels], IndexServer],
    write_registry: Any,
    radpatch: Any,
) -> None:
    """On radpatch's own Python version its standard library answers as the target's would (apply asks
    the target's interpreter the same question); for another version, only an installed target does."""
    if python == HERE and sys.version_info < (3, 10):
        pytest.skip("sys.stdlib_module_names is 3.10+")
    entry = _entry("missing-module", "rpneeds").replace("import rpneeds_nowhere", imported)
    reg = write_registry("needs", entry)
    loopback(DIST, {"1.0": _files("missing-module", "rpneeds")})
    r = radpatch("--registry", str(reg), "verify", "needs", "--versions", "1.0", "--json", "--python", python)
    got = json.loads(r.out)["results"][0]
    assert any(imported in line for line in got["not_checked"]) is listed, got


def test_the_matrix_says_what_it_could_not_check_below_a_pass(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    reg = write_registry("needs", _entry("missing-module", "rpneeds"))
    write_registry(
        "plain",
        _entry("missing-module", "rpneeds").replace(
            "add_import: {import: import rpneeds_nowhere}",
            "replace: {scope: <module>, find: LIMIT = 5, with: LIMIT = 6}",
        ),
    )
    loopback(DIST, {"1.0": _files("missing-module", "rpneeds")})
    r = radpatch("--registry", str(reg), "verify", "needs", "plain", "--versions", "1.0")
    assert r.code == 0 and "Traceback" not in r.err, r.err
    lines = [ln for ln in r.out.splitlines() if ": not checked: " in ln]
    assert len(lines) == 1 and lines[0].startswith(
        "needs 1.0: not checked: needs an installed target (rpneeds/core.py: "
    ), r.out
    assert "import rpneeds_nowhere" in lines[0] and f"judged for Python {HERE}" in r.out, r.out
