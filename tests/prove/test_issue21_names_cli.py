"""The issue-21 cases through `radpatch apply`: a read of a name bound only under a version test the
target's version rules out, and a delete of a name a star importer reads, are refused and leave every
byte alone; their twins (the version rules the branch in, the importer does not take the name) apply."""

from __future__ import annotations

import sys
import textwrap
from typing import Any

import pytest

from tests.lib.site import Site

ENTRY = textwrap.dedent("""\
    summary: issue 21
    description: changes rpv.a
    distribution: rpv
    supported: ">=1.0,<2"
    modules:
      a: rpv.a
    rewrites:
    """)
MINOR = sys.version_info[1]
VERSIONED = (
    "import sys\n\nif sys.version_info >= (3, {m}):\n    chain = 1\n\n\n"
    "def helper():\n    return 1\n\n\ndef g():\n    return 5\n"
)
READ = (
    '  - id: r\n    file: a\n    insert_before: {scope: <module>, find: "def g():\\n    return 5", code: X = chain}\n'
)
DELETE = '  - id: r\n    file: a\n    delete: {scope: <module>, find: "def helper():\\n    return 1"}\n'
CASES = {  # case: (rpv/a.py, rpv/b.py, the rewrite, refused?)
    "version-rules-out": (VERSIONED.format(m=MINOR + 1), "", READ, True),
    "version-rules-in": (VERSIONED.format(m=MINOR), "", READ, False),
    "star-reader": (VERSIONED.format(m=MINOR), "from rpv.a import *\n\nV = helper()\n", DELETE, True),
    "star-not-taken": (
        "__all__ = ['g']\n" + VERSIONED.format(m=MINOR),
        "from rpv.a import *\n\nV = g()\n",
        DELETE,
        False,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_issue_cases_are_decided_by_apply(case: str, site: Site, write_registry: Any, radpatch: Any) -> None:
    a, b, rewrite, refused = CASES[case]
    site.install("rpv", "1.0", {"rpv/__init__.py": "", "rpv/a.py": a, "rpv/b.py": b})
    reg = write_registry("i21", ENTRY + rewrite)
    before = site.snapshot()
    r = radpatch("--registry", str(reg), "apply", "i21")
    if refused:
        assert r.code == 1, (r.code, r.err)
        assert "`chain`" in r.err or "rpv/b.py:3" in r.err, r.err
        assert site.snapshot() == before
    else:
        assert r.code == 0, r.err
        assert radpatch("--registry", str(reg), "status", "--check", "i21").code == 0
