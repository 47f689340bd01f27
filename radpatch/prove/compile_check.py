"""The compile step's check: the patched module compiles in the target interpreter's grammar (asked
directly when it is another version), and its checked-hash .pyc when this interpreter compiled it;
code refused only for a grammar the target lacks (PEP 701's f-strings) is said so. For `steps`."""

from __future__ import annotations

import re
import sys

from radpatch import source_lines
from radpatch.files.bytecode import checked_pyc
from radpatch.install.environment import PythonEnv
from radpatch.prove.analysis import compiled, for_python, on_target, other_python
from radpatch.prove.refusal import COMPILE_HINT, Refusal


def compile_refusal(
    after: bytes, filename: str, python: PythonEnv | None = None, before: bytes | None = None, module: str | None = None
) -> Refusal | None:
    """Compiled with the target interpreter's grammar (asked directly when it is another version)."""
    return _compile(after, filename, python, before, want_pyc=False, module=module)[0]


def _compile(
    after: bytes,
    filename: str,
    python: PythonEnv | None,
    before: bytes | None,
    want_pyc: bool = True,
    module: str | None = None,
) -> tuple[Refusal | None, bytes | None]:
    """(why `after` does not compile, None), or (None, its checked-hash .pyc when this
    interpreter compiled it: the bytecode apply writes, so the file is compiled once)."""
    out = None
    if other_python(python):
        assert python is not None
        why = on_target(python, before if before is not None else after, after, filename, module).compile_error
    else:
        why, code = compiled(after, filename)
        out = checked_pyc(after, code) if code is not None and want_pyc else None
        del code  # the marshalled bytes are a fraction of the code objects: free them before the next proof
    if why is None:
        return None, out
    what, hint = _newer_grammar(after, filename, python, why) or (why, COMPILE_HINT)
    return Refusal("compile", f"the patched {filename} does not compile{for_python(python)}: {what}", hint), None


_LINE = re.compile(r"\(line (\d+)\)")
_F_STRING = re.compile(r"""(?<![\w'"])(?:[fF][rR]?|[rR][fF])['"]""")


def _f_string_at(data: bytes, why: str) -> bool:
    """Does the line the compile error names (`why`'s "(line N)") hold an f-string?"""
    at = _LINE.search(why)
    if at is None:
        return False
    n, lines = int(at.group(1)), source_lines.split(data.decode("utf-8", "replace"))
    return 0 < n <= len(lines) and bool(_F_STRING.search(lines[n - 1]))


def _newer_grammar(after: bytes, filename: str, python: PythonEnv | None, why: str) -> tuple[str, str] | None:
    """(what, what to do) when `after`, refused by an older target's compiler, compiles on radpatch's
    own newer Python: code written in a grammar the target lacks (PEP 701's f-strings, 3.12), which
    is correctly refused, but for that reason, not as code that is wrong."""
    if python is None or not other_python(python) or tuple(python.version[:2]) >= sys.version_info[:2]:
        return None
    if compiled(after, filename)[0] is not None:
        return None
    here, there = f"{sys.version_info[0]}.{sys.version_info[1]}", f"{python.version[0]}.{python.version[1]}"
    if sys.version_info >= (3, 12) and _f_string_at(after, why):
        return (
            f"{why}; the rewrite's f-string is Python 3.12+ syntax (PEP 701: the f-string's own quotes, a "
            f"backslash or a comment inside its braces), which the target's Python {there} does not read",
            "inside an f-string's braces use the other quotes (f\"{d['k']}\"), and no backslash or comment",
        )
    return (
        f"{why}; the rewrite's code is valid on Python {here} (radpatch's) but not in the target's "
        f"Python {there} grammar",
        f"write the rewrite's code in Python {there}'s syntax",
    )
