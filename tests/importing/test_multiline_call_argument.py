"""Issue 20 (att20f F2): one argument of a call written over several lines changes. The imported
`replace` of the call writes its continuation lines relative to the line the call starts on (not
at the file's absolute indentation), and apply gives GNU patch's bytes, closing parenthesis
included, wherever the call stands (a nested block, an assignment, a method, beside a multi-line
string argument whose rows keep every byte)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.lib.importing import diff_imported

REL = "rpcall/m.py"

NESTED = """\
async def read(response, limit, request_budget):
    chunks = []
    async for chunk in response:
        if chunk:
            _append_chunk(
                chunks,
                chunk,
                limit,
                request_budget,
            )
    return chunks


def other(request_budget):
    _append_chunk(
        [],
        b"",
        1,
        request_budget,
    )


def _append_chunk(*a, **k):
    pass
"""

ASSIGN = """\
class Loader:
    def load(self, path, mode):
        if path:
            handle = open(
                path,
                mode,
                encoding="utf-8",
            )
            return handle
        return None
"""

STRING = '''\
def usage(parser, width):
    if width:
        parser.add_argument(
            "--name",
            help="""one
  two""",
            default=None,
        )
'''

SHAPES = {
    "nested-block": (
        NESTED,
        NESTED.replace("                request_budget,\n", "                request_budget=request_budget,\n"),
    ),
    "assignment-in-method": (ASSIGN, ASSIGN.replace('encoding="utf-8"', 'encoding="latin-1"')),
    "beside-a-multiline-string": (STRING, STRING.replace("default=None", "default='x'")),
}


@pytest.mark.wheel
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_argument_of_a_multiline_call_imports_byte_equal_to_gnu_patch(tmp_path: Path, shape: str) -> None:
    before, after = SHAPES[shape]
    got = diff_imported(tmp_path, "rpcall", REL, before, after)
    venv, wheel, reg, text = got.venv, got.wheel, got.reg, got.text
    applied = venv.radpatch("--registry", str(reg), "apply", "--wheel", str(wheel), "change")
    assert applied.returncode == 0, applied.stderr + text
    assert (venv.site / REL).read_text() == got.gnu, text  # byte-equal, not only AST
    for item in yaml.safe_load(text)["rewrites"]:
        for op in item.values():
            if isinstance(op, dict) and isinstance(op.get("with"), str) and "\n" in op["with"].strip():
                last = op["with"].rstrip("\n").split("\n")[-1]
                assert last == ")", text  # the closing parenthesis at the call's own line's indentation
    assert venv.radpatch("--registry", str(reg), "status", "--check", "change").returncode == 0
    assert venv.radpatch("--registry", str(reg), "revert", "change").returncode == 0
    assert (venv.site / REL).read_text() == before
