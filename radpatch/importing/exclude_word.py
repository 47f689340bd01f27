"""The `--exclude` a refusal hands the user: one shell word that, pasted into a shell, leaves out
exactly the file named and nothing else (att60 F04).

--exclude takes an fnmatch glob, so `[`, `*` and `?` in a name are written as one-character
classes (`pkg/[x].py` becomes `pkg/[[]x].py`, which matches only that name). The glob is then
quoted for a POSIX shell: in single quotes, a `'` in the name as `'"'"'`. A name that is not
UTF-8 text (a byte of it decoded as a surrogate), holds a character that does not print (a tab,
a newline) or is not in NFC (macOS writes names in NFD; a terminal may not paste the combining
characters back as they were) is written in `$'...'` quoting instead (bash, zsh, ksh and
POSIX.1-2024 sh), each byte that is not printable ASCII as `\\xHH`: the shell hands radpatch the
name's own bytes."""

from __future__ import annotations

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
        elif ch in "\\'":
            out.append("\\" + ch)
        elif ch.isascii() and ch.isprintable():
            out.append(ch)
        else:
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
    return "$'" + "".join(out) + "'"


def option(name: str) -> str:
    """`--exclude WORD` leaving out exactly the file `name` (its name in the patch after -p)."""
    return f"--exclude {shell_word(glob(name))}"
