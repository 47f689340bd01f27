"""What someone changed in a file radpatch patched, in words: the definitions whose code differs from
what radpatch's recorded patches wrote. For a file under a stack of patches that is the stack's
result (the top link's kept bytes), not the result of the entry being judged: the patches above it
changed the file too, and their changes are recorded, not someone's edit (att20b F1). prove.form
asks it for the detail of a drifted file."""

from __future__ import annotations

import ast

from radpatch.gcpause import pausing
from radpatch.state.record import FileRecord, Store


def top_of_stack(store: Store, recorded: FileRecord) -> FileRecord | None:
    """The last link stacked above `recorded` on its file (each one's `before` the `after` of the
    one under it, the newest such), or None when no recorded link is above it."""
    chain = [f for _, f in store.chain(recorded.path)]
    if recorded not in chain:
        return None
    at, top = chain.index(recorded), None
    while (
        up := next(
            (i for i in reversed(range(at + 1, len(chain))) if chain[i].original_sha256 == chain[at].patched_sha256),
            None,
        )
    ) is not None:
        at = up
        top = chain[at]
    return top


def edited_over_stack(store: Store, recorded: FileRecord, data: bytes) -> str | None:
    """For a file with recorded patches above `recorded`: the definitions changed since the stack's
    last patch wrote it, in words ("" when its code is still that result); None when no link is
    above it or the stack's result is not kept (the caller words it on its own)."""
    top = top_of_stack(store, recorded)
    wrote = store.original(top.patched_sha256) if top is not None else None
    if wrote is None:
        return None
    differ = changed_definitions(wrote, data)
    return f"edited since radpatch patched it: {', '.join(differ)} changed" if differ else ""


@pausing
def changed_definitions(a: bytes, b: bytes) -> list[str]:
    """The definitions whose code differs between two versions of a file, by qualified name: inside
    a class whose other statements are the same, its changed methods and nested classes
    (`Engine.is_awake`), else the top-level definition (or `<module>`); [] when they do not parse."""
    try:
        old, new = ast.parse(a), ast.parse(b)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return sorted(_differ(old.body, new.body, ""))


Named = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _differ(old: list[ast.stmt], new: list[ast.stmt], prefix: str) -> set[str]:
    def named(body: list[ast.stmt]) -> dict[str, list[ast.stmt]]:
        out: dict[str, list[ast.stmt]] = {}
        for node in body:
            out.setdefault(node.name if isinstance(node, Named) else "<module>", []).append(node)
        return out

    g_old, g_new = named(old), named(new)
    out: set[str] = set()
    for name in g_old.keys() | g_new.keys():
        was, now = g_old.get(name, []), g_new.get(name, [])
        if [ast.dump(n) for n in was] == [ast.dump(n) for n in now]:
            continue
        inner = _inside_class(was, now, f"{prefix}{name}.")
        out |= inner or {prefix + name}
    return out


def _inside_class(was: list[ast.stmt], now: list[ast.stmt], prefix: str) -> set[str]:
    """The changed members of one class in both versions whose own header and other statements are
    the same; empty when that is not so (the class itself is named)."""
    if len(was) != 1 or len(now) != 1 or not isinstance(was[0], ast.ClassDef) or not isinstance(now[0], ast.ClassDef):
        return set()
    a, b = was[0], now[0]

    def head(c: ast.ClassDef) -> list[str]:
        parts: list[ast.AST] = [*c.bases, *c.keywords, *c.decorator_list, *getattr(c, "type_params", [])]
        return [c.name, *(ast.dump(p) for p in parts)]

    def plain(body: list[ast.stmt]) -> list[str]:
        return [ast.dump(n) for n in body if not isinstance(n, Named)]

    if head(a) != head(b) or plain(a.body) != plain(b.body):
        return set()
    return _differ(a.body, b.body, prefix)
