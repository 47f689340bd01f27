"""An `add_import` against a module-level rewrite that binds the same name (issue 23, gy23): a
`set_constant` of it (`from:` or not), a `replace`/`delete` of the assignment or def binding it, a
`replace`/insertion whose code binds it. list and verify report the pair, as the other name-binding
overlaps are reported; apply refuses it through the import's clash check. Generated pairs checked
against the engine on a small family of files: they overlap exactly when, on some file, "A then B"
and "B then A" give different results (one fails, the other not), or when the import can never go
beside the other (on every file the other applies to, both orders fail)."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from radpatch.errors import RadpatchError
from radpatch.prove.overlaps import gaps, pairs
from radpatch.registry.model import Patch
from radpatch.rewrite.matching import MatchFailure
from radpatch.rewrite.ops.common import code_errors
from radpatch.rewrite.source import Source
from tests.lib.overlaps import HEAD, write
from tests.lib.site import Site

FILES = (
    "import re\n\nX = 1\n",
    "import re\n\nenc = None\n\nX = 1\n",
    "import re\n\n\ndef enc():\n    return 1\n\n\nX = 1\n",
)
IMPORTS = (
    'add_import: {import: "from json import dumps as enc"}',
    'add_import: {import: "import json as enc"}',
    'add_import: {import: "import json"}',
)
OTHERS = (
    "set_constant: {name: enc, from: None, value: 1}",
    "set_constant: {name: X, from: 1, value: 2}",
    'delete: {scope: <module>, find: "enc = None"}',
    'replace: {scope: <module>, find: "enc = None", with: "other = None"}',
    'replace: {scope: <module>, find: "X = 1", with: "enc = 1"}',
    'replace: {scope: <module>, find: "X = 1", with: "X = 2"}',
    'delete: {scope: <module>, find: "def enc():\\n    return 1"}',
    'replace: {scope: <module>, find: "def enc():\\n    return 1", with: "def enc():\\n    return 2"}',
    'insert_after: {scope: <module>, find: "X = 1", code: "enc = 2"}',
    'insert_after: {scope: <module>, find: "X = 1", code: "other = 2"}',
)
PAIRS = list(product(range(len(IMPORTS)), range(len(OTHERS))))


def _once(p: Patch, text: str) -> bool:
    """The rewrite applies to `text` by itself."""
    try:
        with code_errors():
            p.rewrites[0].op.forward(Source.parse(text))
    except (RadpatchError, MatchFailure, SyntaxError, ValueError, TypeError):
        return False
    return True


def _engine_says(imp: Patch, other: Patch) -> bool:
    """The reference: order matters on some file, or the import never goes beside the other."""
    a, b = imp.rewrites[0].op, other.rewrites[0].op
    if any(gaps.in_order(a, b, f) != gaps.in_order(b, a, f) for f in FILES):
        return True
    where = [f for f in FILES if _once(other, f)]
    return bool(where) and all(gaps.in_order(a, b, f) is None and gaps.in_order(b, a, f) is None for f in where)


@pytest.mark.parametrize(("i", "o"), PAIRS, ids=[f"import{i}/other{o}" for i, o in PAIRS])
def test_an_import_and_a_rewrite_binding_its_name_overlap_as_the_engine_says(tmp_path: Path, i: int, o: int) -> None:
    imp = write(tmp_path, "one", f"  - id: ra\n    {IMPORTS[i]}\n")
    other = write(tmp_path, "two", f"  - id: rb\n    {OTHERS[o]}\n")
    found = pairs.find([imp, other], [Version("1.0")])
    assert bool(found) == _engine_says(imp, other), [x.describe() for x in found]
    for x in found:
        assert x.what.startswith("bind the same module-level name `enc`"), x.what


SRC = "import re\n\nenc = None\n\nX = 1\n"


@pytest.mark.parametrize(
    "other",
    [
        "set_constant: {name: enc, from: None, value: 1}",
        'delete: {scope: <module>, find: "enc = None"}',
        'replace: {scope: <module>, find: "enc = None", with: "other = None"}',
    ],
)
def test_list_reports_it_and_apply_refuses_it_naming_both(
    site: Site, radpatch: Any, write_registry: Any, other: str
) -> None:
    site.install("toypkg", "1.0", {"toypkg/__init__.py": "", "toypkg/core.py": SRC})
    head = HEAD.format(supported=">=1.0,<2")
    write_registry("one", head + f"  - id: ra\n    {IMPORTS[0]}\n")
    reg = write_registry("two", head + f"  - id: rb\n    {other}\n")
    r = radpatch("--registry", str(reg), "list")
    assert r.code == 0, r.out + r.err
    assert "overlap: one (ra) and two (rb) both bind the same module-level name `enc`" in r.out, r.out
    r = radpatch("--registry", str(reg), "apply", "one", "two")
    assert r.code == 1, r.out + r.err
    assert "one" in r.err and "two" in r.err, r.err
    assert (site.root / "toypkg/core.py").read_text() == SRC  # nothing written
