"""verify's verdict is apply's on the checks that read the distribution's other modules (issue 21,
"one proof for apply and verify"): a name the patch takes away that a sibling imports
(prove.names.importers), an import cycle the patch's new import closes through a sibling or through
the package's `__init__` (prove.cycle_reads, prove.partial_package). apply reads those modules from
the install; verify reads them from the release's wheel (releases.package_files) and runs the same
checks on them, so a patch apply refuses on a release is refused by verify on it too, with apply's
words, and one apply takes is not refused.

Generated: each shape (with the spellings of the sibling's import, the guarded one and the ones with
no problem at all) x where the module sits (a top-level package, a subpackage); each entry verified
against the release served from the loopback index AND applied (`--dry-run`) on the same release
installed.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from radpatch.registry.loader import load_patch
from radpatch.releases import package_files
from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.package_imports import core_entry, package_release
from tests.lib.site import Site
from tests.lib.wheels import Wheels

DIST = "rppkg-toy"
CORE = "LIMIT = 5\nOLD = 1\n"
WHY = "A change whose proof reads the package's other modules."
ADD_OTHER = "add_import: {import: from {pkg} import other}"
ADD_VERSION = "add_import: {import: from {pkg} import VERSION}"
DELETE_OLD = "delete: {scope: <module>, find: OLD = 1}"

# shape -> (the package's files, {pkg} for its import name; the rewrite; does apply refuse it)
CASES: dict[str, tuple[dict[str, str], str, bool]] = {
    # an import cycle through a sibling: the sibling takes a name back the module binds below the new import
    "cycle-sibling-absolute": ({"other.py": "from {pkg}.core import LIMIT\n"}, ADD_OTHER, True),
    "cycle-sibling-relative": ({"other.py": "from .core import LIMIT\n"}, ADD_OTHER, True),
    "cycle-sibling-never-bound": ({"other.py": "from .core import NOWHERE\n"}, ADD_OTHER, True),
    "cycle-sibling-in-function": ({"other.py": "def f():\n    from .core import LIMIT\n"}, ADD_OTHER, False),
    # through the package __init__: it imports the module before it binds the name the module now takes
    "cycle-init": ({"__init__.py": 'from .core import LIMIT\nVERSION = "1"\n'}, ADD_VERSION, True),
    "cycle-init-bound-first": ({"__init__.py": 'VERSION = "1"\nfrom .core import LIMIT\n'}, ADD_VERSION, False),
    # a removed name a sibling imports
    "importer-absolute": ({"other.py": "from {pkg}.core import OLD\n"}, DELETE_OLD, True),
    "importer-relative": ({"other.py": "from .core import OLD\n"}, DELETE_OLD, True),
    "importer-attribute": ({"other.py": "from . import core\nX = core.OLD\n"}, DELETE_OLD, True),
    "importer-guarded": (
        {"other.py": "try:\n    from .core import OLD\nexcept ImportError:\n    OLD = 0\n"},
        DELETE_OLD,
        False,
    ),
    # no problem at all
    "plain-import": ({"other.py": "A = 1\n"}, "add_import: {import: import json}", False),
    "sibling-without-cycle": ({"other.py": "A = 1\n"}, ADD_OTHER, False),
    "removed-unused": ({"other.py": "from .core import LIMIT\n"}, DELETE_OLD, False),
}
PACKAGES = ("rppkg", "rppkg.sub")


def _files(case: str, pkg: str) -> dict[str, str]:
    return package_release(pkg, CORE, CASES[case][0])


def _entry(case: str, pkg: str) -> str:
    return core_entry(DIST, pkg, WHY, CASES[case][1])


def _problems(message: str) -> str:
    """The problems a names refusal lists (after "...: "), as apply and verify both word them."""
    line = next(x for x in message.splitlines() if "the patched" in x)
    return line.split("the patched ", 1)[1]


@pytest.mark.parametrize(("case", "pkg"), sample(itertools.product(CASES, PACKAGES)))
def test_verify_says_what_apply_says_on_the_same_release(
    case: str,
    pkg: str,
    site: Site,
    loopback: Callable[[str, Wheels], IndexServer],
    write_registry: Any,
    radpatch: Any,
) -> None:
    reg = write_registry("pkgread", _entry(case, pkg))
    files = _files(case, pkg)
    site.install(DIST, "1.0", files)
    applied = radpatch("--registry", str(reg), "apply", "pkgread", "--dry-run")
    assert "Traceback" not in applied.err, applied.err
    assert (applied.code != 0) is CASES[case][2], (case, applied.out, applied.err)

    loopback(DIST, {"1.0": dict(files)})
    r = radpatch("--registry", str(reg), "verify", "pkgread", "--versions", "1.0", "--json")
    got = json.loads(r.out)["results"][0]
    assert got["ok"] is (applied.code == 0), (case, got, applied.err)
    if applied.code != 0:
        assert r.code == 1 and got["checks"]["names"] is False, got
        said = applied.err.replace(f"{site.root}/", "")  # apply names the installed file by its path
        assert _problems(got["error"]) == _problems(said), (got["error"], applied.err)
    else:  # read from the release: nothing of it left "not checked"
        words = ("imports OLD", "import cycles", "partially imported")
        assert not [x for x in got["not_checked"] if any(w in x for w in words)], got


def test_a_package_too_large_to_read_is_said_not_checked(
    loopback: Callable[[str, Wheels], IndexServer],
    write_registry: Any,
    radpatch: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the package's files are not read (more than MAX_FILES), verify says what it did not check."""
    monkeypatch.setattr(package_files, "MAX_FILES", 1)
    reg = write_registry("pkgread", _entry("importer-relative", "rppkg"))
    loopback(DIST, {"1.0": _files("importer-relative", "rppkg")})
    r = radpatch("--registry", str(reg), "verify", "pkgread", "--versions", "1.0", "--json")
    got = json.loads(r.out)["results"][0]
    assert any("imports OLD from it" in x for x in got["not_checked"]), got
    why = "the package's other modules were not read: rppkg has 3 .py files, verify reads at most 1"
    assert all(why in x for x in got["not_checked"] if "package" in x.split("names:")[-1]), got
    shown = radpatch("--registry", str(reg), "verify", "pkgread", "--versions", "1.0")
    assert f"imports OLD from it: {why})" in shown.out, shown.out


@pytest.mark.parametrize(("limit", "case"), sample(list(itertools.product((0, 1, 2), CASES))))
def test_a_package_left_unread_says_why_wherever_a_check_needs_it(
    loopback: Callable[[str, Wheels], IndexServer],
    write_registry: Any,
    radpatch: Any,
    monkeypatch: pytest.MonkeyPatch,
    limit: int,
    case: str,
) -> None:
    """Every "not checked" of the names step that reads the package says why it was not read (rel41):
    "needs an installed target" alone read as if verify could not, where it chose not to (MAX_FILES)."""
    monkeypatch.setattr(package_files, "MAX_FILES", limit)
    files = _files(case, "rppkg")
    count = sum(1 for rel in files if rel.endswith(".py"))
    reg = write_registry("pkgread", _entry(case, "rppkg"))
    loopback(DIST, {"1.0": files})
    got = json.loads(radpatch("--registry", str(reg), "verify", "pkgread", "--versions", "1.0", "--json").out)
    (result,) = got["results"]
    about = [x for x in result["not_checked"] if "package" in x.split("names:")[-1].split(": the package's")[0]]
    why = f"the package's other modules were not read: rppkg has {count} .py files, verify reads at most {limit}"
    assert about or not CASES[case][2] or count <= limit, result  # apply refuses: verify says what it left
    assert all(x.endswith(why) for x in about), result


def test_a_release_cached_without_its_package_files_is_read_again_for_them(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    """An entry that needs no package file (a rewrite in a function) caches the release first; one that
    does then reads the rest, and a run after it answers the same from the cache."""
    files = _files("importer-relative", "rppkg")
    files["rppkg/core.py"] += "def f():\n    return 1\n"
    loopback(DIST, {"1.0": files})
    inside = _entry("importer-relative", "rppkg").replace(
        DELETE_OLD, "replace: {scope: f, find: return 1, with: return 2}"
    )
    plain = write_registry("plain", inside)
    assert not package_files.wanted([load_patch(plain / "plain.yaml")])
    first = radpatch("--registry", str(plain), "verify", "plain", "--versions", "1.0")
    assert first.code == 0, first.out + first.err
    reg = write_registry("pkgread", _entry("importer-relative", "rppkg"), dirname="other")
    for _ in range(2):
        r = radpatch("--registry", str(reg), "verify", "pkgread", "--versions", "1.0", "--json")
        got = json.loads(r.out)["results"][0]
        assert r.code == 1 and got["checks"]["names"] is False and "rppkg/other.py:1" in got["error"], got
