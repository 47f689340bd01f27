"""What runs when a module-level statement runs, beyond its own code, for the rebinding proof: the
module's functions it calls by name, followed transitively (`_boot()` calls `_setup()`, which calls
`_store()`), and the methods Python runs when a class of the module is created or called: its
metaclass's `__prepare__`, `__new__` and `__init__` (given, or inherited from a base), each base's
`__init_subclass__` (every module-level ancestor: `super()` chains them), and, for a call of a
class, its `__new__` and `__init__` and its metaclass's `__call__`. Only classes and functions the
module defines at module level are followed (an imported base or metaclass is another module's
code). Cycle-safe (each function once); bounded: a chain deeper than MAX_DEPTH is not followed and
is said to be (`unbounded`), so the proof refuses rather than accepting what it did not read.
Standard library only."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # served to a target as old as 3.9 too, where `X | Y` of types does not run
    Function = ast.FunctionDef | ast.AsyncFunctionDef

MAX_DEPTH = 16
_CREATE = ("__prepare__", "__new__", "__init__")  # a metaclass's, when a class is created
_CALL = ("__new__", "__init__")  # a class's own, when it is called


@dataclass(frozen=True)
class Reached:
    functions: tuple[Function, ...]  # every function and method that may run, each once
    unbounded: bool  # a call chain went deeper than MAX_DEPTH: what runs below it was not read


class ModuleCode:
    """The module's functions and classes by name (the last module-level definition of each)."""

    def __init__(self, statements: Iterable[ast.stmt]) -> None:
        self.functions: dict[str, Function] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        for s in statements:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[s.name] = s
                self.classes.pop(s.name, None)
            elif isinstance(s, ast.ClassDef):
                self.classes[s.name] = s
                self.functions.pop(s.name, None)

    def reach(self, node: ast.AST) -> Reached:
        """What running `node` (a statement's own code, or a class statement) may run of the module's code."""
        first = self._runs(node, own=True)
        seen: dict[int, Function] = {}
        unbounded = False
        level = first
        for _ in range(MAX_DEPTH):
            nxt: list[Function] = []
            for f in level:
                if id(f) not in seen:
                    seen[id(f)] = f
                    nxt.extend(self._runs(f, own=False))
            level = [f for f in nxt if id(f) not in seen]
            if not level:
                break
        else:
            unbounded = True
        return Reached(tuple(seen.values()), unbounded)

    def _runs(self, node: ast.AST, own: bool) -> list[Function]:
        """The functions and methods `node` runs directly: the names it calls, the classes it
        creates. `own`: `node` is a module-level statement (its def and lambda bodies do not run
        now, but a class body does); else a function, all of whose code may run."""
        out: list[Function] = []
        stack: list[ast.AST] = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                if n.func.id in self.functions:
                    out.append(self.functions[n.func.id])
                elif n.func.id in self.classes:
                    out.extend(self._class_call(self.classes[n.func.id]))
            if isinstance(n, ast.ClassDef):
                out.extend(self._class_creation(n))
            if own and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if n is node and not isinstance(n, ast.Lambda):  # a def statement runs its decorators and defaults
                    stack.extend([*n.decorator_list, n.args])
                continue
            stack.extend(ast.iter_child_nodes(n))
        return out

    def _ancestors(self, c: ast.ClassDef) -> list[ast.ClassDef]:
        """`c`'s bases the module defines, and theirs, each once."""
        out: list[ast.ClassDef] = []
        todo = [b.id for b in c.bases if isinstance(b, ast.Name)]
        while todo:
            base = self.classes.get(todo.pop())
            if base is not None and base is not c and base not in out:
                out.append(base)
                todo.extend(b.id for b in base.bases if isinstance(b, ast.Name))
        return out

    def _metaclass(self, c: ast.ClassDef) -> ast.ClassDef | None:
        for k in c.keywords:
            if k.arg == "metaclass":
                return self.classes.get(k.value.id) if isinstance(k.value, ast.Name) else None
        for base in self._ancestors(c):
            for k in base.keywords:
                if k.arg == "metaclass" and isinstance(k.value, ast.Name):
                    return self.classes.get(k.value.id)
        return None

    def _methods(self, classes: list[ast.ClassDef], names: tuple[str, ...]) -> list[Function]:
        return [
            s
            for c in classes
            for s in c.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in names
        ]

    def _class_creation(self, c: ast.ClassDef) -> list[Function]:
        meta = self._metaclass(c)
        out = self._methods(self._ancestors(c), ("__init_subclass__",))
        if meta is not None:
            out += self._methods([meta, *self._ancestors(meta)], _CREATE)
        return out

    def _class_call(self, c: ast.ClassDef) -> list[Function]:
        meta = self._metaclass(c)
        out = self._methods([c, *self._ancestors(c)], _CALL)
        if meta is not None:
            out += self._methods([meta, *self._ancestors(meta)], ("__call__",))
        return out
