"""The `--exclude` a refusal hands the user: one shell word that, pasted into a shell, leaves out
exactly the file named and nothing else (att60 F04).

--exclude takes an fnmatch glob, so `[`, `*` and `?` in a name are written as one-character
classes (`pkg/[x].py` becomes `pkg/[[]x].py`, which matches only that name). The glob is then
quoted for a POSIX shell: in single quotes, a `'` in the name as `'"'"'`. A name that is not
UTF-8 text (a byte of it decoded as a surrogate), holds a character that does not print (a tab,
a newline) or is not in NFC (macOS writes names in NFD; a terminal may not paste the combining
characters back as they were) is written in `$'...'` quoting instead (bash, zsh, ksh and
POSIX.1-2024 sh), each byte that is not printable ASCII (and `'`) as `\\xHH`: the shell hands radpatch the
name's own bytes. A POSIX sh without that quoting (dash, a Dockerfile's RUN) hands on `$name\\xHH` instead,
which import reads back as bash would (`as_bash_reads`), saying so."""

from __future__ import annotations

import re
import unicodedata

_GLOB = {"[": "[[]", "*": "[*]", "?": "[?]"}


def glob(name: str) -> str:
    """An fnmatch pattern that matches `name` and no other name."""
    return "".join(_GLOB.get(ch, ch) for ch in name)


def shell_word(text: str) -> str:
    """`text` quoted as one word of a POSIX shell (always quoted, so a glob is never expanded)."""
    plain = all(ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF for ch in text)
    if plain and unicodedata.is_normalized("NFC", text):
        return "'" + text.replace("'", "'\"'\"'") + "'"
    out = []
    for ch in text:
        if 0xDC80 <= ord(ch) <= 0xDCFF:  # a byte that was not UTF-8 (read with surrogateescape)
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif ch == "'":  # `\\x27`, not `\\'`: a POSIX sh (no `$'...'`) would end its quotes at `\\'`
            out.append("\\x27")
        elif ch == "\\":
            out.append("\\\\")
        elif ch.isascii() and ch.isprintable():
            out.append(ch)
        else:
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
    return "$'" + "".join(out) + "'"


def option(name: str) -> str:
    """`--exclude WORD` leaving out exactly the file `name` (its name in the patch after -p)."""
    return f"--exclude {shell_word(glob(name))}"


_BASH_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|\\|')")


def as_bash_reads(glob_: str) -> str | None:
    """The glob bash hands radpatch for `$'...'` where a POSIX sh (dash, a Dockerfile's RUN) handed `glob_`:
    dash has no `$'...'` quoting, so the word `$'pkg/\\xff.py'` arrives as `$pkg/\\xff.py`. Read as bash
    reads the escapes `shell_word` writes (`\\xHH`, `\\\\`, `\\'`), a byte that is not UTF-8 as its
    surrogate; None where `glob_` is not such a word (no `$` first, or no `\\xHH` in it)."""
    if not glob_.startswith("$") or not re.search(r"\\x[0-9A-Fa-f]", glob_):
        return None
    out = bytearray()
    at = 1
    for m in _BASH_ESCAPE.finditer(glob_, 1):
        out += glob_[at : m.start()].encode("utf-8", "surrogateescape")
        code = m.group(1)
        out += bytes([int(code[1:], 16)]) if code.startswith("x") else code.encode()
        at = m.end()
    out += glob_[at:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "surrogateescape")
