"""Whether two versions of a file hold the same code (comments and layout aside): read by
radpatch's own Python, or, where it cannot read them (a module in the target's newer grammar: a
PEP 695 `type` line on a 3.12 target read by radpatch on 3.11), by the target interpreter in a
subprocess (state.code_hashes.target_code_hashes), never by guessing."""

from __future__ import annotations

import ast
import sys

from radpatch.state.code_hashes import target_code_hashes

_UNREADABLE = (SyntaxError, ValueError, RecursionError, MemoryError)


def same_code(a: bytes, b: bytes, python: str = "") -> bool | None:
    """True when `a` and `b` parse to the same syntax tree, False when they do not, None when
    neither radpatch's Python nor the target interpreter `python` ("": not known) can tell."""
    if a == b:
        return True
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except _UNREADABLE:
        pass
    got = target_code_hashes(python, [a, b]) if python else None
    if got is None or not got[0] or not got[1]:
        return None
    return got[0] == got[1]


def unreadable_here(data: bytes) -> str:
    """Why radpatch's own Python cannot read `data` ("" when it can), for a message."""
    try:
        ast.parse(data)
    except SyntaxError as exc:
        here = f"{sys.version_info[0]}.{sys.version_info[1]}"
        return f"radpatch's Python {here} cannot read it ({exc.msg}, line {exc.lineno})"
    except _UNREADABLE as exc:
        return f"radpatch's Python cannot read it ({type(exc).__name__})"
    return ""
