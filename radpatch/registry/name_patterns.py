"""The JSON Schema's patterns for the names the loader reads as Python reads them (PEP 3131): an
name (`str.isidentifier`, not a keyword), a qualified name (`<module>` or identifiers joined by dots) and a
dotted module name (loader.nodes.is_dotted: no part a keyword), so that an editor flags no name the
loader accepts (`toyd.é`, `scope: Größe.f`) and every one it refuses.

A regex engine has no portable class for identifier characters (Python's `re` has no `\\p{..}`),
so the characters are listed: `identifier_chars.json` holds the code point ranges that may start
and continue an identifier, computed from one Unicode version's tables (the Python that wrote them)
so that the committed schema does not change with the Python rendering it; `python -m
radpatch.registry.name_patterns` rewrites it from the running Python's tables. Each pattern uses
each class once (a part, then a dot before another part or the end), and ends with `(?![\\s\\S])`,
which `$` is not in Python's `re` (it matches before a final newline)."""

from __future__ import annotations

import json
import keyword
import sys
import unicodedata
from functools import lru_cache
from pathlib import Path

CHARS = Path(__file__).resolve().parent / "identifier_chars.json"
END = "(?![\\s\\S])"


def ranges_now() -> dict[str, object]:
    """The ranges of code points that start (`c.isidentifier()`) and continue (`("a" + c)`) an
    identifier for the running Python, and its Unicode version."""

    def ranges(ok: list[bool]) -> list[list[int]]:
        out: list[list[int]] = []
        for cp, good in enumerate(ok):
            if good and out and out[-1][1] == cp - 1:
                out[-1][1] = cp
            elif good:
                out.append([cp, cp])
        return out

    chars = [chr(cp) for cp in range(sys.maxunicode + 1)]
    return {
        "unicode": unicodedata.unidata_version,
        "start": ranges([c.isidentifier() for c in chars]),
        "continue": ranges([("a" + c).isidentifier() for c in chars]),
    }


@lru_cache(maxsize=1)
def _classes() -> tuple[str, str]:
    data = json.loads(CHARS.read_text())

    def cls(ranges: list[list[int]]) -> str:
        return "[" + "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]"

    return cls(data["start"]), cls(data["continue"])


def python_name() -> str:
    """A name Python code binds or reads: an identifier that is not a keyword (loader.field_kinds'
    `identifier` kind: a parameter, a constant, a payload's definition)."""
    start, more = _classes()
    guard = "(?!(?:" + "|".join(keyword.kwlist) + ")" + END + ")"
    return f"^{guard}{start}{more}*{END}"


def _parts(guard: str = "") -> str:
    start, more = _classes()
    return f"(?:{guard}{start}{more}*(?:\\.(?=[\\s\\S])|{END}))+"


def qualname() -> str:
    """`<module>`, or identifiers joined by dots (`Class.method`, `Größe.f`)."""
    return f"^(?:<module>{END}|{_parts()}){END}"


def dotted() -> str:
    """A module name as Python imports one: identifiers joined by dots, none a keyword."""
    guard = "(?!(?:" + "|".join(keyword.kwlist) + ")(?:\\.|" + END + "))"
    return f"^{_parts(guard)}{END}"


def main() -> int:
    CHARS.write_text(json.dumps(ranges_now(), separators=(",", ":")) + "\n")
    print(f"wrote {CHARS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
