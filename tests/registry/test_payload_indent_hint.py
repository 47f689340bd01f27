"""att20c F5: a payload written with the indentation of the class it goes into (as a method is
copied out of its class) is refused by the loader with a line that says payloads are written at
column 0; a payload that fails for another reason does not get that line. Generated: payloads of
several shapes, each indented several ways, read by the real loader and the real CLI."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from radpatch.cli import main
from tests.lib.registry import TOY_ENTRY, TOY_PAYLOAD, load_problems, write_toy

SHAPES = {
    "module": TOY_PAYLOAD,
    "method": "def _rp_helper(self, x):\n    return x\n",
    "decorated": "@staticmethod\ndef _rp_helper(x):\n    # doubled\n    return 2 * x\n",
}
INDENTS = ("    ", "        ", "\t", "  ")
HINT = "payloads are written at column 0"


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("indent", INDENTS)
def test_an_indented_payload_is_told_to_start_at_column_0(
    tmp_path: Path, shape: str, indent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = textwrap.indent(SHAPES[shape], indent)
    found = load_problems(write_toy(tmp_path, TOY_ENTRY, payload=payload))
    assert len(found) == 1 and "payload.py:1 does not parse" in found[0] and HINT in found[0], found
    assert main(["--registry", str(tmp_path), "show", "toy"]) == 2
    err = capsys.readouterr().err
    assert HINT in err and "Traceback" not in err and len(err.strip().splitlines()) <= 2, err


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_payload_at_column_0_that_does_not_parse_gets_no_indent_hint(tmp_path: Path, shape: str) -> None:
    payload = SHAPES[shape].replace("(", "((", 1)
    found = load_problems(write_toy(tmp_path, TOY_ENTRY, payload=payload))
    assert len(found) == 1 and "does not parse" in found[0] and HINT not in found[0], found
