"""The rewrite operations. Each module holds one operation's edit — how it finds its anchor, how
it changes the code, how it undoes itself, what its refusals say; its typed spec (the YAML keys
it takes) is declared once in registry/model.py, which the loader and the JSON Schema read.

forward(src, op) applies one rewrite; inverse(src, op) undoes it structurally: the result is
AST-equal to the code before (the exact original bytes come from the copy radpatch keeps).
Both raise matching.MatchFailure (with a hint fitting the cause) unless their anchor is found.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from radpatch.registry import model
from radpatch.registry.model import Operation
from radpatch.rewrite.ops import (
    add_parameter,
    bodies,
    decorators,
    delete,
    imports,
    insert_definitions,
    insert_statements,
    replace,
    set_constant,
    set_default,
)
from radpatch.rewrite.ops.common import code_errors
from radpatch.rewrite.source import Source

_Edit = Callable[[Source, Any], Source]
EDITS: dict[type, tuple[_Edit, _Edit]] = {
    model.InsertDefinitions: (insert_definitions.forward, insert_definitions.inverse),
    model.AddParameter: (add_parameter.forward, add_parameter.inverse),
    model.SetDefault: (set_default.forward, set_default.inverse),
    model.InsertStatements: (insert_statements.forward, insert_statements.inverse),
    model.Replace: (replace.forward, replace.inverse),
    model.Delete: (delete.forward, delete.inverse),
    model.AddDecorator: (decorators.forward, decorators.inverse),
    model.RemoveDecorator: (decorators.forward, decorators.inverse),
    model.ReplaceDecorator: (decorators.forward, decorators.inverse),
    model.WrapBody: (bodies.forward, bodies.inverse),
    model.ReplaceBody: (bodies.forward, bodies.inverse),
    model.AddImport: (imports.forward, imports.inverse),
    model.SetConstant: (set_constant.forward, set_constant.inverse),
}


def forward(src: Source, op: Operation) -> Source:
    with code_errors():
        return EDITS[type(op)][0](src, op)


def inverse(src: Source, op: Operation) -> Source:
    with code_errors():
        return EDITS[type(op)][1](src, op)
