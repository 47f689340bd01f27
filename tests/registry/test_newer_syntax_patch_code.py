"""A patch whose code is in a newer Python's grammar than radpatch's own (a 3.12 target's
`f"{d["k"]}"`, `type Alias = int`, `def g[T](x: T) -> T`, read by radpatch on 3.11): its code is
matched and proved with radpatch's own `ast`, so it is refused, saying that it reads as a newer
Python's syntax and what to do (run radpatch with the target's interpreter, or write it in radpatch's
Python's syntax). Code no Python reads is refused without that advice.

Generated: each snippet in each field that holds code (a replace's `with` and `find`, an insert's
`code`, a set_constant's `value`, a `within`, a payload file). Each snippet is first compiled by a
Python 3.12 or newer when one is installed under /root/.pyenv: the newer-grammar ones must compile
there, the broken ones not."""

from __future__ import annotations

import glob
import itertools
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.lib.registry import load_problems, toy_entry_with, write_toy

NEWER = {  # snippet -> how a field holds it (statements; `value` needs an expression)
    "fstring-quotes": ('x = f"{d["k"]}"', 'f"{d["k"]}"'),
    "fstring-nested": ('x = f"{f"{d}"}"', 'f"{f"{d}"}"'),
    "type-alias": ("type Alias = int", None),
    "generic-def": ("def g[T](x: T) -> T:\n    return x", None),
    "generic-class": ("class Box[T]:\n    pass", None),
}
BROKEN = {"double-equals": ("x = = 1", "= 1"), "print-statement": ('print "a"', "print 'a'")}
FIELDS = ["with", "find", "code", "value", "within", "payload"]
ADVICE = "if it is a newer Python's syntax"
PY = (sys.version_info[0], sys.version_info[1])


def _newer_python() -> str | None:
    found = sorted(glob.glob("/root/.pyenv/versions/3.1[2-9]*/bin/python3.1[2-9]"))
    return found[-1] if found else None


def _entry(field: str, stmt: str, expr: str | None) -> tuple[str, str | None] | None:
    """(the entry's rewrites, a payload's text) holding the snippet in `field`; None when it cannot."""
    block = textwrap.indent(stmt, "      ")
    if field == "payload":
        return "- insert_definitions:\n    payload: payload.py\n    before: plan\n", stmt + "\n"
    if field == "value":
        if expr is None:
            return None
        return f"- set_constant:\n    name: LIMIT\n    value: |-\n{textwrap.indent(expr, '      ')}\n", None
    if field == "within":
        head = stmt.splitlines()[0]
        if not head.rstrip().endswith(":"):
            return None
        return (
            f"- insert_after:\n    scope: plan\n    within: |-\n      {head}\n    find: x = 1\n    code: x = 2\n",
            None,
        )
    other = "      x = 1"
    find, with_ = (other, block) if field == "with" else (block, other)
    if field == "code":
        return f"- insert_after:\n    scope: plan\n    find: |-\n{other}\n    code: |-\n{block}\n", None
    return f"- replace:\n    scope: plan\n    find: |-\n{find}\n    with: |-\n{with_}\n", None


CASES = [
    (n, f)
    for n, f in itertools.product([*NEWER, *BROKEN], FIELDS)
    if _entry(f, *({**NEWER, **BROKEN}[n])) is not None  # a field that can hold the snippet
]


@pytest.mark.skipif(PY >= (3, 12), reason="radpatch's own Python reads these grammars")
@pytest.mark.parametrize(("snippet", "field"), CASES)
def test_newer_syntax_in_a_patch_is_refused_with_what_to_do(tmp_path: Path, snippet: str, field: str) -> None:
    newer = snippet in NEWER
    stmt, expr = (NEWER if newer else BROKEN)[snippet]
    built = _entry(field, stmt, expr)
    assert built is not None
    rewrites, payload = built
    python = _newer_python()
    if python is not None:  # the oracle: a newer Python compiles exactly the newer-grammar snippets
        code = stmt if field != "value" else f"x = {expr}"
        done = subprocess.run(
            [python, "-c", "import sys; compile(sys.stdin.read(), 's', 'exec')"], input=code, text=True
        )
        assert (done.returncode == 0) == newer, (snippet, code)
    problems = load_problems(write_toy(tmp_path, toy_entry_with(rewrites), payload=payload or "X = 1\n"))
    said = "\n".join(problems)
    assert (ADVICE in said) == newer, said
    if newer:
        assert f"radpatch's own Python {PY[0]}.{PY[1]} cannot" in said and "-m radpatch" in said, said
