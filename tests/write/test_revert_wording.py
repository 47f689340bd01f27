"""What `revert` says it restored (att21c F14): "byte for byte" only when the file is the installed
bytes again (or, with a patch left under it, the bytes from before this patch); a file that kept a
comment line someone added, carried over by an earlier revert, is "(comment and layout edits kept)",
however the patches were stacked and reverted. The real engine on an installed toy module."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.lib.registry import entry_head
from tests.lib.site import Site

MODULE = "LIMIT = 5\n\n\ndef f(x):\n    y = x + 1\n    return y\n\n\ndef g(x):\n    z = x * 2\n    return z\n"
REWRITES = {
    "pa": '  - insert_after: {scope: f, find: "y = x + 1", code: "y = y + 100"}\n',
    "pb": '  - insert_after: {scope: g, find: "z = x * 2", code: "z = z + 1000"}\n',
    "pc": "  - set_constant: {name: LIMIT, from: 5, value: 50}\n",
}
ORDERS = list(itertools.permutations(REWRITES))


def _setup(site: Site, write_registry: Any, radpatch: Any, order: tuple[str, ...]) -> Any:
    site.install("toys", "1.0", {"toys/__init__.py": "", "toys/a.py": MODULE})
    reg = None
    for name in order:
        reg = write_registry(name, entry_head(name, "toys", {"a": "toys.a"}) + REWRITES[name])
    r = radpatch("--registry", str(reg), "apply", *order)
    assert r.code == 0, r
    return reg


@pytest.mark.parametrize("comment", [True, False], ids=["comment", "untouched"])
@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_revert_says_byte_for_byte_only_for_the_installed_bytes(
    site: Site, write_registry: Any, radpatch: Any, order: tuple[str, ...], comment: bool
) -> None:
    reg = _setup(site, write_registry, radpatch, order)
    path = site.root / "toys" / "a.py"
    if comment:
        path.write_text("# local note\n" + path.read_text())
    said = []
    for names in ([order[0]], [order[2], order[1]]):  # the bottom one first, then the rest
        r = radpatch("--registry", str(reg), "revert", *names)
        assert r.code == 0, r
        said += [line for line in r.out.splitlines() if ": reverted; " in line]
    assert path.read_text() == ("# local note\n" if comment else "") + MODULE
    assert len(said) == 3, said
    for line in said:
        assert ("byte for byte" in line) is not comment, said
        assert ("(comment and layout edits kept)" in line) is comment, said
