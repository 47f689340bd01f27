"""Two entries inserting at one gap of a file (an `insert_after` one statement, an `insert_before`
the next), which apply lets stack since either order writes the same file (prove.overlaps.gaps): their
record must not depend on the order they were applied in (gx23). Reverting either, after either
order, leaves exactly the other's effect; reverting both leaves the wheel's file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from radpatch.registry.loader import load_patch
from radpatch.rewrite.source import Source
from tests.lib.overlaps import HEAD, unpack_toy
from tests.lib.site import Site

SRC = "def plan(spec):\n    size = len(spec)\n    size = size * 2\n    return size\n"
AFTER = '  - id: a\n    insert_after: {scope: plan, find: "size = len(spec)", code: "n = 3"}\n'
BEFORE = '  - id: b\n    insert_before: {scope: plan, find: "size = size * 2", code: "n = 4"}\n'


def _install_wheel(site: Site, tmp_path: Path) -> None:
    unpack_toy(site, tmp_path, SRC)


def _alone(registry: Path, name: str) -> str:
    """The file with only `name` applied, by the engine on the wheel's text."""
    (rw,) = load_patch(registry / f"{name}.yaml").rewrites
    return rw.op.forward(Source.parse(SRC)).text


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
@pytest.mark.parametrize("reverted", ["a", "b"])
def test_either_entry_of_a_one_gap_pair_reverts_after_either_order(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path, order: tuple[str, str], reverted: str
) -> None:
    _install_wheel(site, tmp_path)
    core = site.root / "toypkg/core.py"
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("a", head + AFTER)
    reg = write_registry("b", head + BEFORE)
    for name in order:  # one at a time: the second stacks on the first's record
        r = radpatch("--registry", str(reg), "apply", name)
        assert r.code == 0, r.out + r.err
    r = radpatch("--registry", str(reg), "revert", reverted)
    assert r.code == 0, r.out + r.err
    kept = "b" if reverted == "a" else "a"
    assert core.read_text() == _alone(reg, kept)
    r = radpatch("--registry", str(reg), "revert", kept)
    assert r.code == 0, r.out + r.err
    assert core.read_text() == SRC
    assert radpatch("--registry", str(reg), "status", "--check").code == 0


def test_an_entry_stacked_on_the_code_another_writes_still_reverts_only_with_it(
    site: Site, radpatch: Any, write_registry: Any, tmp_path: Path
) -> None:
    # `b`'s find is the code `a` writes: without `a` it does not apply, so reverting `a` alone is
    # refused, naming both, and nothing is written
    _install_wheel(site, tmp_path)
    core = site.root / "toypkg/core.py"
    head = HEAD.format(supported=">=1.0,<2")
    writes = '  - id: a\n    replace: {scope: plan, find: "size = len(spec)", with: "size = len(spec) + 1"}\n'
    write_registry("a", head + writes)
    on_a = '  - id: b\n    insert_after: {scope: plan, find: "size = len(spec) + 1", code: "n = 4"}\n'
    reg = write_registry("b", head + on_a)
    for name in ("a", "b"):
        assert radpatch("--registry", str(reg), "apply", name).code == 0
    both = core.read_bytes()
    r = radpatch("--registry", str(reg), "revert", "a")
    assert r.code == 1, r.out + r.err
    assert "b is applied on top of it" in r.err and "radpatch revert a b" in r.err, r.err
    assert "Traceback" not in r.err
    assert core.read_bytes() == both
    assert radpatch("--registry", str(reg), "revert", "a", "b").code == 0
    assert core.read_text() == SRC
