"""The scope a rewrite names, found in a libcst module: `<module>`, `func`, `Class.method`; of
several definitions of one name, the implementation of an `@overload`-ed function or the property
accessor a last part names (`prop.setter`), else a refusal that says how to name one; and the
scopes nested in one."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterator, Sequence

import libcst as cst

from radpatch.rewrite.matching import SCOPE_MISSING, SCOPE_NEAR, Ambiguous, NearMiss, NotFound, lines_of
from radpatch.rewrite.tree import DEFS, Path_, block_body, block_holders, statement_slots, walk

ACCESSORS = ("getter", "setter", "deleter")  # `scope: Class.prop.setter` names one accessor of a property


def _decorator_names(node: cst.CSTNode) -> list[str]:
    """The decorators of a def as dotted names (`overload`, `typing.overload`, `prop.setter`)."""
    out = []
    for d in getattr(node, "decorators", ()):
        expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        parts = []
        while isinstance(expr, cst.Attribute):
            parts.append(expr.attr.value)
            expr = expr.value
        if isinstance(expr, cst.Name):
            out.append(".".join([expr.value, *reversed(parts)]))
    return out


def is_overload(node: cst.CSTNode) -> bool:
    return any(n == "overload" or n.endswith(".overload") for n in _decorator_names(node))


def accessor(node: cst.CSTNode, name: str) -> str | None:
    """ "getter", "setter" or "deleter" when `node` is that accessor of a property `name`."""
    for n in _decorator_names(node):
        if n in ("property", "functools.cached_property", "cached_property") or n == f"{name}.getter":
            return "getter"
        if n in (f"{name}.setter", f"{name}.deleter"):
            return n.rsplit(".", 1)[1]
    return None


def choose(
    module: cst.Module, hits: list[cst.CSTNode], part: str, qualname: str, container: str, offset: int, rest: list[str]
) -> tuple[cst.CSTNode | None, bool]:
    """The one definition `part` names among several (`hits`): the implementation of an
    `@overload`-ed function (its overloads are declarations); a property's accessor named by the
    part after it (`prop.setter`; then True: that part is used). Else a refusal that says how."""
    live = [h for h in hits if not is_overload(h)]
    if len(live) == 1:
        return live[0], False
    kinds = [accessor(h, part) for h in live]
    lines = lines_of(module, live, offset)
    if live and all(kinds):
        listed = ", ".join(f"{k} at line {n}" for k, n in zip(kinds, lines))
        if rest and rest[0] in ACCESSORS:
            chosen = [h for h, k in zip(live, kinds) if k == rest[0]]
            if len(chosen) == 1:
                return chosen[0], True
        base = qualname[: qualname.index(part) + len(part)] if part in qualname else part
        raise Ambiguous(
            f"scope {qualname!r}: {base!r} is a property defined {len(live)} times ({listed})",
            f"name the accessor: `{base}.{kinds[0]}`"
            + "".join(f" or `{base}.{k}`" for k in dict.fromkeys(kinds[1:]) if k != kinds[0]),
        )
    if not live:
        return None, False
    raise Ambiguous(
        f"scope {qualname!r}: {container} defines {part!r} {len(live)} times "
        f"(ambiguous: lines {', '.join(str(n) for n in lines)})",
        "the later definition is the one that runs (one defined in if/else or try blocks runs as the condition "
        "decides): a scope names one definition, so replace the whole statement that defines them with "
        "`scope: <module>`, or patch the one definition in a module of its own",
    )


def find_scope(module: cst.Module, qualname: str, offset: int = 0) -> Path_:
    """Resolve '<module>', 'func' or 'Class.method' to the path of its node. Of several
    definitions of one name: the implementation of an `@overload`-ed function, or the property
    accessor a last part `getter`/`setter`/`deleter` names; a def in module-level if/try blocks
    when it is the only one."""
    path: Path_ = (module,)
    if qualname == "<module>":
        return path
    parts = qualname.split(".")
    k = 0
    while k < len(parts):
        part = parts[k]
        k += 1
        body = _body(path[-1])
        if isinstance(path[-1], (cst.FunctionDef, cst.Module)):  # a def may sit in an if/try/with/for block
            nested = _nested_defs(path, part)
            if isinstance(path[-1], cst.Module):
                top = [(*path, s) for s in body if isinstance(s, DEFS) and named(s) == part]
                nested = top or nested
            if len(nested) == 1:
                path = nested[0]
                continue
            paths = {p[-1]: p for p in nested}
            hits = [p[-1] for p in nested]
        else:
            hits = [s for s in body if isinstance(s, DEFS) and named(s) == part]
            block = path[-1].body if isinstance(path[-1], DEFS) else None
            paths = {h: (*path, block, h) if block is not None else (*path, h) for h in hits}
        container = "module" if len(path) == 1 else _name(path[-1])
        if not hits:
            names = [s.name.value for s in body if isinstance(s, DEFS)]
            close = difflib.get_close_matches(part, names, n=3)
            tip = f"; closest: {', '.join(close)}" if close else ""
            raise (NearMiss if close else NotFound)(
                f"scope {qualname!r}: {container} defines no function or class {part!r}{tip}",
                SCOPE_NEAR if close else SCOPE_MISSING,
                scope_gone=True,
            )
        chosen, used = choose(module, hits, part, qualname, container, offset, parts[k:])
        if chosen is None:
            raise NotFound(f"scope {qualname!r}: every definition of {part!r} in {container} is an `@overload`")
        k += used
        path = paths[chosen]
    return path


def named(node: cst.FunctionDef | cst.ClassDef) -> str:
    """The name a def or class binds, as Python reads it: NFKC-normalised (`class Ｃ` binds `C`, as the
    loader reads a `scope:`), not as the source spells it (att60 F03: such a scope was not found)."""
    return unicodedata.normalize("NFKC", node.name.value)


def _nested_defs(path: Path_, name: str) -> list[Path_]:
    """The defs and classes called `name` in the function at `path`, in any of its blocks (not
    inside the functions nested in it), as paths."""
    out = []
    for block, i in statement_slots(path):
        stmt = block_body(block[-1])[i]
        if isinstance(stmt, DEFS) and named(stmt) == name:
            out.append((*block, stmt))
    return out


def nested_scopes(path: Path_, qualname: str) -> Iterator[tuple[Path_, str]]:
    """Every function and class defined inside the scope at `path` (at any depth, nested ones too),
    with its qualified name, in source order: the scopes a statement or expression of `path` is not in."""
    for p in walk(path, lambda n: isinstance(n, DEFS), block_holders):
        node = p[-1]
        assert isinstance(node, DEFS)
        inner = node.name.value if qualname == "<module>" else f"{qualname}.{node.name.value}"
        yield p, inner
        yield from nested_scopes(p, inner)


def _name(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, DEFS) else "<module>"


def _body(node: cst.CSTNode) -> Sequence[cst.BaseStatement]:
    if isinstance(node, cst.Module):
        return node.body
    assert isinstance(node, DEFS)
    body = node.body
    return body.body if isinstance(body, cst.IndentedBlock) else ()
