"""names.path_lookup reads what a module file binds from its bytes, kept for the whole process by
their digest: each file's content is parsed once however many lookups (one per proof) read it, and
an answer always follows the file's current bytes (an edit that keeps its size and mtime included)."""

from __future__ import annotations

import ast
import itertools
import os
from pathlib import Path

import pytest

from radpatch.prove import names
from tests.lib.generated import sample

# what a module file may be, each with what `lookup(module, "name")` answers of it
BODIES = {
    "binds": ("name = 1\n", True),
    "lacks": ("other = 1\n", False),
    "star": ("from os import *\n", None),
    "getattr": ("def __getattr__(attr):\n    return attr\n", None),
    "modules": ("import sys\nsys.modules\n", None),
    "broken": ("def (:\n", None),
}
CASES = sample([(a, b) for a, b in itertools.product(BODIES, BODIES) if a != b])


def _write(path: Path, text: str, size: int) -> None:
    path.write_text(text.ljust(size - 1) + "\n", encoding="utf-8")  # the same size for every body
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # and the same mtime


@pytest.mark.parametrize(("first", "then"), CASES)
def test_an_edited_file_is_read_again_and_each_content_is_parsed_once(
    first: str, then: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[bytes] = []
    real = ast.parse

    def counting(source: str | bytes, *args: object, **kwargs: object) -> ast.AST:
        if isinstance(source, bytes) and str(tmp_path).encode() in source:
            parsed.append(source)
        return real(source, *args, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(ast, "parse", counting)
    module = tmp_path / "mod_under_test.py"
    size = 200
    mark = f"# {tmp_path}\n"  # this test's own bytes: no other test's lookup kept them
    for body in (first, then, first):
        _write(module, mark + BODIES[body][0], size)
        for _ in range(3):  # a new lookup per proof, as the names step makes
            assert names.path_lookup([str(tmp_path)])("mod_under_test", "name") == BODIES[body][1]
    assert len(parsed) == 2 and len(set(parsed)) == 2  # each content once, however many lookups
