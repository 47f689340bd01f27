"""For import_lookup: the dotted chains a line reads (`xml.dom.minidom.parseString`), the import that
binds what a read goes through, and a standard-library `import a.b.c` whose steps the target is asked of."""

from __future__ import annotations

import ast
from collections.abc import Callable

from .module_files import Lookup
from .problem import MISSING_MODULE, Problem

# [(standard-library module, name), ...] -> per pair: does the target's module bind `name` (or have
# that submodule)? None when it cannot tell.
Ask = Callable[[list[tuple[str, str]]], "list[bool | None]"]


def read_chains(tree: ast.Module) -> dict[int, list[list[str]]]:
    """Per line: the dotted chains read there (`xml.dom.minidom.parseString`: [xml, dom, minidom,
    parseString]), each Attribute's own, so every prefix of two or more parts is there too."""
    out: dict[int, list[list[str]]] = {}
    for n in ast.walk(tree):
        if not isinstance(n, ast.Attribute):
            continue
        parts: list[str] = []
        x: ast.expr = n
        while isinstance(x, ast.Attribute):
            parts.append(x.attr)
            x = x.value
        if isinstance(x, ast.Name):
            out.setdefault(n.lineno, []).append([x.id, *reversed(parts)])
    return out


def import_fix(chains: list[list[str]], base: str, name: str, lookup: Lookup) -> str:
    """The import that binds what a read of base.name goes through, of its line's `chains`: the
    longest module of a chain on the target's path (`xml.dom.minidom.parseString` -> xml.dom.minidom),
    at least base.name."""
    best = f"{base}.{name}"
    for chain in chains:
        if len(chain) < 3 or chain[1] != name:
            continue
        full = [base, *chain[1:]]
        for i in range(len(full), 2, -1):
            if len(".".join(full[:i])) > len(best) and lookup(".".join(full[:i]), None):
                best = ".".join(full[:i])
                break
    return best


def missing_submodules(chains: list[tuple[str, int, str]], ask: Ask) -> list[Problem]:
    """`import a.b.c` of the standard library, each step asked of the target (does `a` have `b`,
    does `a.b` have `c`): the first it says no to is missing; one it cannot tell passes."""
    steps = sorted(
        {(".".join(p[: i - 1]), p[i - 1]) for d, _, _ in chains for p in [d.split(".")] for i in range(2, len(p) + 1)}
    )
    told = dict(zip(steps, ask(steps)))
    out = []
    for dotted, line, qual in chains:
        parts = dotted.split(".")
        for i in range(2, len(parts) + 1):
            answer = told.get((".".join(parts[: i - 1]), parts[i - 1]))
            if answer is None:
                break
            if answer is False:
                out.append(Problem(line, dotted, qual, MISSING_MODULE, f" (no {'.'.join(parts[:i])} there)"))
                break
    return out
