"""verify refuses what apply refuses of a payload constant going into an enum whose enum base only
the package's other modules tell (att55 F2, prove.enum_bases): it reads them from the release's
wheel (releases.package_files), as apply reads them from the install. A method, or a class with no
enum base, passes both. A base neither can follow (a call, no name saying enum) apply asks of the
target interpreter; verify has none, and says it did not check it."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from radpatch.releases import package_files
from tests.lib.enum_bases import ENTRY, ITEMS, KINDS, NOT_ENUM, WHERE, package
from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.site import Site
from tests.lib.wheels import Wheels


@pytest.mark.parametrize(("where", "kind", "item"), sample(itertools.product(WHERE, KINDS[:2], ("plain", "method"))))
def test_verify_says_what_apply_says_of_an_enum_member(
    where: str,
    kind: str,
    item: str,
    site: Site,
    loopback: Callable[[str, Wheels], IndexServer],
    write_registry: Any,
    radpatch: Any,
) -> None:
    files = package(where, kind)
    reg = write_registry("p", ENTRY, {"payload.py": ITEMS[item](kind)})
    site.install("rpmodes", "1.0", files)
    applied = radpatch("--registry", str(reg), "apply", "p", "--dry-run")
    assert "Traceback" not in applied.err, applied.err
    refused = item == "plain" and where not in NOT_ENUM
    assert (applied.code != 0) is refused, (applied.out, applied.err)
    loopback("rpmodes", {"1.0": dict(files)})
    r = radpatch("--registry", str(reg), "verify", "p", "--versions", "1.0", "--json")
    got = json.loads(r.out)["results"][0]
    if where == "neutral-call" and item == "plain":  # only the target interpreter can tell: apply asks it
        said = "is an enum, so the payload's constant would become a member (verify has no target interpreter"
        assert got["ok"] and any(said in x for x in got["not_checked"]), got
        return
    assert got["ok"] is not refused, (got, applied.err)
    if refused:
        assert r.code == 1 and got["checks"]["placement"] is False, got
        assert "would become a member" in got["error"] and "would become a member" in applied.err, got


def test_a_package_left_unread_says_the_enum_bases_were_not_checked(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More files than verify reads (MAX_FILES): it cannot follow an imported base, and says so."""
    monkeypatch.setattr(package_files, "MAX_FILES", 0)
    reg = write_registry("p", ENTRY, {"payload.py": ITEMS["plain"]("Enum")})
    loopback("rpmodes", {"1.0": package("absolute", "Enum")})
    got = json.loads(radpatch("--registry", str(reg), "verify", "p", "--versions", "1.0", "--json").out)
    (result,) = got["results"]
    assert any("whether class 'Mode' is an enum through a base" in x for x in result["not_checked"]), result
