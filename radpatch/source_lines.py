"""A module's lines as Python counts them (an `ast` node's `lineno`, a traceback's line, PEP 263's first
two lines): ended by "\\r\\n", "\\r" or "\\n" only.

str.splitlines also ends a line at a form feed (^L, a page break between sections in GNU-style
code), "\\v", "\\x1c"-"\\x1e", NEL ("\\x85"), U+2028 and U+2029, which Python's tokenizer (and GNU
patch) read as characters of a line: a file holding one had every line after it shifted by one for
str.splitlines (att60 F05: import's entry replaced a whole function, with a false "one-line suite"
note). Code that maps a line number to a line, or compares two versions line by line, splits here.
(bytes.splitlines already splits at "\\r\\n", "\\r" and "\\n" only; a patch's lines, which end at
"\\n" alone, are importing.sections.lines_of.)"""

from __future__ import annotations

import re

_END = re.compile(r"\r\n|\r|\n")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split(text: str, keepends: bool = False) -> list[str]:
    """`text`'s lines as Python's tokenizer counts them, as str.splitlines returns them (no empty
    line after a final line end; with `keepends`, each line with its own ending)."""
    if keepends:
        return _LINE.findall(text)
    lines = _END.split(text)
    return lines[:-1] if lines[-1] == "" else lines


def every_line_in(code: str, text: str) -> bool:
    """Whether each non-blank line of `code`, stripped, occurs in `text`: the cheap test of an operation's
    `may_be_present` (its code cannot be in a file that lacks one of its lines)."""
    return all(ln.strip() in text for ln in split(code) if ln.strip())
