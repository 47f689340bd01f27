"""A payload constant that insert_definitions puts into an enum would become a member (att55 F2): the
placement step's refusal. prove.enum_bases follows the class's bases through the files; a base it
cannot follow whose name says nothing (a call, a C module, a name bound dynamically: `Base =
_m.__dict__[k]`) is asked of the target interpreter, where there is one (apply): it imports the
module as the target runs it, from a copy of its top-level package with the install read-only
(guarded_imports' way: import_runner, import_overlay), and looks the class up; an instance of
EnumMeta is an enum. An import that fails there leaves it undecided: "may be an enum", refused.
Verify has no interpreter and leaves it (docs/safety.md). No libcst here (status --check's path):
_into_class finds InsertDefinitions only once its module is loaded."""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from radpatch.errors import EnvironmentProblem
from radpatch.install.environment import PythonEnv
from radpatch.prove import enum_bases, import_runner, import_watch
from radpatch.prove.guarded_imports import TIMEOUT, top_entry
from radpatch.prove.refusal import Refusal
from radpatch.prove.star_exports import Read, path_reader
from radpatch.registry.model import Rewrite

if TYPE_CHECKING:
    from radpatch.rewrite.ops.insert_definitions import InsertDefinitions

Ask = Callable[[str], "tuple[bool | None, str]"]  # qualname -> (an enum there, what the target said)

ENUM_HINT = (
    "write it as a method, or set the attribute after the class with a module-level statement (an insert_after "
    "of the class)"
)
ENUM_QUESTION = import_watch.Check("placement check", "the target interpreter was asked whether a class is an enum")

_SCRIPT = (
    import_runner.QUESTION
    + r"""
import enum, importlib
try:
    found = importlib.import_module(request["module"])
    for part in request["qualname"].split("."):
        found = getattr(found, part)
except BaseException as exc:
    answer({"ok": None, "error": repr(exc)[:300]})
answer({"ok": True, "enum": isinstance(found, enum.EnumMeta)})
"""
)

_answers: dict[tuple[str, bytes], tuple[bool | None, str]] = {}


def asker(python: PythonEnv | None, me: tuple[str, bool] | None) -> Ask | None:
    """The question for module `me` on the target interpreter; None without one (verify)."""
    if python is None:
        return None
    return lambda qualname: _ask(python, me[0] if me else "", qualname)


def _ask(python: PythonEnv, module: str, qualname: str) -> tuple[bool | None, str]:
    if not module:
        return None, "the target interpreter cannot be asked: the module's dotted name is not known"
    request = json.dumps({"paths": [str(p) for p in python.paths], "module": module, "qualname": qualname}).encode()
    key = (str(python.executable), request)
    if key not in _answers:
        _answers[key] = _asked(python, request, top_entry(python, module))
    return _answers[key]


def _asked(python: PythonEnv, request: bytes, top: tuple[str, str] | None) -> tuple[bool | None, str]:
    try:
        paths = [str(p) for p in python.paths]
        out, finished = import_runner.asked(python.executable, paths, _SCRIPT, request, top, TIMEOUT, ENUM_QUESTION)
    except EnvironmentProblem as exc:
        return None, exc.message
    try:
        answer = json.loads(out) if out else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        if not finished:
            return None, f"the target interpreter did not finish the import within {TIMEOUT:g} s (killed)"
        return None, "the target interpreter gave no answer"
    if answer.get("ok") is True:
        return bool(answer.get("enum")), "asked of the target interpreter"
    return None, f"the target interpreter could not import it to tell: {answer.get('error', '')}"


def enum_refusal(
    rws: tuple[Rewrite, ...],
    before: bytes,
    filename: str,
    me: tuple[str, bool] | None,
    read: Read,
    ask: Ask | None = None,
) -> Refusal | None:
    """The first insert_definitions into a class that puts a payload constant into an enum (or into
    a class whose unknown base says it may be one, or one the target interpreter cannot tell, `ask`):
    it would become a member."""
    for rw in rws:
        op = _into_class(rw.op)
        if op is None:
            continue
        constants = _constants(op)
        if not constants:
            continue
        v = enum_bases.class_verdict(read, me, before, _qualname(op))
        enum, asked = v.enum, ""
        if enum is False and v.unfollowed and ask is not None:
            enum, said = ask(_qualname(op))
            asked = f" ({said})"
        if enum is False:
            continue
        what = "is an enum" if enum else "may be an enum"
        why = (
            f"rewrite {rw.id!r} ({rw.location}) on {filename}: {v.how} {what}{asked}: the payload's "
            f"{constants[0]!r} would become a member"
        )
        return Refusal("placement", why, ENUM_HINT, rw.id)
    return None


def unread(rws: tuple[Rewrite, ...]) -> list[str]:
    """What verify leaves unchecked without the package's other files (more than it reads): whether
    a base another module defines makes the class a payload constant goes into an enum."""
    ops = [op for op in (_into_class(rw.op) for rw in rws) if op is not None and _constants(op)]
    return [
        f"placement: whether class {_qualname(op)!r} is an enum through a base another module of the package "
        f"defines (the package's other files were not read), so the payload's constant would become a member"
        for op in ops
    ]


def unasked(rws: tuple[Rewrite, ...], before: bytes, me: tuple[str, bool] | None, site: tuple[str, ...]) -> list[str]:
    """What verify (no interpreter to ask) leaves unchecked with the package's files read: a class a
    payload constant goes into whose base radpatch cannot follow and whose name says nothing."""
    read = path_reader(list(site))[0]
    out = []
    for op in (_into_class(rw.op) for rw in rws):
        if op is None or not _constants(op):
            continue
        v = enum_bases.class_verdict(read, me, before, _qualname(op))
        if v.enum is False and v.unfollowed:
            out.append(
                f"placement: whether {v.how} is an enum, so the payload's constant would become a member "
                f"(verify has no target interpreter to ask; apply asks it)"
            )
    return out


def _into_class(op: object) -> InsertDefinitions | None:
    """`op` as an insert_definitions into a class, or None (without importing the rewrite ops)."""
    module = sys.modules.get("radpatch.rewrite.ops.insert_definitions")
    kind: type[InsertDefinitions] | None = None if module is None else module.InsertDefinitions
    return op if kind is not None and isinstance(op, kind) and op.in_class else None


def _qualname(op: InsertDefinitions) -> str:
    return op.anchor if op.side == "into" else op.anchor.rsplit(".", 1)[0]


def _constants(op: InsertDefinitions) -> list[str]:
    from radpatch.rewrite.ops.common.payload_items import payload  # loaded already: the op exists

    items = payload(op.payload_source).items
    return [n for n in op.names if n in items and _constant(items[n][0])]


def _constant(text: str) -> bool:
    node = ast.parse(text).body[0]
    return isinstance(node, ast.Assign) or isinstance(node, ast.AnnAssign) and node.value is not None
