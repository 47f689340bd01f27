"""`port` edits a registry file whose module names are YAML block scalars (`planner: >-` then the
module on an indented line): such a node's end mark lies after its line breaks, at the start of the
next key's line, so turning it into a list of choices joined the next key to the new text
(`module: rptoy.corerewrites:`) and the edit was refused as "not valid YAML"; a choice appended
after a last item whose `module:` is a block scalar landed after the next key's line. Every edit now
ends a node at its last line (radpatch.releases.yamledit.end_of).

Generated: the block scalar's style (`>-`, `|-`), the module a scalar or the last item of
a list of choices, followed by the rewrites, by a comment line, or last in the file."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.index_server import IndexServer
from tests.lib.toy_releases import DIST, PKG, REWRITES

STYLES = (">-", "|-")  # strip chomping: clip (`>`, `|`) keeps a newline in the name (the loader takes it)
SHAPES = {
    "scalar": "  planner: {style}\n    {module}\n",
    "last choice": '  planner:\n    - versions: ">=1.0"\n      module: {style}\n        {module}\n',
}


def _entry(style: str, shape: str, after: str) -> str:
    modules = SHAPES[shape].format(style=style, module=f"{PKG}.core")
    head = f'summary: s\ndescription: d\ndistribution: {DIST}\nsupported: ">=1.0,<1.2"\n'
    if after == "last":
        return f"{head}{REWRITES}modules:\n{modules}"
    between = "  # the planner's home\n" if after == "comment" else ""
    return f"{head}modules:\n{modules}{between}{REWRITES}"


@pytest.mark.parametrize(
    ("style", "shape", "after"),
    sample([(st, sh, a) for st in STYLES for sh in SHAPES for a in ("rewrites", "comment", "last")]),
)
def test_port_edits_a_block_scalar_module(
    index: IndexServer, write_registry: Any, radpatch: Any, style: str, shape: str, after: str
) -> None:
    reg = write_registry("cap", _entry(style, shape, after))
    r = radpatch("--registry", str(reg), "port", "cap", "--to", ">=1.1,<2.1")
    assert r.code == 0, r.out + r.err
    text = (reg / "cap.yaml").read_text()
    assert f"module: {PKG}.planning" in text, text
    assert "\nrewrites:\n" in text and text.count("- id: cap") == 1, text
    if after == "comment":
        assert "  # the planner's home\n" in text, text
    assert radpatch("--registry", str(reg), "verify", "cap").code == 0
