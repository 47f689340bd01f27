"""The calls set_keyword looks among: those in a scope to one callee (AST-compared), the values of
their `keyword=` arguments, and why none passes `keyword=from` when nothing matched."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Protocol

import libcst as cst

from radpatch.rewrite.matching import code_of, lines_of
from radpatch.rewrite.ops.common.call_keywords import spread
from radpatch.rewrite.ops.common.no_match import Explanation
from radpatch.rewrite.patterns import expr_key
from radpatch.rewrite.tree import Path_, nodes_of, per_tree, serve


class CallOp(Protocol):
    @property
    def call(self) -> str: ...

    @property
    def keyword(self) -> str: ...

    @property
    def from_(self) -> str | None: ...


def calls(module: cst.Module, scope: Path_, callee: str, header: str | None = None) -> list[Path_]:
    """The calls in the scope whose callee is AST-equal to `callee`, in source order; with `header`
    (set_keyword's `header:`), those in the scope's own decorators or its parameters' defaults."""
    key = expr_key(callee)
    return [p for p, k in _index(module, scope, header) if k == key]


# (module, scope, header) -> every call there, in source order, with its callee's expr_key (None where
# ast cannot parse it): set_keyword's edit, its match probes, its inverse and the reverse proof look
# for calls in the same scopes of the same trees (tree.py keeps them by text), each walking the scope
# and generating every callee's code again (the fast tier's costliest in-process step, issue 22).
# Emptied with tree.py's cache of children, which serves the same trees.
_INDEX: dict[tuple[cst.Module, Path_, str | None], tuple[tuple[Path_, str | None], ...]] = {}
per_tree(_INDEX)


def _index(module: cst.Module, scope: Path_, header: str | None) -> tuple[tuple[Path_, str | None], ...]:
    serve(scope[0])
    found = _INDEX.get((module, scope, header))
    if found is None:
        out: list[tuple[Path_, str | None]] = []
        for p in nodes_of(scope, cst.Call) if header is None else header_calls(scope, header):
            call = p[-1]
            assert isinstance(call, cst.Call)
            try:
                out.append((p, expr_key(code_of(module, call.func))))
            except SyntaxError:
                out.append((p, None))
        found = _INDEX[module, scope, header] = tuple(out)
    return found


def header_exprs(path: Path_) -> Iterator[tuple[Path_, str, str | None]]:
    """(path to the expression, "decorator" or "default", the parameter) of a definition's header, in
    source order: what runs where the definition is made, not in its body."""
    node = path[-1]
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        for dec in node.decorators:
            yield (*path, dec, dec.decorator), "decorator", None
    if isinstance(node, cst.FunctionDef):
        p = node.params
        for param in (*p.posonly_params, *p.params, *p.kwonly_params):
            if param.default is not None:
                yield (*path, p, param, param.default), "default", param.name.value


def header_calls(scope: Path_, header: str) -> Iterator[Path_]:
    """Every call in the definition's decorators (`header` "decorators") or its parameters' defaults
    ("defaults"), in source order."""
    kind = "decorator" if header == "decorators" else "default"
    for expr, of, _ in header_exprs(scope):
        if of != kind:
            continue
        if isinstance(expr[-1], cst.Call):
            yield expr
        yield from nodes_of(expr, cst.Call)


def values(module: cst.Module, found: list[Path_], keyword: str) -> list[Path_]:
    """The path to the value of each call's `keyword=` argument (a call passes a keyword once at most)."""
    out = []
    for p in found:
        call = p[-1]
        assert isinstance(call, cst.Call)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == keyword:
                out.append((*p, arg, arg.value))
    return out


def equal(module: cst.Module, paths: list[Path_], value: str) -> list[Path_]:
    """The paths whose node is AST-equal to `value`."""
    key = expr_key(value)
    return [p for p in paths if expr_key(code_of(module, p[-1])) == key]


def why_not(module: cst.Module, scope: Path_, op: CallOp, offset: int) -> Explanation:
    """Why no call passes `keyword=from`: no such call, no such keyword, or another value."""
    found = calls(module, scope, op.call, getattr(op, "header", None))
    if not found:
        callees: dict[str, cst.CSTNode] = {}  # callee as written -> its first call
        for p in nodes_of(scope, cst.Call):
            callees.setdefault(code_of(module, p[-1].func).strip(), p[-1])  # type: ignore[attr-defined]
        want = op.call.strip()
        same_name = [c for c in callees if c.rsplit(".", 1)[-1] == want.rsplit(".", 1)[-1]]  # Thread, threading.Thread
        close = list(dict.fromkeys([*same_name, *difflib.get_close_matches(want, list(callees), n=3, cutoff=0.6)]))[:3]
        shown = ", ".join(f"`{c}` (line {lines_of(module, [callees[c]], offset)[0]})" for c in close)
        return (
            f"it has no call to `{op.call}`" + (f"; calls with a similar callee: {shown}" if close else ""),
            bool(close),
            "fix `call:`: the callee as the code writes it (`threading.Thread` and `Thread` differ), "
            "in the function or class `scope:` names",
        )
    lines = ", ".join(map(str, lines_of(module, [p[-1] for p in found], offset)))
    passed = values(module, found, op.keyword)
    if not passed and (through := _spreads(module, found, op.keyword, offset)):
        return through
    if not passed:
        return (
            f"the call(s) to `{op.call}` (line {lines}) pass no keyword argument `{op.keyword}`",
            False,
            "set_keyword with `from:` changes a keyword argument a call passes; to add one, leave `from:` out",
        )
    have = "; ".join(
        f"line {line}: `{op.keyword}={code_of(module, p[-1]).strip()}`"
        for line, p in zip(lines_of(module, [p[-1] for p in passed], offset), passed)
    )
    return (
        f"the call(s) to `{op.call}` pass {have}",
        True,
        "fix `from:` to the value the code passes now (AST-compared); if it passes `to` already, this version "
        "may carry the change: check it, and declare it `obsolete:` if so",
    )


def _spreads(module: cst.Module, found: list[Path_], keyword: str, offset: int) -> Explanation | None:
    """Why no call passes `keyword=` when one passes it inside a `**` dict display or `dict(...)`
    (`g(**{"x": 1})`): set_keyword changes or takes only a `keyword=` argument; the call is replaced."""
    through = [(p[-1], a) for p in found for a in _holders(p[-1], keyword)]
    if not through:
        return None
    lines = lines_of(module, [a for _, a in through], offset)
    said = "; ".join(f"line {line}: inside `{_short(module, a)}`" for line, (_, a) in zip(lines, through))
    call = through[0][0]
    assert isinstance(call, cst.Call)
    text = code_of(module, call).strip()
    find = f"`find: {text}`" if "\n" not in text else "`find:` the call as it reads"
    return (
        f"the call(s) to `{code_of(module, call.func).strip()}` pass `{keyword}` only through `**` ({said}), "
        f"not as a `{keyword}=` argument, the one set_keyword changes or takes away",
        True,
        f"`replace` the call instead: {find}, `with:` the call as it should read",
    )


def _holders(call: cst.CSTNode, keyword: str) -> list[cst.Arg]:
    """The `**` arguments of `call` that pass `keyword` (a dict display or `dict(...)`)."""
    assert isinstance(call, cst.Call)
    return [a for a in call.args if a.star == "**" and spread(call.with_changes(args=[a]), keyword) is not None]


def _short(module: cst.Module, arg: cst.Arg) -> str:
    text = "**" + code_of(module, arg.value).strip()
    if "\n" in text or len(text) > 60:
        return "**dict(...)" if isinstance(arg.value, cst.Call) else "**{...}"
    return text
