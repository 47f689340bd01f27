"""Issue 20 (att20c F1): a patch deleting the last method of a class imports as a rewrite whose
`with` is a prefix of its `find` (the method before it, alone); apply must take that entry on the
pristine file (the `with` found there is no evidence of the patch). Generated from real modules:
the last method of classes of the stdlib and vLLM corpus, each checked against GNU patch
(tests/lib/importing.imported_as_gnu_patch_gives)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from tests.lib.importing import PACKAGE, corpus_files, imported_as_gnu_patch_gives

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _last_methods(source: str) -> list[tuple[int, int]]:
    """(first line, last line), 1-based, of each class's last statement when it is a method that
    follows another method."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and len(node.body) >= 2:
            last, prev = node.body[-1], node.body[-2]
            if isinstance(last, DEFS) and isinstance(prev, DEFS):
                first = min([last.lineno, *(d.lineno for d in last.decorator_list)])
                assert last.end_lineno is not None
                found.append((first, last.end_lineno))
    return found


CASES = [
    (m, seed)
    for seed, m in enumerate(("vllm_0_33_0_core", "std_configparser", "std_argparse", "vllm_0_33_0_coordinator"))
]


@pytest.mark.wheel
@pytest.mark.parametrize(("module", "seed"), CASES)
def test_deleting_a_class_s_last_method_imports_as_an_entry_that_applies(
    tmp_path: Path, module: str, seed: int
) -> None:
    before = corpus_files()[f"{PACKAGE}/{module}.py"].decode()
    spans = _last_methods(before)
    assert spans, module
    first, last = random.Random(seed).choice(spans)
    lines = before.splitlines(keepends=True)
    start = first - 1
    while start > 0 and not lines[start - 1].strip():  # the blank lines before it go with it
        start -= 1
    after = "".join(lines[:start] + lines[last:])
    ast.parse(after)
    imported_as_gnu_patch_gives(tmp_path, before, after)
