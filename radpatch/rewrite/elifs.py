"""A replace's result written as an `elif` branch of a chain (libcst holds an elif inside its if,
as its `orelse`, not as a statement of a block).

A `with` that is one `if new: ... else: <find>` put where `find` was an `else:`'s statements reads
as `elif new: ... else: <find>` when another tool (GNU patch, a hand edit) wrote the branch into the
chain. The two are the same code (ast), so undoing the replace must find it there too: else the
file reads not applied (its `find` is still there, inside the new code) and apply nests a second
copy of the branch.
"""

from __future__ import annotations

import textwrap

import libcst as cst

from radpatch.rewrite.matching import code_of, replace_on_path
from radpatch.rewrite.patterns import code_key, parse_statements, stmt_key
from radpatch.rewrite.tree import Path_, block_holders, walk


def elif_hits(module: cst.Module, scope: Path_, code: str) -> list[Path_]:
    """The elif branches of the scope (not of nested definitions) that are `code`, one `if`
    statement with its else, as ast compares them."""
    stmts = parse_statements(code)
    if len(stmts) != 1 or not isinstance(stmts[0], cst.If) or stmts[0].orelse is None:
        return []
    want = code_key(code)
    out = []
    for p in walk(scope, lambda n: isinstance(n, cst.If), block_holders):
        if is_elif(p):
            try:
                same = stmt_key(textwrap.dedent(code_of(module, p[-1])).strip("\n") + "\n") == want
            except SyntaxError:
                continue
            if same:
                out.append(p)
    return out


def is_elif(path: Path_) -> bool:
    return len(path) > 1 and isinstance(path[-2], cst.If) and path[-2].orelse is path[-1]


def as_else(path: Path_, code: str) -> cst.CSTNode:
    """The elif at `path` taken back to an `else:` holding `code`'s statements."""
    parent = path[-2]
    assert isinstance(parent, cst.If)
    block = cst.IndentedBlock(body=parse_statements(code))
    return replace_on_path(path[:-1], parent.with_changes(orelse=cst.Else(body=block)))
