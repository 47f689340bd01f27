"""Each class of wrong code, through the CLI as a user meets it: `apply` exits 1 with one line
naming the rewrite (its registry file:line) and what is wrong, a hint, and writes nothing; the
correct neighbour of each applies and reverts byte for byte."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from tests.lib.site import Site

CORE = textwrap.dedent("""\
    from typing import TYPE_CHECKING

    try:
        import _rp_fastjson as json
    except ImportError:
        import json

    if TYPE_CHECKING:
        from rpcls.config import Cfg

    COUNT = 0


    def limit(n):
        if n is None:
            raise TypeError(Cfg)
        cap = 10
        return min(n, cap)


    def bump():
        global COUNT
        COUNT += 1
        return COUNT
    """)

ENTRY = textwrap.dedent("""\
    summary: proof class test
    description: changes rpcls.core
    distribution: rpcls
    supported: ">=1.0,<2"
    modules:
      core: rpcls.core
    rewrites:
    """)

WRONG = {  # case: (the rewrite, a payload or None, what the refusal says)
    "typing-only": (
        "  - id: r\n    file: core\n    replace: {scope: limit, find: cap = 10, with: cap = len(str(Cfg))}\n",
        None,
        "`Cfg` (line 17, in limit()) is imported only under `if TYPE_CHECKING:`",
    ),
    "self-import": (
        "  - id: r\n    file: core\n    insert_definitions: {payload: payload.py, before: limit}\n",
        "from rpcls.core import bump as _rp_bump\n\n\ndef _rp_helper():\n    return _rp_bump()\n",
        "`bump` (line 2, at module level) comes from the module itself (`from rpcls.core import bump`)",
    ),
    "after-return": (
        "  - id: r\n    file: core\n    insert_after: {scope: limit, find: 'return min(n, cap)', code: cap = 0}\n",
        None,
        "is unreachable: line 18 returns, raises, breaks or continues before it",
    ),
    "global": (
        "  - id: r\n    file: core\n    insert_after: {scope: bump, find: 'global COUNT', code: 'global TOTAL'}\n"
        "  - id: r2\n    file: core\n    insert_after: {scope: bump, find: COUNT += 1, code: TOTAL += 1}\n",
        None,
        "`TOTAL` (line 25, in bump()) is defined nowhere (NameError)",
    ),
    "conditional-def": (
        "  - id: r\n    file: core\n    replace: {scope: limit, find: cap = 10, with: cap = 20}\n",
        None,
        "it changes `limit` (line 14, at module level), which line 29 replaces on some paths",
    ),
    "attribute-store": (
        "  - id: r\n    file: core\n    replace: {scope: limit, find: cap = 10, with: cap = 20}\n",
        None,
        "it changes `limit` (line 14), which a module-level store at line 27 replaces",
    ),
    "builtin-taken-over": (
        "  - id: r\n    file: core\n    insert_definitions: {payload: payload.py, after: limit}\n",
        "def min(*args):\n    return 0\n",
        "`min` (line 21, at module level) is a builtin the module's own code reads (line 18 of the original)",
    ),
    "super-moved": (
        "  - id: r\n    file: core\n"
        '    wrap_body: {function: Sub.f, with: "def _call():\\n    __body__\\nreturn _call()"}\n',
        None,
        "`super` (line 35, in Sub.f._call()) is a zero-argument super() call outside the body of a method",
    ),
    "missing-module": (
        "  - id: r\n    file: core\n    add_import: {import: import rp_not_installed_xyz}\n",
        None,
        "`rp_not_installed_xyz` (line 2, at module level) is not a module on the target's import path",
    ),
    "missing-name": (
        "  - id: r\n    file: core\n    add_import: {import: from json import Nope}\n",
        None,
        "`Nope` (line 2, at module level) is not in json",
    ),
}
EXTRA = {  # what the case's module has after CORE
    "conditional-def": "\n\nif COUNT:\n\n    def limit(n):\n        return n\n",
    "attribute-store": "\n\nglobals()['limit'] = min\n",
    "super-moved": (
        "\n\nclass Base:\n    def f(self):\n        return 1\n\n\nclass Sub(Base):\n    def f(self):\n"
        "        return super().f()\n"
    ),
}


def install(site: Site, core: str) -> None:
    site.install(
        "rpcls", "1.0", {"rpcls/__init__.py": "", "rpcls/config.py": "class Cfg:\n    pass\n", "rpcls/core.py": core}
    )


@pytest.mark.parametrize("case", list(WRONG))
def test_wrong_code_is_refused_naming_the_rewrite(case: str, site: Site, write_registry: Any, radpatch: Any) -> None:
    rewrite, payload, says = WRONG[case]
    core = CORE + EXTRA.get(case, "")
    install(site, core)
    reg = write_registry("cls", ENTRY + rewrite, {"payload.py": payload} if payload else None)
    before = site.snapshot()
    r = radpatch("--registry", str(reg), "apply", "cls")
    assert r.code == 1, r
    first, hint = r.err.splitlines()
    assert first.startswith("radpatch: error: cls: rewrite 'r"), first
    assert "cls.yaml:" in first and says in first, first
    assert hint.startswith("  hint: ")
    assert site.snapshot() == before


RIGHT = {
    "try-bound-constant": (
        "  - id: r\n    file: core\n    insert_definitions: {payload: payload.py, after: limit}\n",
        "DUMPS = json.dumps\n",
    ),
    "typing-in-string-annotation": (
        "  - id: r\n    file: core\n    insert_definitions: {payload: payload.py, after: limit}\n",
        "def _rp_size(cfg: 'Cfg') -> int:\n    return 1\n",
    ),
    "global-bound": (
        "  - id: r\n    file: core\n    insert_after: {scope: bump, find: global COUNT, code: 'COUNT = abs(COUNT)'}\n",
        None,
    ),
    "builtin-renamed": (
        "  - id: r\n    file: core\n    insert_definitions: {payload: payload.py, after: limit}\n",
        "def _rp_min(*args):\n    return 0\n",
    ),
    "import-installed": (
        "  - id: r\n    file: core\n    add_import: {import: from rpcls.config import Cfg as _rp_cfg}\n",
        None,
    ),
    "before-return": (
        "  - id: r\n    file: core\n    insert_before: {scope: limit, find: 'return min(n, cap)', code: cap += 1}\n",
        None,
    ),
}


@pytest.mark.parametrize("case", list(RIGHT))
def test_the_correct_neighbour_applies_and_reverts_byte_for_byte(
    case: str, site: Site, write_registry: Any, radpatch: Any
) -> None:
    rewrite, payload = RIGHT[case]
    install(site, CORE)
    reg = write_registry("cls", ENTRY + rewrite, {"payload.py": payload} if payload else None)
    before = (site.root / "rpcls" / "core.py").read_bytes()
    r = radpatch("--registry", str(reg), "apply", "cls")
    assert r.code == 0, r.err
    assert (site.root / "rpcls" / "core.py").read_bytes() != before
    assert radpatch("--registry", str(reg), "revert", "cls").code == 0
    assert (site.root / "rpcls" / "core.py").read_bytes() == before
