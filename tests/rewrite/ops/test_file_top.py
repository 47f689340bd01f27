"""Code inserted at the top of a file (add_import, a new constant, insert_definitions before the
first definition) goes below a shebang, a PEP 263 encoding declaration (Python reads it on
lines 1 and 2 only: pushed lower, a latin-1 file's strings would be read as UTF-8) and a comment
header; a BOM stays first. Generated: each header times each body times each operation; the
patched file keeps its encoding and its header lines where they were, compiles, reads its
strings as before, and reverts byte for byte."""

from __future__ import annotations

import codecs
import io
import tokenize
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.generated import examples, turn_seed
from tests.lib.rewrites import patch_of

HEADERS = {  # name: (lines, encoding)
    "none": ((), "utf-8"),
    "coding line 1": (("# -*- coding: latin-1 -*-",), "latin-1"),
    "shebang, coding line 2": (("#!/usr/bin/env python", "# vim: set fileencoding=latin-1 :"), "latin-1"),
    "blank, coding line 2": (("", "# coding=latin-1"), "latin-1"),
    "comment header": (("# SPDX-License-Identifier: Apache-2.0", "# Copyright"), "utf-8"),
    "comment header, blank": (("# SPDX-License-Identifier: Apache-2.0", ""), "utf-8"),
    "shebang only": (("#!/usr/bin/env python3",), "utf-8"),
    "bom": ((), "utf-8-sig"),
    "bom and coding": (("# -*- coding: utf-8 -*-",), "utf-8-sig"),
}

BODIES = {
    "constant": "S = 'caf\xe9'\n",
    "def": "def f():\n    return 'caf\xe9'\n",
    "commented def": "# the one function\ndef f():\n    return 'caf\xe9'\n",
    "constant and def": "S = 'caf\xe9'\n\n\ndef f():\n    return S\n",
}

OPS: dict[str, Operation] = {
    "add_import": AddImport("import sys"),
    "set_constant": SetConstant("NEW", "1"),
    "insert_definitions": InsertDefinitions(Path("p.py"), b"def _rp():\n    return 1\n", ("_rp",), "f", "before"),
    "insert_definitions with an import": InsertDefinitions(
        Path("p.py"), b"import os\n\n\ndef _rp():\n    return os.sep\n", ("_rp",), "f", "before"
    ),
}


def _values(data: bytes) -> dict[str, object]:
    scope: dict[str, object] = {}
    exec(compile(data, "mod.py", "exec", dont_inherit=True), scope)  # the fixture's own literal code
    return {k: v for k, v in scope.items() if k == "S"} | (
        {"f()": scope["f"]()} if callable(scope.get("f")) else {}  # type: ignore[operator]
    )


@settings(max_examples=examples(120), deadline=None, derandomize=True)
@turn_seed()
@given(st.sampled_from(sorted(HEADERS)), st.sampled_from(sorted(BODIES)), st.sampled_from(sorted(OPS)))
def test_code_inserted_at_the_top_stays_below_the_header(header: str, body: str, kind: str) -> None:
    lines, encoding = HEADERS[header]
    op = OPS[kind]
    if kind.startswith("insert_definitions") and "def" not in body:
        op = SetConstant("NEW", "2")  # no def to insert before
    text = "".join(line + "\n" for line in lines) + BODIES[body]
    data = text.encode(encoding)
    patch = patch_of(op)
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), data).after
    assert (
        tokenize.detect_encoding(io.BytesIO(after).readline)[0]
        == tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    )
    assert after.startswith(codecs.BOM_UTF8) == data.startswith(codecs.BOM_UTF8)
    assert after.decode(encoding).startswith("".join(line + "\n" for line in lines)), after
    assert _values(after).items() >= _values(data).items()
    assert runner.backward(patch, patch.rewrites, after, "mod.py") == data


def test_a_latin1_file_of_one_constant_keeps_its_declaration_on_line_1() -> None:
    data = "# -*- coding: latin-1 -*-\nS = '\xe9'\n".encode("latin-1")
    patch = patch_of(AddImport("import sys"))
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), data).after
    assert after == "# -*- coding: latin-1 -*-\nimport sys  # radpatch: added import\nS = '\xe9'\n".encode("latin-1")


def test_definitions_before_the_first_def_of_a_file_with_a_comment_header() -> None:
    data = b"# header\n# more\n\ndef f():\n    pass\n"
    op = InsertDefinitions(Path("p.py"), b"def _g():\n    pass\n", ("_g",), "f", "before")
    patch = patch_of(op)
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), data).after
    assert after == b"# header\n# more\n\ndef _g():\n    pass\n\n\ndef f():\n    pass\n"
    assert runner.backward(patch, patch.rewrites, after, "mod.py") == data
