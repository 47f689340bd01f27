"""Whether a release's scope newly hands the method's object to code its module does not hold (a call
neither the base's scope nor the change's result makes, followed through the module's own helpers
and methods, or a base class of the method's class): then a binding the change removes may still be
made there, and radpatch.releases.bindings cannot tell."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Mapping

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _body(node: ast.AST) -> list[ast.stmt]:
    body = getattr(node, "body", [])
    return body if isinstance(body, list) else []


def _reaches_out(
    scope: str,
    removed: list[ast.stmt],
    before: dict[str, ast.AST],
    result: ast.AST,
    release: dict[str, ast.AST],
    tree: ast.Module,
) -> bool:
    """A removed statement uses the method's object, and the release's scope newly hands that object
    to code the module does not hold: a call neither the base's scope nor the change's result makes
    (directly, or through helpers and methods of the module it calls, followed), or a base class of
    the method's class."""
    node, old = release[scope], before[scope]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.args.args:
        return False
    me = node.args.args[0].arg
    if not any(isinstance(n, ast.Name) and n.id == me for s in removed for n in ast.walk(s)):
        return False
    top = {s.name: s for s in tree.body if isinstance(s, _DEFS)}
    parent = release.get(scope.rpartition(".")[0]) if "." in scope else None
    methods = {s.name: s for s in _body(parent) if isinstance(s, _DEFS)} if isinstance(parent, ast.ClassDef) else {}
    # the calls the scope made, or the change's result makes (a replaced call with other arguments)
    had = Counter(ast.dump(c) for c in _own_calls(old)) | Counter(ast.dump(c) for c in _own_calls(result))
    todo: list[tuple[ast.Call, str]] = []
    for call in _own_calls(node):
        d = ast.dump(call)
        if had[d] > 0:
            had[d] -= 1
        else:
            todo.append((call, me))
    seen: set[int] = set()
    while todo:
        call, obj = todo.pop()
        if _outside(call, obj, set(top), set(methods)):
            return True
        target = _local(call, obj, top, methods)
        if target is not None and id(target[0]) not in seen:
            seen.add(id(target[0]))
            todo.extend((c, target[1]) for c in _own_calls(target[0]))
    was = before.get(scope.rpartition(".")[0]) if "." in scope else None
    if isinstance(parent, ast.ClassDef):
        old_bases = {ast.dump(e) for e in was.bases} if isinstance(was, ast.ClassDef) else set()
        for e in parent.bases:
            if ast.dump(e) not in old_bases and not (isinstance(e, ast.Name) and e.id in top):
                return True
    return False


def _local(
    call: ast.Call, obj: str, top: Mapping[str, _Def], methods: Mapping[str, _Def]
) -> tuple[ast.AST, str] | None:
    """The module's function or method the call hands `obj` to, and its parameter holding it."""
    f = call.func
    fn: _Def | None = None
    param: str | None = None
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == obj:
        fn = methods.get(f.attr)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args:
            param = fn.args.args[0].arg
    elif isinstance(f, ast.Name) and isinstance(fn := top.get(f.id), (ast.FunctionDef, ast.AsyncFunctionDef)):
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        at = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == obj), None)
        if at is not None and at < len(params):
            param = params[at]
        else:
            param = next((k.arg for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id == obj), None)
    return None if fn is None or param is None else (fn, param)


def _own_calls(node: ast.AST) -> list[ast.Call]:
    """The calls a definition's own code makes (nested definitions left out)."""
    out: list[ast.Call] = []
    todo: list[ast.AST] = list(_body(node))
    while todo:
        n = todo.pop()
        if isinstance(n, _DEFS) or isinstance(n, ast.Lambda):
            continue
        if isinstance(n, ast.Call):
            out.append(n)
        todo.extend(ast.iter_child_nodes(n))
    return out


def _outside(call: ast.Call, me: str, top: set[str], methods: set[str]) -> bool:
    """The call may run code of another module on the object `me`."""
    f = call.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == me:
        return f.attr not in methods
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name):
        if f.value.func.id == "super":
            return True
    handed = any(isinstance(a, ast.Name) and a.id == me for a in [*call.args, *(k.value for k in call.keywords)])
    return handed and not (isinstance(f, ast.Name) and f.id in top)
