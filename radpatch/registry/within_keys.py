"""`within:`'s text keyed as `ast` reads it (rewrite.ops.common.within_clause matches the key; the
registry loader checks the text with it): a compound statement by its header (body, else, handlers
cleared; a `match` with its cases cleared), a clause by its own header (`elif x:`, `else:`,
`except E:`, `except* E:`, `finally:`, `case P:`, `try:`), a simple statement whole."""

from __future__ import annotations

import ast
import re
import textwrap

CLAUSE = re.compile(r"(elif|else|except|finally|case|try)\b")


def key_of(pattern: str) -> tuple[str, str]:
    """("header", dump) for a compound statement's header, ("clause", kind and dump) for a clause's
    header, or ("stmt", dump) for a simple statement; SyntaxError where it is none of them."""
    text = textwrap.dedent(pattern).strip()
    word = CLAUSE.match(text)
    if word and text.endswith(":"):
        return ("clause", clause_key(word.group(1), text + "\n    pass\n"))
    node = _statement(text)
    return ("header", header_key(node)) if compound(node) else ("stmt", ast.dump(node))


def _statement(text: str) -> ast.stmt:
    """The statement `text` is; a header given a body (`pass`, or a `match`'s `case _: pass`)."""
    if not text.endswith(":"):
        return ast.parse(text).body[0]
    try:
        return ast.parse(text + "\n    pass").body[0]
    except SyntaxError:
        if not text.startswith("match"):
            raise
        return ast.parse(text + "\n    case _:\n        pass").body[0]


def clause_key(kind: str, code: str) -> str:
    """The key of the clause of `kind` whose header (with a body) is `code`; SyntaxError where it
    is not one."""
    if kind == "elif":
        ast.parse("if _:\n    pass\n" + code)  # an elif where elif may stand
        node = ast.parse(code.replace("elif", "if", 1)).body[0]
        return "elif " + header_key(node)
    if kind == "except":
        tried = ast.parse("try:\n    pass\n" + code).body[0]
        assert isinstance(tried, ast.Try) or type(tried).__name__ == "TryStar"  # except* (3.11)
        handler: ast.ExceptHandler = tried.handlers[0]  # type: ignore[attr-defined]
        handler.body = []
        return ("except* " if type(tried).__name__ == "TryStar" else "except ") + ast.dump(handler)
    if kind == "case":
        matched = ast.parse("match _:\n" + textwrap.indent(code, "    ")).body[0]
        assert isinstance(matched, ast.Match)
        case = matched.cases[0]
        case.body = []
        return "case " + ast.dump(case)
    wrapped = {"else": "if _:\n    pass\n", "finally": "try:\n    pass\n", "try": ""}[kind]
    ast.parse(wrapped + code + ("finally:\n    pass\n" if kind == "try" else ""))
    return kind


def compound(node: ast.stmt) -> bool:
    return hasattr(node, "body") or hasattr(node, "cases")


def header_key(node: ast.stmt) -> str:
    blank: dict[str, list[ast.AST]] = {
        f: [] for f in ("body", "orelse", "finalbody", "handlers", "cases") if hasattr(node, f)
    }
    for f, v in blank.items():
        setattr(node, f, v)
    return ast.dump(node)
