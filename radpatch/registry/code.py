"""A patch's code as the registry reads it, before any rewrite runs: whether it parses and why not
(`parse_problem`, nesting bounded by MAX_DEPTH whatever the interpreter), what to say when it is a
newer Python's syntax (`newer_grammar`), and whether a `find`/`with` is matched as an expression or
as statements (`is_expression`, `expression_text`). Standard library only (libcst only on the
newer-grammar refusal path): the loader reads it, and the rewrites (rewrite/ops) read it the same
way when they run."""

from __future__ import annotations

import ast
import sys
import textwrap
from dataclasses import dataclass

# Deeper than this a registry's code is refused whatever the interpreter: Python's parser stops
# nested brackets at 200, and how deep a chain like `1+1+...` may go before parsing or walking the
# tree recurses too far depends on the interpreter (3.11 and 3.12 refuse 3,000 terms, 3.10 and 3.13
# parse them and fail later).
MAX_DEPTH = 200


def depth_over(tree: ast.AST, limit: int = MAX_DEPTH) -> bool:
    """Whether `tree` nests deeper than `limit` nodes (walked level by level, without recursing).
    Every registry load walks each payload whole: the children are read off `_fields` here, as
    ast.iter_child_nodes reads them, without a generator per node (2.4 times faster)."""
    level = [tree]
    for _ in range(limit):
        below: list[ast.AST] = []
        for node in level:
            for name in node._fields:
                value = getattr(node, name, None)
                if isinstance(value, ast.AST):
                    below.append(value)
                elif isinstance(value, list):
                    below.extend([v for v in value if isinstance(v, ast.AST)])
        if not below:
            return False
        level = below
    return True


@dataclass(frozen=True)
class ParseProblem:
    """Why code does not parse (`why`, the words a refusal shows), and whether it is nested too
    deeply (`nested`), which no reading as an expression can mend: callers branch on the flag,
    never on the words."""

    why: str
    nested: bool = False


def parse_problem(code: str, mode: str = "exec") -> ParseProblem | None:
    """Why `code` does not parse, or None. Deep nesting is a problem of the code, not a crash."""
    try:
        tree = ast.parse(code, mode=mode)
    except SyntaxError as exc:
        return ParseProblem(f"{exc.msg} (line {exc.lineno})")
    except (ValueError, RecursionError, MemoryError) as exc:
        if isinstance(exc, ValueError):
            return ParseProblem(str(exc))
        return ParseProblem("nested too deeply for Python's parser", nested=True)
    if depth_over(tree):
        return ParseProblem(f"nested too deeply (more than {MAX_DEPTH} levels) for radpatch to analyse", nested=True)
    return None


def newer_grammar(code: str | bytes) -> str:
    """What to do about code radpatch's own Python cannot parse but libcst's parser, which reads
    newer grammars (PEP 695 `type X = int` and `def f[T]`, PEP 701's `f"{d["k"]}"`), accepts: a
    sentence to append to the refusal; "" when libcst refuses it too (it is no Python's code).
    A patch's code is matched and proved with the running Python's `ast`, so a newer grammar is
    read only by a radpatch running on a Python that has it (docs/safety.md)."""
    import libcst as cst  # only on this refusal path

    try:
        cst.parse_module(textwrap.dedent(code) if isinstance(code, str) else code)
    except (cst.ParserSyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    mine = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return (
        f"; if it is a newer Python's syntax (libcst's parser reads it: PEP 695 type parameters, PEP 701 "
        f"f-strings), radpatch's own Python {mine} cannot: a patch's code is matched and proved with it. "
        "Run radpatch with the target's interpreter (install radpatch there and run `python3.X -m radpatch`), "
        f"or write the code in Python {mine} syntax"
    )


def is_expression(code: str) -> bool:
    """Whether a rewrite's `find`/`with` is matched as an expression (else as statements): one
    expression statement, or code that only parses as an expression (e.g. spanning lines)."""
    text = textwrap.dedent(code).strip()
    try:
        ast.parse(f"(\n{text}\n)", mode="eval")
    except SyntaxError:
        return False
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return True
    return len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)


def expression_text(code: str) -> str:
    """An expression pattern as one parseable line (libcst will not take bare line breaks)."""
    text = textwrap.dedent(code).strip()
    try:
        ast.parse(text, mode="eval")
        return text
    except SyntaxError:
        return ast.unparse(ast.parse(f"(\n{text}\n)", mode="eval").body)
