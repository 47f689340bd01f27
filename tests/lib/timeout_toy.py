"""The toy `replace` of the tests of a change that may not take effect on a release (releases.replaced):
radpatch-toy's Engine.configure sets `self.timeout = 30`, the entry makes it 60; the reference is the
release's own code, run."""

from __future__ import annotations

from typing import Any

ENTRY = """\
summary: A longer timeout
description: A toy replace.
distribution: radpatch-toy
supported: "SUPPORTED"
modules:
  core: rptoy.core
rewrites:
  - id: t
    replace:
      scope: Engine.configure
      find: self.timeout = 30
      with: self.timeout = 60
"""


def entry(supported: str) -> str:
    """The entry's YAML, for the releases `supported` names (a specifier: ">=1.0")."""
    return ENTRY.replace("SUPPORTED", supported)


def takes_effect(source: str) -> bool:
    """Whether a release's rptoy/core.py, run, leaves Engine().configure()'s timeout at 60, as the
    patched base does."""
    space: dict[str, Any] = {}
    exec(compile(source, "release", "exec"), space)  # noqa: S102 - the release's own code decides
    engine = space["Engine"]()
    engine.configure()
    return getattr(engine, "timeout", None) == 60
