"""toypkg: the small two-module distribution most in-process tests install into a fake
site-packages (tests/lib/site.py), the two-file patch `toy` over it, both forms of its files, and
the assertion that a refusal leaves every byte alone."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.lib.site import Site

TOY_FILES = {
    "toypkg/__init__.py": "",
    "toypkg/core.py": """\
        def plan(spec):
            size = len(spec)
            if size > 4:
                size = 4
            return size


        def groups(spec):
            return plan(spec)
        """,
    "toypkg/util.py": """\
        def scale(x):
            return x * 2
        """,
}

TOY_PATCH = """\
    summary: Toy two-file patch
    description: Adds a parameter, passes it, and changes a factor in a second module.
    distribution: toypkg
    supported: ">=1.0,<2"
    modules:
      core: toypkg.core
      util: toypkg.util
    rewrites:
      - id: cfg-param
        file: core
        add_parameter: {function: plan, name: cfg, default: "None"}
      - id: pass-cfg
        file: core
        replace: {scope: groups, find: plan(spec), with: "plan(spec, None)"}
      - id: triple
        file: util
        replace: {scope: scale, find: x * 2, with: x * 3}
    """

# the forms `toy` gives its files
PATCHED_CORE = """\
def plan(spec, cfg=None):
    size = len(spec)
    if size > 4:
        size = 4
    return size


def groups(spec):
    return plan(spec, None)
"""
PATCHED_UTIL = "def scale(x):\n    return x * 3\n"

ORIGINAL_CORE = PATCHED_CORE.replace("spec, cfg=None", "spec").replace("plan(spec, None)", "plan(spec)")
ORIGINAL = {
    "toypkg/__init__.py": b"",
    "toypkg/core.py": ORIGINAL_CORE.encode(),
    "toypkg/util.py": b"def scale(x):\n    return x * 2\n",
}


def sources(site: Site) -> dict[str, bytes]:
    return {rel: (site.root / rel).read_bytes() for rel in ORIGINAL}


def one_rewrite(rewrite: str) -> str:
    """A registry entry for toypkg.core with the given rewrite (YAML, indented as a list item)."""
    return textwrap.dedent("""\
        summary: One rewrite
        description: d
        distribution: toypkg
        supported: ">=1.0,<2"
        modules:
          core: toypkg.core
        rewrites:
        """) + textwrap.indent(textwrap.dedent(rewrite), "  ")


def refused(site: Site, radpatch: Callable[..., Any], registry: Path, *argv: str, code: int = 1) -> str:
    """radpatch refuses `argv` with `code`: a one-line error, no traceback, no byte changed."""
    before = site.snapshot()
    r = radpatch("--registry", str(registry), *argv)
    assert r.code == code, (r.out, r.err)
    assert "Traceback" not in r.err
    assert r.err.startswith("radpatch: error: ")
    assert site.snapshot() == before
    return r.err


# a second entry over toypkg, on the same file as `toy`
TOY_SECOND = """\
summary: Toy second patch
description: Inserts a statement in plan().
distribution: toypkg
supported: ">=1.0,<2"
modules:
  core: toypkg.core
rewrites:
  - id: floor
    insert_after: {scope: plan, find: "size = len(spec)", code: "size = max(size, 1)"}
"""

# An entry stacked on `toy`, requiring it (the requires: tests; write_registry dedents it).
UPPER = """\
    summary: a second patch on toy's file
    description: stacks on toy
    distribution: toypkg
    supported: ">=1.0,<2"
    requires: [toy]
    modules:
      core: toypkg.core
    rewrites:
      - id: cap
        file: core
        replace: {scope: plan, find: "size = 4", with: "size = 5"}
    """
