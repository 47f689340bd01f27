"""Where a value handed to a call escapes the walk (for rewrite.escapes, att57, att61 F6): a function the walk
follows or treats as unknown (a parameter, a loop variable, `HANDLERS[0]`: every function let out may get it, and
every callable from elsewhere the scope lets out: rewrite.foreign_callables), a pure builtin (known_callees;
`map` only of the module's own function or a pure builtin), a reader (`json.dumps`, `logger.info`),
`functools.partial` of the module's own function, a method of the value called another way (`method_form`), the
module's own class; anything else is `Escaped`, refused by name and line. Standard library only (`ast`)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Sequence
from functools import partial

from radpatch.rewrite.foreign_callables import foreign_let_out
from radpatch.rewrite.import_callees import Callees
from radpatch.rewrite.known_callees import logs as _logs
from radpatch.rewrite.known_callees import pure_builtin, reads_only, short_text
from radpatch.rewrite.module_routes import callee_name, looked_up, method_form, own_class, receiver
from radpatch.rewrite.self_calls import self_method, stored

_BUILTINS = frozenset(dir(builtins))


class Escaped(ast.expr):
    """A place where the value leaves what radpatch reads: later_changes refuses the edit there, with
    `reason` (what happens to the value) and `at` (the node)."""

    def __init__(self, at: ast.AST, reason: str, via: ast.AST | None = None) -> None:
        super().__init__()
        self.at, self.reason, self.via = at, reason, via
        self.lineno = getattr(at, "lineno", 0)
        self.col_offset = getattr(at, "col_offset", 0)

    def from_runner(self, shown: ast.AST, node: ast.AST) -> Escaped:
        """The place named where the escape is in a function the walk followed (`node` is not `shown`, the
        call or decorator of the scope's code that runs it, att62 F10): `shown`, the line that causes it,
        with this one (`via`) said after it."""
        return self if shown is node or not hasattr(shown, "lineno") else Escaped(shown, self.reason, self.at)


class CallArguments:
    """The value as an argument: the part of rewrite.escapes.Escapes that judges calls (its fields set there)."""

    parents: dict[int, ast.AST]
    imports: set[str]
    classes: set[str]
    defined: dict[str, ast.ClassDef]
    scope: Callees
    kind: str
    body: Sequence[ast.AST]
    foreign: ast.AST | bool | None

    def method_form(self, node: ast.AST) -> ast.Call | None:
        return method_form(node, self.imports | self.classes)

    def _argument(self, call: ast.Call, arg: ast.AST, shown: str) -> Escaped | None:
        """The value as an argument of `call`: a function the walk follows or treats as unknown (its
        rule: every function let out may get it), a pure builtin, `functools.partial`, a method
        of it called another way (`method_form`, judged as that method's call)."""
        callee = call.func
        form = self.method_form(call)
        if form is not None and receiver(form) is arg:
            return None
        if self._followed(call) or (pure_builtin(call) and self._builtin(call)):
            return None
        if isinstance(callee, ast.Name) and callee.id in ("setattr", "delattr") and call.args and call.args[0] is arg:
            return None  # judged as an attribute store (later_attributes)
        if short_text(callee) in ("functools.partial", "partial") and call.args and call.args[0] is not arg:
            if isinstance(call.args[0], ast.Name) and self._own_code(call.args[0].id):
                return None  # the module's function it gets runs as one let out (rewrite.later_runs)
        if reads_only(callee, self.scope.imported, self.kind) and not (_logs(callee) and self._handles_logs()):
            return None
        if short_text(callee) in ("contextlib.nullcontext", "nullcontext") and isinstance(
            self.parents.get(id(call)), ast.withitem
        ):
            return None  # `with nullcontext(CFG) as d`: d is an alias (rewrite.passed_values)
        if isinstance(callee, ast.Lambda):
            return None
        if looked_up(callee, self.imports) in self.scope.functions:
            return None  # the module's function by its name as a string: followed (rewrite.implicit_runs)
        if own_class(callee, self.defined) and not self._rebound(callee):
            return None  # its `__init__`/`__new__`, or the method, is followed with it (rewrite.implicit_runs)
        if self_method(callee, self.parents, self.defined, self.body):
            return None  # `self._apply(CFG)`: the class's method, followed with it (rewrite.implicit_runs)
        root = callee.value if isinstance(callee, ast.Subscript) else callee  # `HANDLERS[0](CFG)`
        if isinstance(root, ast.Name) and root.id not in self.imports | self.classes | _BUILTINS:
            return self._unknown(call, shown)  # a parameter, a loop variable, a name the walk cannot tell
        at = stored(self.body, {callee.attr, "__class__"}) if isinstance(callee, ast.Attribute) else None
        said = f" (line {at.lineno} may store an attribute so named)" if at is not None else ""  # type: ignore[attr-defined]
        return Escaped(call, f"{shown} is passed to {short_text(callee)}{said}")

    def _unknown(self, call: ast.Call, shown: str) -> Escaped | None:
        """The value handed to a callee the text cannot tell: it runs a function the scope lets out (the
        unknown-callee rule, rewrite.later_runs), or a callable from elsewhere it lets out (foreign_callables)."""
        if self.foreign is None:
            reader = partial(reads_only, names=self.scope.imported, kind=self.kind)
            wraps, own = self.scope.transparent, self._own_code
            self.foreign = foreign_let_out(self.body, self.parents, self.imports, own, reader, wraps) or False
        if not isinstance(self.foreign, ast.AST):
            return None
        said = f"{short_text(self.foreign)}, line {getattr(self.foreign, 'lineno', '?')}"
        return Escaped(call, f"{shown} is passed to {short_text(call.func)}, which may be {said}")

    def _own_code(self, name: str) -> bool:
        fns, unknown = self.scope.resolve(name)
        return name in self.classes or (bool(fns) and not unknown)

    def _called_only(self, fn: ast.AST | None) -> bool:
        """A def of the scope's own code never let out as a value: only a call by its name runs it."""
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.decorator_list:
            return False
        if isinstance(self.parents.get(id(fn)), ast.ClassDef):
            return False  # a method: Python may run it without a call naming it (rewrite.implicit_runs)
        return fn in self.scope.functions.get(fn.name, []) and all(f is not fn for f, _ in self.scope.escaped)

    def _followed(self, call: ast.Call) -> bool:
        if not isinstance(call.func, ast.Name):
            return False
        fns, unknown = self.scope.resolve(call.func.id)
        return bool(fns) and not unknown

    def _maps_own(self, call: ast.Call) -> bool:
        """`map(f, [CFG])` runs `f` on the value: the module's own function or a pure builtin (att61 F6)."""
        f = call.args[0] if call.args else None
        if callee_name(call) != "map" or f is None:
            return True
        run = ast.Call(f, [], [])
        if isinstance(f, ast.Lambda):
            return True  # followed as a function let out (rewrite.later_runs)
        return isinstance(f, ast.Name) and (self._own_code(f.id) or (pure_builtin(run) and self._builtin(run)))

    def _builtin(self, call: ast.Call) -> bool:
        if not isinstance(call.func, ast.Name) or self._rebound(ast.Attribute(ast.Name("builtins"), call.func.id)):
            return False  # `builtins.len = ...` (att62 F6)
        return call.func.id not in self.imports | self.classes | _own(self.scope)

    def _rebound(self, callee: ast.AST) -> bool:
        """`Owner.attr` stored by the scope's code (`_C.m = ...`, `builtins.len = ...`: rewrite.rebound_names)."""
        if not (isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name)):
            return False
        return bool({f"{callee.value.id}.{callee.attr}", f"{callee.value.id}.*"} & self.scope.rebound)

    def _handles_logs(self) -> bool:
        """The module installs a log handler, filter or record factory: a log call's record holds what it is
        given (`record.args`), and that code gets it (att62 F5); handlers from elsewhere are taken to read it."""
        calls = (n for n in ast.walk(ast.Module(list(self.body), [])) if isinstance(n, ast.Call))  # type: ignore[arg-type]
        return any(callee_name(c) in _LOG_HOOKS for c in calls)


def _own(scope: Callees) -> set[str]:
    return set(scope.functions) | scope.other | set(scope.aliases)


_LOG_HOOKS = frozenset({"addHandler", "addFilter", "setLogRecordFactory", "dictConfig", "fileConfig", "basicConfig"})
