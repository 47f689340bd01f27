"""Literal modules several rewrite tests start from (tests/rewrite/)."""

from __future__ import annotations

import ast
import textwrap

CLASS = """\
    class Outer:
        class Config:
            retries = 3
            timeout = 10

        def method(self):
            x = 1
            return x
    """

HEADER = '''\
    """Engine core."""

    import os
    from typing import Any

    logger = None

    HANDSHAKE_TIMEOUT_MINS = 5


    def f():
        return HANDSHAKE_TIMEOUT_MINS
    '''

LOOP = """\
    def f(items, flag):
        total = 0
        for x in items:
            if flag:
                total += x  # add
            else:
                total -= x
        return total
    """

TWO = "def f(x):\n    a = 1\n    b = 2\n    return a + b\n"

PAYLOAD = textwrap.dedent('''\
    """A payload is an ordinary module: its docstring and imports are not inserted."""

    import os


    def _rp_helper(x):
        return x + 1


    # a comment between definitions
    def _rp_glue(y):
        """Docstring kept."""
        return _rp_helper(y)
    ''').encode()

MODULE = """\
    import os


    def first():
        return 1


    # The anchor's own comment stays with it.
    def target(a):
        return a


    def last():
        return 3
    """


def parses_here(source: str) -> bool:
    """Does radpatch's own Python parse `source` (a module in a newer target's grammar does not)?"""
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def loop_with(line: str, lines: str) -> str:
    """LOOP with its one statement `line` (as written there) made `lines` (one a line, at its indent):
    what a rewrite of LOOP writes, for the tests that check it whole."""
    out, seen = [], 0
    for text in LOOP.splitlines(keepends=True):
        if text.strip() != line:
            out.append(text)
            continue
        seen += 1
        pad = text[: len(text) - len(text.lstrip())]
        out.extend(f"{pad}{x}\n" for x in lines.split("\n"))
    assert seen == 1, (line, seen)
    return "".join(out)
