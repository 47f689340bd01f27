"""`port` keeps the comments written between a `modules:` key and its value (`kv: # note`, the
module on the next line; a whole comment line before it) when it turns the module into a list of
two choices: the issue asks it to keep the entry's comments and layout."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import PKG, entry


@pytest.mark.parametrize(
    ("modules", "kept"),
    [
        (f"  planner: # the planner: keep this note\n    {PKG}.core\n", ["  planner: # the planner: keep this note\n"]),
        (f"  planner:\n    # a line of its own\n    {PKG}.core\n", ["  planner:\n    # a line of its own\n"]),
        (
            f"  planner:   # on the key\n    # and below it\n    {PKG}.core   # after the value\n",
            ["  planner: # on the key\n    # and below it\n", f"module: {PKG}.core   # after the value"],
        ),
    ],
)
def test_port_keeps_comments_between_a_module_key_and_its_value(
    index: IndexServer, write_registry: Any, radpatch: Any, modules: str, kept: list[str]
) -> None:
    reg = write_registry("cap", entry(">=1.0,<2", modules=modules))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 0, r.out + r.err
    text = (reg / "cap.yaml").read_text()
    for comment in kept:
        assert comment in text, text
    assert f"module: {PKG}.planning" in text
    assert radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=1.0,<=2.0").code == 0
