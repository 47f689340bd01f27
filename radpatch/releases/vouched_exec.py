"""A rename refused for code run by `exec`/`eval` that radpatch cannot read (issue 23, exec51): the
words of the refusal, naming every such call by file:line and statement, and the `vouched_exec:` YAML
that vouches for them. Which calls those are: radpatch.releases.exec_code."""

from __future__ import annotations

import json
from collections.abc import Sequence


def item(file: str, code: str) -> str:
    """One `vouched_exec:` item as YAML flow (the code quoted as JSON, which YAML reads alike)."""
    return f"{{file: {file}, code: {json.dumps(code)}}}"


def refusal(head: str, unread: Sequence[tuple[str, int, str]], names: Sequence[str], listed: bool) -> str:
    """`head`, then the calls (file, line, statement) whose code may store `names`, and the YAML to add
    if the entry's author, having read each, vouches that the code stores none of them."""
    sites = "; ".join(f"{f}:{line} `{code}`" for f, line, code in unread)
    said = ", ".join(f"`{n}`" for n in dict.fromkeys(names))
    items = ", ".join(item(f, code) for f, _, code in dict.fromkeys((f, 0, c) for f, _, c in unread))
    add = f"add to the entry's vouched_exec: list: {items}" if listed else f"add to the entry: vouched_exec: [{items}]"
    return (
        f"{head}: code run by exec/eval that radpatch cannot read (another module of the package) may store "
        f"{said}: {sites}; if you have read it and it cannot, {add}"
    )
