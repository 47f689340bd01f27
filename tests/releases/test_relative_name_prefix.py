"""verify's messages lose the entry's `NAME: ` only where it is the message's prefix (or its step's
words' prefix: `match: NAME: rewrite ...`), never inside the text (port38, issue 23): entry `e` on
distribution `e1` turned "... pristine: e1/core.py ..." into "... pristine1/core.py ...".

Generated: entry names that end words of the message (`e`, `core`, `py`, `s`), messages with the
name as their prefix, after a step, or nowhere but inside a word; the oracle is the message with
exactly the prefix taken off."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.registry import loader
from radpatch.registry.model import Patch
from radpatch.releases.results import CHECKS
from radpatch.releases.verifier import _relative
from tests.lib.generated import sample

BODY = "pristine: {x}1/core.py, {x}: {x}1/core.py at line 3: the {x}: key, where {x}: is said"


def _entry(name: str, tmp: Path) -> Patch:
    text = f"""\
summary: s
description: d
distribution: {name}1
supported: ">=1.0"
modules:
  m: {name}1.core
rewrites:
  - id: r
    replace: {{scope: f, find: "return x", with: "return x + 1"}}
"""
    return loader.load_bytes(tmp / f"{name}.yaml", text.encode())


@pytest.mark.parametrize(
    ("name", "step", "prefixed"),
    sample([(n, s, p) for n in ("e", "core", "py", "s") for s in ("", *CHECKS) for p in (0, 1)]),
)
def test_the_name_is_taken_off_only_as_a_prefix(tmp_path: Path, name: str, step: str, prefixed: int) -> None:
    patch = _entry(name, tmp_path)
    inner = "read " + BODY.format(x=name)
    said = f"{name}: {inner}" if prefixed else inner
    message = f"{step}: {said}" if step else said
    want = f"{step}: {inner}" if step else inner
    assert _relative(patch, message) == want
    assert _relative(patch, message, prefix=False) == message
