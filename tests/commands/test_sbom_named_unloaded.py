"""`status --format cyclonedx NAME...` names an entry applied from a registry no longer loaded as `status NAME`
does: it is listed from the record (its diff, its `upstream:` links as `resolves`), as the BOM of every
entry lists it. It was refused as an unknown patch (exit 2) while `status NAME` and `status --json NAME`
read it from the record.

Generated: the names asked for (the unloaded entry alone, with a loaded applied one, in either order, with
a loaded entry not applied, twice) × the registries given (none, the other one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.sbom import bom_of, props
from tests.lib.toy import TOY_SECOND as SECOND

LINK = "https://github.com/o/r/pull/7"
NAMES = [("gone",), ("gone", "toy"), ("toy", "gone"), ("gone", "idle"), ("gone", "gone")]


@pytest.mark.parametrize(("names", "loaded"), sample([(n, lo) for n in NAMES for lo in (False, True)]))
def test_a_named_entry_of_an_unloaded_registry_is_listed_from_the_record(
    names: tuple[str, ...], loaded: bool, toy: Path, write_registry: Any, radpatch: Any
) -> None:
    gone = write_registry("gone", f'upstream: ["{LINK}"]\n' + SECOND.replace("floor", "gone"), dirname="r2")
    write_registry("idle", SECOND.replace("floor", "idle").replace("max(size, 1)", "max(size, 2)"))
    assert radpatch("--registry", str(toy), "--registry", str(gone), "apply", "toy", "gone").code == 0
    regs = ("--registry", str(toy)) if loaded else ()
    every = bom_of(radpatch(*regs, "status", "--format", "cyclonedx").out)
    r = radpatch(*regs, "status", "--format", "cyclonedx", *names)
    if "idle" in names and not loaded:  # neither a loaded registry nor the record has it: the usual error
        assert r.code == 2 and "unknown patch 'idle'" in r.err, r.err
        return
    assert r.code == 0, r.err
    (component,) = bom_of(r.out)["components"]
    # idle is not applied: not in the image; toy is listed from its registry, or from the record without it
    applied = [n for n in ("gone", "toy") if n in names]
    assert sorted(props(component, "radpatch:patch")) == applied
    (whole,) = every["components"]
    by_name = dict(zip(props(whole, "radpatch:patch"), whole["pedigree"]["patches"], strict=True))
    got = dict(zip(props(component, "radpatch:patch"), component["pedigree"]["patches"], strict=True))
    assert got == {n: by_name[n] for n in applied}
    assert got["gone"]["type"] == "backport" and got["gone"]["resolves"][0]["references"] == [LINK]
