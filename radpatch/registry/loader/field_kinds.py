"""The readers of the field kinds the operations' FIELDS name (READERS): code, an expression, a
qualified name, an identifier, `within:`, `occurrence:`, an import, a list of names; each problem
recorded at file:line:column and key path, as `nodes` records it. An enum-valued field's values
are its own `choices`, read by `nodes.choice`."""

from __future__ import annotations

import ast
import keyword
import textwrap
from collections.abc import Callable

import yaml

from radpatch.registry.code import ParseProblem, is_expression, newer_grammar, parse_problem
from radpatch.registry.loader.nodes import EveryProblem, Problems, python_name, seq, string
from radpatch.registry.within_keys import key_of


def code_text(ctx: Problems, node: yaml.Node, path: str) -> str:
    """A code field's text: a string, or a plain scalar Python reads as YAML does (`from: 300`); a
    YAML boolean (`true`, `yes`, `off`) is refused, Python would read another name or nothing."""
    text = string(ctx, node, path)
    if node.tag == "tag:yaml.org,2002:bool" and not getattr(node, "style", None):
        python = "True" if text.lower() in ("true", "yes", "on", "y") else "False"
        raise ctx.fail(
            node,
            path,
            f"YAML reads {text} as a boolean, not Python code; write Python's {python}, or quote it: {text!r}",
        )
    return text


def _what_code(path: str) -> str:
    """What a code key holds, by its name (att64 F3: an empty fill_module `code:` was told of matching)."""
    key = path.rsplit(".", 1)[-1]
    if key in ("find", "within"):
        return "the Python code to match"
    if key == "with":
        return "the Python code that takes its place (to delete code, use the `delete` operation)"
    return "the Python code this rewrite adds"


def _pattern(ctx: Problems, node: yaml.Node, path: str) -> str:
    code = code_text(ctx, node, path)
    if not code.strip():
        raise ctx.fail(node, path, f"is empty; write {_what_code(path)}")
    problem = parse_problem(textwrap.dedent(code))
    if problem and code.strip().endswith(":") and not parse_problem(textwrap.dedent(code).strip() + "\n    pass"):
        raise ctx.fail(
            node,
            path,
            f"{code.strip()!r} is a compound statement's header without its body; write the whole statement "
            "(header and body), or match a statement inside it and narrow with `within:` (which takes a header)",
        )
    if problem and (problem.nested or not is_expression(code)):
        raise ctx.fail(node, path, f"is not Python code: {problem.why}{'' if problem.nested else newer_grammar(code)}")
    if not problem and not ast.parse(textwrap.dedent(code)).body:
        raise ctx.fail(
            node,
            path,
            "holds only comments; write at least one statement (radpatch matches and places code, "
            f"not comments): {_what_code(path)}",
        )
    return code


def _within(ctx: Problems, node: yaml.Node, path: str) -> str:
    code = code_text(ctx, node, path)
    text = textwrap.dedent(code).strip()
    problem = parse_problem(text + "\n    pass" if text.endswith(":") else text) if text else ParseProblem("empty")
    if problem and text.endswith(":") and _clause_or_match(text):
        return code
    if problem:
        newer = newer_grammar(text + "\n    pass" if text.endswith(":") else text) if text else ""
        raise ctx.fail(
            node,
            path,
            "is not a statement, a compound statement's header like `for x in y:` or a clause's like `elif x:`, "
            f"`except KeyError:`, `case 1:`, `else:`: {problem.why}{newer}",
        )
    return code


def _clause_or_match(text: str) -> bool:
    """Whether `text` is a clause's header (`elif x:`, `except E:`, `else:` ...) or a `match x:`."""
    try:
        key_of(text)
    except SyntaxError:
        return False
    return True


def _occurrence(ctx: Problems, node: yaml.Node, path: str) -> int | str:
    text = string(ctx, node, path)
    if text == "all":
        return text
    if not text.isdigit() or int(text) < 1:
        raise ctx.fail(
            node,
            path,
            f"{text!r} is not a match number; write 1 for the first match in the installed file's source order, "
            "2 for the second, ..., or `all` for every match",
        )
    return int(text)


def _position(ctx: Problems, node: yaml.Node, path: str) -> int:
    text = string(ctx, node, path)
    if not text.isdigit() or int(text) < 1:
        raise ctx.fail(
            node,
            path,
            f"{text!r} is not an argument's position; write 1 for the first positional argument, 2 for the second, ...",
        )
    return int(text)


def _import(ctx: Problems, node: yaml.Node, path: str) -> str:
    code = code_text(ctx, node, path).strip()
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        body = []
    if len(body) != 1 or not isinstance(body[0], (ast.Import, ast.ImportFrom)) or "*" in code:
        raise ctx.fail(
            node,
            path,
            f"{code!r} is not one `import x` or `from x import y` statement (star imports are not supported)",
        )
    if isinstance(body[0], ast.ImportFrom) and body[0].module == "__future__":
        raise ctx.fail(
            node, path, "a `from __future__` import must be a module's first statement; radpatch does not add one"
        )
    return code


def _expression(ctx: Problems, node: yaml.Node, path: str) -> str:
    code = code_text(ctx, node, path).strip()
    problem = parse_problem(code, "eval") if code else ParseProblem("empty")
    if problem:
        newer = newer_grammar(code) if code and not problem.nested else ""
        raise ctx.fail(
            node,
            path,
            f"{code[:60]!r} is not a Python expression (a value such as None, 0 or f(x)): {problem.why}{newer}",
        )
    return code


def _qualname(ctx: Problems, node: yaml.Node, path: str) -> str:
    name = string(ctx, node, path)
    if name != "<module>" and not all(p.isidentifier() for p in name.split(".")):  # PEP 3131: `Größe.f`
        raise ctx.fail(node, path, f"{name!r} is not a qualified name like 'f' or 'Class.method'")
    return name if name == "<module>" else python_name(name)


def identifier(ctx: Problems, node: yaml.Node, path: str) -> str:
    name = string(ctx, node, path)
    if not name.isidentifier():
        raise ctx.fail(node, path, f"{name!r} is not a Python identifier")
    return python_name(name)


def _python_name(ctx: Problems, node: yaml.Node, path: str) -> str:
    """A name Python code binds or reads (a parameter, a constant, a payload's definition): an
    identifier that is not a keyword (`class`; soft keywords such as `match` are names)."""
    name = identifier(ctx, node, path)
    if keyword.iskeyword(name):
        raise ctx.fail(node, path, f"{name!r} is a Python keyword, not a name; choose another name")
    return name


def _names(ctx: Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    get = EveryProblem()
    names = tuple(get(_python_name, ctx, n, f"{path}[{i}]") for i, n in enumerate(seq(ctx, node, path)))
    get.check()
    if not names:
        raise ctx.fail(node, path, "an empty list; name at least one definition or leave `names` out")
    return names


READERS: dict[str, Callable[[Problems, yaml.Node, str], object]] = {
    "qualname": _qualname,
    "identifier": _python_name,
    "code": _pattern,
    "expression": _expression,
    "occurrence": _occurrence,
    "index": _position,
    "import": _import,
    "within": _within,
    "names": _names,
}
