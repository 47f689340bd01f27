"""Names an entry gives that the installed module spells in another form (att60 F03).

Python reads identifiers NFKC-normalised: `def ﬁle` binds `file`, `class Ｃ` binds `C`, and `ast`
(which the importer reads) gives those names. The registry loader keeps a name in that form too,
but apply finds the definition a `scope:` or `function:` names by its spelling in the source: `scope: C.file`
finds no `Ｃ`, and the import's dry run said "this version defines no such function or class",
which blamed the version. The import refuses such a step up front instead, naming the spelling and
the line, with the way out."""

from __future__ import annotations

import io
import tokenize
import unicodedata

from radpatch.errors import RefusedError
from radpatch.importing.import_steps import ImportStep

_SCOPES = ("scope", "function")  # the keys apply resolves by spelling (rewrite.scopes); `after:`, `call:` it matches


def respelled(source: str) -> dict[str, tuple[int, str]]:
    """The names the module spells in a form NFKC changes: {Python's name: (line, spelling)}, the line of
    its first `def`/`class`, else of its first use."""
    if source.isascii():
        return {}
    out: dict[str, tuple[int, str]] = {}
    defined: set[str] = set()
    before = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            normal = unicodedata.normalize("NFKC", tok.string) if tok.type == tokenize.NAME else tok.string
            if normal != tok.string and normal not in defined:
                if before in ("def", "class"):
                    defined.add(normal)
                    out[normal] = (tok.start[0], tok.string)
                else:
                    out.setdefault(normal, (tok.start[0], tok.string))
            before = tok.string
    except (tokenize.TokenError, SyntaxError):
        return out
    return out


def refuse_respelled(label: str, rel: str, source: str, steps: tuple[ImportStep, ...], leave_out: str) -> None:
    """Refuse a step naming a name `source` spells in another form (see the module's docstring)."""
    spelled = respelled(source)
    if not spelled:
        return
    for step in steps:
        for key, value in step.keys:
            if key not in _SCOPES or not isinstance(value, str):
                continue
            hit = next((p for p in value.replace("(", ".").split(".") if p in spelled), None)
            if hit is not None:
                line, spelling = spelled[hit]
                raise RefusedError(
                    f"{label}: {rel}:{line}: the {step.op} step names {hit!r} ({key}: {value}), which the module "
                    f"spells {spelling!r}: Python reads both as {hit!r} (NFKC), but apply finds names by their "
                    "spelling, so the entry would not find it",
                    f"write this change by hand as an entry that names no such spelling (a replace with `scope: "
                    f"<module>` names none), or {leave_out}",
                )
