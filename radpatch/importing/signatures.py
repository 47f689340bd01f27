"""A definition's signature and decorators as the importer's rewrite chooser says them
(importing.rewrites): `set_default` and `add_parameter` when that is all that changed in the
signature, `add_decorator`, `remove_decorator` and `replace_decorator` for one run of decorators
(`set_keyword` with `header:` where a default's or a decorator's change is keywords of its call,
importing.header_keywords);
None when no operation says it (the whole definition is replaced then)."""

from __future__ import annotations

import ast
import copy
import difflib
import re

from radpatch.importing.header_keywords import header_keyword_steps
from radpatch.importing.import_steps import ImportStep, Value
from radpatch.importing.shapes import (
    mark_after,
)
from radpatch.importing.statements import (
    Sources,
    key,
    segment,
)


def signature(d: ast.stmt) -> str:
    c = copy.copy(d)
    c.body = []  # type: ignore[attr-defined]
    c.decorator_list = []  # type: ignore[attr-defined]
    return key(c)


def copy_signature(b: ast.stmt, a: ast.stmt) -> None:
    for f in b._fields:
        if f not in ("body", "decorator_list"):
            value = getattr(a, f)
            setattr(b, f, mark_after(value) if isinstance(value, ast.AST) else value)


def signature_steps(src: Sources, qual: str, b: ast.stmt, a: ast.stmt) -> list[ImportStep] | None:
    """set_default / add_parameter when that is all that changed, else None."""
    if isinstance(b, ast.ClassDef) or isinstance(a, ast.ClassDef) or type(b) is not type(a):
        return None
    assert isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(
        a, (ast.FunctionDef, ast.AsyncFunctionDef)
    )
    others = [f for f in b._fields if f not in ("body", "decorator_list", "args")]
    if any(
        key(getattr(b, f)) != key(getattr(a, f))
        if isinstance(getattr(b, f), ast.AST)
        else getattr(b, f) != getattr(a, f)
        for f in others
    ):
        return None
    ab, aa = b.args, a.args
    steps: list[ImportStep] = []
    if (
        [key(x) for x in ab.args] + [key(x) for x in ab.posonlyargs]
        == [key(x) for x in aa.args] + [key(x) for x in aa.posonlyargs]
        and [key(x) for x in ab.kwonlyargs] == [key(x) for x in aa.kwonlyargs]
        and key_or_none(ab.vararg) == key_or_none(aa.vararg)
        and key_or_none(ab.kwarg) == key_or_none(aa.kwarg)
        and len(ab.defaults) == len(aa.defaults)
        and [d is None for d in ab.kw_defaults] == [d is None for d in aa.kw_defaults]
    ):
        positional = [*ab.posonlyargs, *ab.args]
        named = [
            (p.arg, d, e) for p, d, e in zip(positional[len(positional) - len(ab.defaults) :], ab.defaults, aa.defaults)
        ]
        named += [
            (p.arg, d, e)
            for p, d, e in zip(ab.kwonlyargs, ab.kw_defaults, aa.kw_defaults)
            if d is not None and e is not None
        ]
        defaults_b = [*ab.defaults, *[d for d in ab.kw_defaults if d is not None]]
        defaults_a = [*aa.defaults, *[d for d in aa.kw_defaults if d is not None]]
        for name, d, e in named:
            if key(d) != key(e):
                said = header_keyword_steps(src, qual, "defaults", defaults_b, defaults_a, d, e)
                if said is not None:  # keywords of the default's call: a set_keyword each
                    steps.extend(said)
                    continue
                old, new = segment(src, d), segment(src, e)
                if old is None or new is None:
                    return None
                steps.append(
                    ImportStep("set_default", (("function", qual), ("parameter", name), ("from", old), ("to", new)))
                )
        return steps or None
    added = aa.args[len(ab.args) :]
    if (
        added
        and [key(x) for x in aa.args[: len(ab.args)]] == [key(x) for x in ab.args]
        and [key(x) for x in aa.posonlyargs] == [key(x) for x in ab.posonlyargs]
        and [key(x) for x in aa.kwonlyargs] == [key(x) for x in ab.kwonlyargs]
        and key_or_none(ab.vararg) == key_or_none(aa.vararg)
        and key_or_none(ab.kwarg) == key_or_none(aa.kwarg)
        and [key(x) for x in aa.defaults[: len(ab.defaults)]] == [key(x) for x in ab.defaults]
        and len(aa.defaults) == len(ab.defaults) + len(added)
        and [key_or_none(x) for x in aa.kw_defaults] == [key_or_none(x) for x in ab.kw_defaults]
    ):  # parameters with defaults appended, one add_parameter each, in their order
        if ab.vararg or ab.kwarg or (ab.posonlyargs and not ab.args and ab.kwonlyargs):
            return None  # add_parameter refuses these (a call could bind differently): the definition is replaced
        out: list[ImportStep] = []
        for param, value in zip(added, aa.defaults[len(ab.defaults) :]):
            default = segment(src, value)
            annotation = None if param.annotation is None else segment(src, param.annotation)
            if default is None or (param.annotation is not None and annotation is None):
                return None
            keys: tuple[tuple[str, Value], ...] = (("function", qual), ("name", param.arg), ("default", default))
            if annotation is not None:  # `scheme: str = "tcp"`
                keys += (("annotation", annotation),)
            out.append(ImportStep("add_parameter", keys))
        return out
    return None


def key_or_none(node: ast.AST | None) -> str | None:
    return None if node is None else key(node)


def decorator_steps(src: Sources, qual: str, old: list[ast.expr], new: list[ast.expr]) -> list[ImportStep] | None:
    ops = [
        op
        for op in difflib.SequenceMatcher(
            None, [key(d) for d in old], [key(d) for d in new], autojunk=False
        ).get_opcodes()
        if op[0] != "equal"
    ]
    if len(ops) != 1:
        return None
    tag, i1, i2, j1, j2 = ops[0]
    texts_old = [segment(src, d) for d in old[i1:i2]]
    texts_new = [segment(src, d) for d in new[j1:j2]]
    if None in texts_old or None in texts_new:
        return None
    if tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1 and [key(d) for d in old].count(key(old[i1])) == 1:
        said = header_keyword_steps(src, qual, "decorators", old, new, old[i1], new[j1])
        if said is not None:  # keywords of the decorator's call: a set_keyword each
            return said
        return [ImportStep("replace_decorator", (("function", qual), ("find", texts_old[0]), ("with", texts_new[0])))]  # type: ignore[arg-type]
    if tag == "insert" and i1 == 0:
        return [ImportStep("add_decorator", (("function", qual), ("decorator", t))) for t in reversed(texts_new)]  # type: ignore[arg-type]
    if tag == "insert" and i1 == len(old):
        return [
            ImportStep("add_decorator", (("function", qual), ("decorator", t), ("position", "bottom")))  # type: ignore[arg-type]
            for t in texts_new
        ]
    if tag == "delete" and i1 == 0:
        return [ImportStep("remove_decorator", (("function", qual), ("decorator", t))) for t in texts_old]  # type: ignore[arg-type]
    if tag == "delete" and i2 == len(old):
        return [
            ImportStep("remove_decorator", (("function", qual), ("decorator", t), ("position", "bottom")))  # type: ignore[arg-type]
            for t in reversed(texts_old)
        ]
    return None


_CLASS_LINE = re.compile(r"\s*class\s+(.*):\s*(?:#.*)?$")
_CLASS_LINES = re.compile(r"\s*class\s+(.*\))\s*:\s*(?:#.*)?$", re.DOTALL)


def bases_step(src: Sources, qual: str, b: ast.ClassDef, a: ast.ClassDef) -> ImportStep | None:
    """set_bases when all that differs between two class headers is their bases and keywords
    (`class A(B):` -> `class A(B, C):`, `metaclass=` added), each header on one line or over
    several (`class A(\n    B,\n):`, its text as the file writes it)."""
    others = [f for f in b._fields if f not in ("body", "decorator_list", "bases", "keywords")]
    if any(key_or_value(getattr(b, f)) != key_or_value(getattr(a, f)) for f in others):
        return None
    old, new = _header_call(src, b), _header_call(src, a)
    if old is None or new is None:
        return None
    return ImportStep("set_bases", (("scope", qual), ("from", old), ("to", new)))


def key_or_value(v: object) -> object:
    return key(v) if isinstance(v, ast.AST) else [key_or_value(x) for x in v] if isinstance(v, list) else v


def _header_call(src: Sources, node: ast.ClassDef) -> str | None:
    """The class header `class A(B, metaclass=M):` as set_bases writes it, `A(B, metaclass=M)`, taken
    from its line or lines as written (so the patched lines are the diff's), or None."""
    lines = src.lines_of(node)
    if not 0 < node.lineno <= len(lines):
        return None
    m = _CLASS_LINE.match(lines[node.lineno - 1])
    last = min(node.body[0].lineno - 1, len(lines)) if node.body else node.lineno
    for end in range(node.lineno + 1, last + 1):  # a header over several lines: `class A(\n    B,\n):`
        if m is not None:
            break
        m = _CLASS_LINES.match("\n".join(lines[node.lineno - 1 : end]))
    if m is None:
        return None
    first = lines[node.lineno - 1]
    indent = first[: len(first) - len(first.lstrip())]  # set_bases writes the header at the class's indentation
    text = "\n".join(ln.removeprefix(indent) for ln in m.group(1).strip().split("\n"))
    try:
        call = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    want = ast.Call(ast.Name(node.name, ast.Load()), node.bases, node.keywords)
    got = ast.Call(ast.Name(call.id, ast.Load()), [], []) if isinstance(call, ast.Name) else call
    if not isinstance(got, ast.Call) or key(got) != key(want):
        return None
    return text
