"""Names used where nothing defines them, via the compiler's own symbol tables (symtable).

A patch must not add to this set: references to names that no enclosing function, the module
or builtins define would be NameErrors at run time. Names that were already unresolved in the
original (e.g. globals assigned only through `global` statements) are compared away.
"""

from __future__ import annotations

import builtins
import re
import symtable

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__loader__",
                                       "__package__", "__builtins__", "__path__", "__cached__", "__annotations__"}


_STAR = re.compile(r"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+\*", re.MULTILINE)


def unresolved(source: str, filename: str = "<patched>") -> set[tuple[str, str]]:
    """(scope qualname, name) for every name read in a scope and defined nowhere it could be."""
    if _STAR.search(source):
        return set()  # a star import can define anything: nothing can be proven missing
    top = symtable.symtable(source, filename, "exec")
    defined = set(_BUILTINS)
    defined |= {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    defined |= _declared_global_assignments(top)
    out: set[tuple[str, str]] = set()
    _visit(top, "", defined, out)
    return out


def _declared_global_assignments(table: symtable.SymbolTable) -> set[str]:
    names = set()
    for child in table.get_children():
        for s in child.get_symbols():
            if s.is_declared_global() and s.is_assigned():
                names.add(s.get_name())
        names |= _declared_global_assignments(child)
    return names


def _visit(table: symtable.SymbolTable, prefix: str, module_names: set[str], out: set[tuple[str, str]]) -> None:
    qual = prefix or "<module>"
    for s in table.get_symbols():
        if not s.is_referenced():
            continue
        name = s.get_name()
        if table.get_type() == "module" or s.is_global():
            if name not in module_names and not (table.get_type() == "class" and s.is_local()):
                out.add((qual, name))
    for child in table.get_children():
        child_name = child.get_name()
        if table.get_type() != "module":
            child_name = f"{prefix}.{child_name}"
        _visit(child, child_name, module_names, out)


def introduced(original: str, patched: str, filename: str) -> list[tuple[str, str]]:
    return sorted(unresolved(patched, filename) - unresolved(original, filename))
