"""The literal a name is bound to in a scope, bound there once (rewrite.name_bindings says what binds
it): the dict of set_item, the set/list/tuple display of add_element and remove_element; refused
when a later statement of the scope may undo the edit (rewrite.later_changes), as set_keyword's
change of the call a name is bound to is (`refuse_later_keyword`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

import libcst as cst

from radpatch.errors import RadpatchError
from radpatch.registry.code import expression_text
from radpatch.rewrite.call_arguments import Escaped
from radpatch.rewrite.implicit_runs import shown_text
from radpatch.rewrite.later_changes import later_attributes, later_changes
from radpatch.rewrite.matching import Ambiguous, LaterChange, MatchFailure, NotFound, Shown, code_of, lines_of
from radpatch.rewrite.module_stores import later_module_stores
from radpatch.rewrite.name_bindings import binding_sites
from radpatch.rewrite.ops.common.keyword_dropped import dropped, dropped_said
from radpatch.rewrite.scopes import find_scope
from radpatch.rewrite.tree import Path_, block_body, statement_slots


def binds(stmt: cst.CSTNode, name: str) -> bool:
    """The statement binds `name` in its scope (an assignment, not an annotation without a value; a
    def or class; an import): where bound_literal looks for the literal."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value == name
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        targets: list[cst.CSTNode] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AugAssign) or (isinstance(small, cst.AnnAssign) and small.value is not None):
            targets = [small.target]
        elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                bound = alias.asname.name if alias.asname is not None else alias.name
                if isinstance(bound, cst.Name) and bound.value == name:
                    return True
                if isinstance(bound, cst.Attribute) and code_of(cst.Module([]), bound).split(".")[0] == name:
                    return True
        for t in targets:
            if isinstance(t, cst.Name) and t.value == name:
                return True
            if isinstance(t, (cst.Tuple, cst.List)) and any(
                isinstance(e.value, cst.Name) and e.value.value == name for e in t.elements
            ):
                return True
    return False


def bound_literal(
    module: cst.Module,
    scope_name: str,
    name: str,
    offset: int,
    kinds: tuple[type[cst.BaseExpression], ...],
    shape: str,
    op: str,
    edit: tuple[str, str] | None = None,
    patched: Callable[[cst.BaseExpression], cst.BaseExpression] | None = None,
) -> Path_:
    """The path to the literal (one of `kinds`) `name` is bound to, bound once in the scope. `shape`
    says the literal as the messages name it (`{...}` (a dict literal)); `op` the operation. With
    `edit` (the key or element it edits, and change, add or remove), refused when a later statement
    of the scope changes the literal so that the edit may not be what the module keeps
    (rewrite.later_changes)."""
    scope = find_scope(module, scope_name, offset)
    where = "the module" if scope_name == "<module>" else scope_name
    hits = [(*b, block_body(b[-1])[i]) for b, i in statement_slots(scope) if binds(block_body(b[-1])[i], name)]
    body, sites, show = _scope_sites(module, scope[-1], name, offset)
    lines = [show(getattr(n, "lineno", 0)) for n in sites]
    if not lines:
        raise NotFound(f"{where} does not bind {name}")
    what = shape.rsplit("(", 1)[-1].rstrip(")")
    if len(lines) > 1:
        raise Ambiguous(
            f"{where} binds {name} {len(lines)} times (lines {', '.join(map(str, lines))}): which one holds the "
            "entry depends on how the code runs",
            f"{op} changes {what} bound once; change the one you mean with a `replace` rewrite",
        )

    def wrong() -> MatchFailure:  # made when raised: its line costs a position pass
        return MatchFailure(
            f"line {lines[0]} binds {name} but not as `{name} = {shape}",
            f"{op} changes an entry of {what}; change this code with a `replace` rewrite",
        )

    if len(hits) != 1:  # bound by a `for`, `with`, `except`, `match`, `:=`, `del`, a `global` elsewhere
        raise wrong()
    line = hits[0][-1]
    if not isinstance(line, cst.SimpleStatementLine):  # a def, a class
        raise wrong()
    small = [s for s in line.body if binds(cst.SimpleStatementLine([s]), name)][0]
    value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
    plain = isinstance(small, cst.AnnAssign) or (
        isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
    )
    if not plain or not isinstance(value, kinds):
        raise wrong()
    if edit is not None:
        free = not isinstance(scope[-1], cst.ClassDef)
        watch = not isinstance(scope[-1], cst.FunctionDef)  # esc53: a module's or class's value escaping
        _refuse_later(body, sites[0], name, value, edit, op, show, free, patched, watch)
    return (*hits[0], small, value)


def _named(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


_KINDS = {cst.Dict: "dict", cst.List: "list", cst.Set: "set", cst.Tuple: "tuple"}


def _refuse_later(
    body: list[ast.stmt],
    bound: ast.AST,
    name: str,
    value: cst.BaseExpression,
    edit: tuple[str, str],
    op: str,
    line: Callable[[int], int | Shown],
    free: bool = True,
    patched: Callable[[cst.BaseExpression], cst.BaseExpression] | None = None,
    watch: bool = True,
) -> None:
    part, mode = edit

    def values() -> tuple[list[Any], list[Any]] | None:  # the list before and after the edit (list_replay)
        try:
            new = patched(value) if patched is not None else None
            pair = [ast.literal_eval(cst.Module([]).code_for_node(x)) for x in (value, new) if x is not None]
        except (RadpatchError, ValueError, TypeError, IndexError, SyntaxError, MemoryError, RecursionError):
            return None
        return (pair[0], pair[1]) if len(pair) == 2 and all(isinstance(x, list) for x in pair) else None

    later = later_changes(body, name, bound, _KINDS[type(value)], part, mode, free, values, watch)
    _refuse(later, bound, name, part, op, line)


def refuse_later_keyword(
    module: cst.Module, scope_name: str, offset: int, path: Path_, keyword: str, mode: str = "change"
) -> None:
    """set_keyword changing `keyword=` of the call a name is bound to (`T = Thread(daemon=True)`,
    `CFG = dict(timeout=1)`), bound once in the scope: refused when a later statement changes what
    the keyword gave (`T.daemon = False`, `setattr(T, ...)`; a `dict(...)`'s key as set_item's).
    `path` ends at the keyword's value (a change) or at the call (`mode` add or remove: the keyword
    added to it or taken from it)."""
    at = next((k for k in range(len(path) - 1, -1, -1) if isinstance(path[k], cst.Assign)), None)
    call = path[-1] if mode != "change" else path[-3] if len(path) >= 3 else None
    if at is None or not isinstance(call, cst.Call):
        return
    assign = path[at]
    assert isinstance(assign, cst.Assign)
    target = assign.targets[0].target
    if len(assign.targets) != 1 or not isinstance(target, cst.Name) or assign.value is not call:
        return
    scope = find_scope(module, scope_name, offset)
    body, sites, show = _scope_sites(module, scope[-1], target.value, offset)
    if len(sites) != 1:
        return
    free = not isinstance(scope[-1], cst.ClassDef)  # a class body's names are not its functions'
    watch = not isinstance(scope[-1], cst.FunctionDef)  # esc53: a module's or class's value escaping
    named = call.func.value if isinstance(call.func, cst.Name) and mode != "remove" else ""
    drop = dropped(body if isinstance(scope[-1], cst.Module) else module.code, named, keyword) if named else None
    if drop is not None:  # att62 F9: the binding's own call may not keep what the keyword gives
        raise LaterChange(*dropped_said(drop, drop[0].lineno + offset, f"{target.value} = {call.func.value}", keyword))  # type: ignore[attr-defined]
    if isinstance(call.func, cst.Name) and call.func.value == "dict":
        later = later_changes(body, target.value, sites[0], "dict", repr(keyword), mode, free, None, watch)
    else:
        later = later_attributes(body, target.value, sites[0], keyword, free, "object" if watch else None)
    _refuse(later, sites[0], target.value, f"{keyword}=", "set_keyword", show)


def refuse_later_display(text: str, name: str, old: str, new: str, line: int, op: str = "set_constant") -> None:
    """set_constant changing a module-level dict, list or set display (`LIMITS = {"a": 1}` to `{"a":
    2}`): refused when a later statement changes, in place, a key or element the change is about (also
    the importer's check of the `op` it would choose, importing.literal_steps)."""
    if len(re.findall(rf"\b{re.escape(name)}\b", text)) < 2 and not re.search(r"\b(?:set|del)attr\b", text):
        return  # nothing reads the name again: no parse
    was, now = (ast.parse(expression_text(x), mode="eval").body for x in (old, new))
    parts = _changed_parts(was, now)
    if parts is None:
        return
    body = ast.parse(text).body
    # the innermost statement on the line (in a loop's body too, where the loop's pass matters)
    holding = [n for n in ast.walk(ast.Module(body, [])) if isinstance(n, ast.stmt) and n.lineno <= line]
    holding = [n for n in holding if line <= (n.end_lineno or 0)]
    binding = [n for n in holding if isinstance(n, ast.Assign) and any(_named(t, name) for t in n.targets)]
    bound = max(binding or holding, key=lambda n: (n.lineno, n.col_offset))
    kind = "dict" if isinstance(now, ast.Dict) else "list" if isinstance(now, ast.List) else "set"
    replay = op in ("add_element", "remove_element")  # the list's later changes replayed, as set_element's proof does

    def values() -> tuple[list[Any], list[Any]] | None:
        try:
            pair = (ast.literal_eval(was), ast.literal_eval(now))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        return pair if all(isinstance(x, list) for x in pair) else None

    for part, mode in parts:
        later = later_changes(body, name, bound, kind, part, mode, values=values if replay else None)
        _refuse(later, bound, name, part, op, lambda at: at)


def refuse_later_module_stores(text: str, name: str, line: int) -> None:
    """set_constant changing `name` bound at `line`: refused when a function the module runs at
    import after it may bind the name through the module object (rewrite.module_stores)."""
    if not re.search(
        r"\b(?:setattr|delattr|globals|vars|locals|modules|exec|__dict__|import_module|__import__|f_globals|f_locals"
        r"|__globals__|getmodule|__class__)\b",
        text,
    ):
        return  # no way to the module object: no parse
    body = ast.parse(text).body
    bound = next((n for n in body if n.lineno <= line <= (n.end_lineno or 0)), None)
    found = later_module_stores(body, name, bound) if bound is not None else []
    if found:
        (node, handed), hint = found[0], "set_constant proves no later code rebinds the name"
        at, said = getattr(node, "lineno", 0), shown_text(node)
        how = f": {handed}, and code radpatch does not read may rebind `{name}`" if handed else ""
        raise LaterChange(
            f"line {at} (`{said}`) may rebind `{name}` through the module object after line {line} binds it{how}: "
            f"the set_constant of `{name}` may not be what the module keeps",
            f"{hint}; change line {at} with a `replace` rewrite instead",
        )


def _changed_parts(was: ast.expr, now: ast.expr) -> list[tuple[str, str]] | None:
    """The keys (a dict's) or elements (a list's, a set's) the change adds, takes away or gives
    another value, as (text, mode); None when the two values are not displays of one kind."""
    if isinstance(was, ast.Dict) and isinstance(now, ast.Dict):
        if None in was.keys or None in now.keys:
            return None
        before = {ast.dump(k): (k, ast.dump(v)) for k, v in zip(was.keys, was.values) if k is not None}
        after = {ast.dump(k): (k, ast.dump(v)) for k, v in zip(now.keys, now.values) if k is not None}
        out = [(ast.unparse(after[k][0]), "add" if k not in before else "change") for k in after]
        out = [p for p, k in zip(out, after) if k not in before or before[k][1] != after[k][1]]
        return out + [(ast.unparse(before[k][0]), "remove") for k in before if k not in after]
    if type(was) is type(now) and isinstance(now, (ast.List, ast.Set)):
        assert isinstance(was, (ast.List, ast.Set))
        before_e, after_e = [ast.dump(e) for e in was.elts], [ast.dump(e) for e in now.elts]
        added = [(ast.unparse(e), "add") for e, d in zip(now.elts, after_e) if d not in before_e]
        out = added + [(ast.unparse(e), "remove") for e, d in zip(was.elts, before_e) if d not in after_e]
        moved = isinstance(now, ast.List) and sorted(before_e) == sorted(after_e) and before_e != after_e
        return out + ([(ast.unparse(now), "order")] if moved else [])
    return None


def _refuse(
    later: list[ast.AST], bound: ast.AST, name: str, part: str, op: str, line: Callable[[int], int | Shown]
) -> None:
    if later and isinstance(later[0], Escaped):
        at, via = line(later[0].lineno), getattr(later[0].via, "lineno", None)  # in the code `at` runs (att62 F10)
        why = f": {later[0].reason}" if via is None else f" runs code where, at line {line(via)}, {later[0].reason}"
        raise LaterChange(
            f"line {at}{why} after line {line(getattr(bound, 'lineno', 0))} binds it: radpatch "
            f"cannot follow what changes it from there; the {op} of {part} may not be what the module keeps",
            f"{op} proves an edit no later code undoes; to make it unproven, rewrite the binding at line "
            f"{line(getattr(bound, 'lineno', 0))} with a `replace` rewrite after reading line {at}",
        )
    if later:
        node = later[0]
        text = shown_text(node)
        at = line(getattr(node, "lineno", 0))
        raise LaterChange(
            f"line {at} (`{text}`) changes {name} after line {line(getattr(bound, 'lineno', 0))} binds it: "
            f"the {op} of {part} may not be what the module keeps",
            f"{op} proves an edit no later statement of its scope undoes; change line {at} with a `replace` "
            "rewrite instead",
        )


def _scope_sites(
    module: cst.Module, scope: cst.CSTNode, name: str, offset: int
) -> tuple[list[ast.stmt], list[ast.AST], Callable[[int], int | Shown]]:
    """The scope's body (`ast`), the nodes that bind `name` in it, as rewrite.name_bindings counts
    bindings, and the file's line of a line of that body (in a definition, worked out only when a
    refusal shows it: its line costs a position pass)."""
    if isinstance(scope, cst.Module):
        body = ast.parse(scope.code).body
        return body, binding_sites(body, name, "module"), lambda at: at + offset
    assert isinstance(scope, (cst.FunctionDef, cst.ClassDef))
    node = ast.parse(cst.Module([scope.with_changes(leading_lines=())]).code).body[0]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    kind = "class" if isinstance(node, ast.ClassDef) else "function"

    def line(at: int) -> int | Shown:
        return Shown(lambda: str(lines_of(module, [scope], offset)[0] - node.lineno + at))

    return node.body, binding_sites(node.body, name, kind), line
