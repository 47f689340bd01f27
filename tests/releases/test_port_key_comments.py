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


@pytest.mark.parametrize(
    "modules",
    [
        f"  planner: &m {PKG}.core\n  other: *m\n",
        f"  planner: &m {PKG}.core   # where size() lives\n  other: *m\n",
        f"  planner: &m !!str {PKG}.core\n  other: *m\n",
        f"  planner: !!str &m {PKG}.core\n  other: *m\n",
        f"  planner: &the_module\n    {PKG}.core\n  other: *the_module\n",
    ],
)
def test_port_keeps_an_anchor_other_keys_reach(
    index: IndexServer, write_registry: Any, radpatch: Any, modules: str
) -> None:
    """A module written once (`&m`) and reached by another key (`*m`): the list of choices port writes
    keeps the anchor, so the other key gets the same list (attack23 #12: the anchor went with the
    scalar, `*m` was an undefined alias, and port refused its own edit as not valid YAML). A tag on
    the scalar does not go on the list. Oracle: the written YAML read back, both keys the same list,
    and verify over the new range."""
    import yaml

    text = entry(">=1.0,<2", modules=modules).replace("  - id: cap\n", "  - id: cap\n    file: planner\n")
    reg = write_registry("cap", text)
    r = radpatch("--registry", str(reg), "port", "cap", "--to", "2.0")
    assert r.code == 0, r.out + r.err
    read = yaml.safe_load((reg / "cap.yaml").read_text())
    assert read["modules"]["planner"] == read["modules"]["other"], read["modules"]
    assert [c["module"] for c in read["modules"]["planner"]] == [f"{PKG}.core", f"{PKG}.planning"], read
    assert radpatch("--registry", str(reg), "verify", "cap", "--versions", ">=1.0,<=2.0").code == 0
