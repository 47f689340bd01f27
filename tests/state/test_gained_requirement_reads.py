"""An applied entry whose entry, revised since, now requires `low`: status notes it ("its entry now
requires low, which ..."), saying what `low` reads as status reads `low` itself, in the words the
requirement pass uses ("which is not applied", "which reads drifted"): the note said "not applied"
of a requirement that reads drifted (issue 21).

For each way `low` is left (never applied; applied then reverted; its code edited by hand; one of
its two files put back by hand; its entry not patching the installed version), the oracle is
`status low`'s own state: the note names it, and its way on applies `low` only where `low` is not
applied (where it reads otherwise, `status low` says how to get it back)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site
from tests.lib.toy import ORIGINAL, TOY_FILES, TOY_PATCH

EXTRA = "toypkg/extra.py"
UP = """\
summary: up
description: Changes extra, on its own file.
distribution: toypkg
supported: ">=1.0,<2"
{requires}modules:
  extra: toypkg.extra
rewrites:
  - replace: {{scope: use, find: "return 1", with: "return 2"}}
"""


def _never(site: Site, radpatch: Callable[..., Any], reg: Path) -> None:
    pass


def _reverted(site: Site, radpatch: Callable[..., Any], reg: Path) -> None:
    assert radpatch("--registry", str(reg), "apply", "low").code == 0
    assert radpatch("--registry", str(reg), "revert", "low").code == 0


def _code_edited(site: Site, radpatch: Callable[..., Any], reg: Path) -> None:
    assert radpatch("--registry", str(reg), "apply", "low").code == 0
    util = site.root / "toypkg/util.py"
    util.write_text(util.read_text() + "\n\nEDITED = True\n")


def _one_file_put_back(site: Site, radpatch: Callable[..., Any], reg: Path) -> None:
    assert radpatch("--registry", str(reg), "apply", "low").code == 0
    (site.root / "toypkg/util.py").write_bytes(ORIGINAL["toypkg/util.py"])


def _version_left_out(site: Site, radpatch: Callable[..., Any], reg: Path) -> None:
    (reg / "low.yaml").write_text((reg / "low.yaml").read_text().replace('">=1.0,<2"', '">=2"'))


WAYS = {
    "never applied": _never,
    "applied, then reverted": _reverted,
    "its code edited by hand": _code_edited,
    "one of its files put back by hand": _one_file_put_back,
    "its entry does not patch this version": _version_left_out,
}


@pytest.mark.parametrize("way", sample(WAYS))
def test_the_gained_requirement_note_says_what_it_reads(
    site: Site, radpatch: Any, write_registry: Callable[..., Path], way: str
) -> None:
    site.install("toypkg", "1.0", {**TOY_FILES, EXTRA: "def use():\n    return 1\n"})
    write_registry("low", TOY_PATCH)
    reg = write_registry("up", UP.format(requires=""))
    assert radpatch("--registry", str(reg), "apply", "up").code == 0
    WAYS[way](site, radpatch, reg)
    write_registry("up", UP.format(requires="requires: [low]\n"))  # a revision gains the requirement
    out = json.loads(radpatch("--registry", str(reg), "status", "--json", "low", "up").out)
    assert isinstance(out, list), out
    status = {s["patch"]: s for s in out}
    low, up = status["low"]["state"], status["up"]
    assert low not in ("applied", "obsolete"), status["low"]
    reads = "is not applied" if low == "not-applied" else f"reads {low}"
    assert up["state"] == "applied", up
    assert f"its entry now requires low, which {reads} (a revision" in up["reason"], up["reason"]
    assert ("`radpatch apply low up` applies it" in up["reason"]) == (low == "not-applied"), up["reason"]
