"""The `vouched_exec:` key of a registry entry (issue 23, exec51, att52 #3): each item names an
`exec`/`eval` call radpatch cannot read by its place, as verify's refusal prints it: `file` (its path
in the wheel), `scope` (the enclosing def/class, dotted, or `<module>`; an item without it, written
before items named their place, vouches for no call and says so), `code` (its statement),
`occurrence` (which identical statement of the scope, default 1), `binds` (the statements binding
the names the call passes, default none) and `reads` (a digest of the module's code the call depends
on, radpatch.releases.exec_reads; an item without it vouches for no call and says so).
radpatch.releases.exec_sites reads a release's calls alike."""

from __future__ import annotations

import ast

import yaml

from radpatch.registry.loader.nodes import EveryProblem, Problems, describe, mapping, seq, string
from radpatch.registry.model import VouchedExec

_EXAMPLE = (
    '[{file: vllm/compilation/codegen.py, scope: compile_execution_fn, code: "exec(code, namespace)", '
    'binds: ["parameter code: str", "namespace: dict[str, Any] = {}"], reads: "0123456789ab"}]'
)
_KEYS = {"scope", "occurrence", "binds", "reads"}


def vouched_exec(ctx: Problems, node: yaml.Node, path: str) -> tuple[VouchedExec, ...]:
    """`vouched_exec: [{file, scope, code, occurrence, binds}, ...]`: unreadable exec/eval calls vouched for."""
    if not isinstance(node, yaml.SequenceNode):
        ctx.spend(node, path)
        raise ctx.fail(node, path, f"expected a list, found {describe(node)}; write e.g. {_EXAMPLE}")
    get = EveryProblem()
    out: dict[tuple[object, ...], VouchedExec] = {}
    for i, item in enumerate(seq(ctx, node, path)):
        at = f"{path}[{i}]"
        keys = get(mapping, ctx, item, at, {"file", "code"}, _KEYS)
        if keys is None:
            continue
        file, code = get(string, ctx, keys["file"], f"{at}.file"), get(string, ctx, keys["code"], f"{at}.code")
        scope: str | None = get(string, ctx, keys["scope"], f"{at}.scope") if "scope" in keys else ""
        scope = scope.strip() if scope is not None else None
        nth = get(_occurrence, ctx, keys["occurrence"], f"{at}.occurrence") if "occurrence" in keys else 1
        binds = get(_binds, ctx, keys["binds"], f"{at}.binds") if "binds" in keys else ()
        reads = get(_reads, ctx, keys["reads"], f"{at}.reads") if "reads" in keys else ""
        if file is not None and (why := _wheel_path(file)):
            get.fail(ctx.fail(keys["file"], f"{at}.file", why))
        if code is not None and (why := _exec_statement(code)):
            get.fail(ctx.fail(keys["code"], f"{at}.code", why))
        dotted = scope is not None and all(p.isidentifier() for p in scope.split("."))
        if scope is not None and "scope" in keys and scope != "<module>" and not dotted:
            get.fail(ctx.fail(keys["scope"], f"{at}.scope", f"{scope!r} is not a dotted def/class name or <module>"))
            scope = None
        if file is None or code is None or scope is None or nth is None or binds is None or reads is None:
            continue
        if _wheel_path(file) or _exec_statement(code):
            continue
        key = (file, ast.dump(ast.parse(code.strip())), scope, nth, binds, reads)
        if key in out:
            get.fail(ctx.fail(item, at, f"{file}'s `{code.strip()}` in {scope} is listed twice"))
        out[key] = VouchedExec(file, code.strip(), ctx.location(item), scope, nth, binds, reads)
    get.check()
    return tuple(out.values())


def _occurrence(ctx: Problems, node: yaml.Node, path: str) -> int:
    text = string(ctx, node, path)
    if not text.isdigit() or int(text) < 1:
        raise ctx.fail(node, path, f"{text!r} is not an occurrence; write 1 for the scope's first such call, 2, ...")
    return int(text)


def _reads(ctx: Problems, node: yaml.Node, path: str) -> str:
    text = string(ctx, node, path).strip()
    if len(text) != 12 or any(c not in "0123456789abcdef" for c in text):
        raise ctx.fail(node, path, f"{text!r} is not a digest (12 hex digits); copy the `reads:` the refusal prints")
    return text


def _binds(ctx: Problems, node: yaml.Node, path: str) -> tuple[str, ...]:
    items = seq(ctx, node, path)
    get = EveryProblem()
    texts = tuple(get(string, ctx, n, f"{path}[{i}]") for i, n in enumerate(items))
    for i, (n, text) in enumerate(zip(items, texts)):
        if text is not None and (why := _bind_problem(text.strip())):
            get.fail(ctx.fail(n, f"{path}[{i}]", why))
    get.check()
    return tuple(t.strip() for t in texts)


def _bind_problem(text: str) -> str | None:
    """What keeps `text` from being a binding as a refusal prints one: `parameter NAME[: ANNOTATION][=DEFAULT]`,
    or a statement that binds a name (a compound one as its header and `...`: `for x in y: ...`)."""
    if text == "parameter" or text.startswith("parameter "):
        said = text[len("parameter") :].strip()
        try:
            args = ast.parse(f"def _({said}): pass").body[0].args  # type: ignore[attr-defined]
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            args = None
        if args is None or len([*args.posonlyargs, *args.args, *args.kwonlyargs]) != 1 or "," in said.split(":")[0]:
            return f"{text!r} is not `parameter NAME[: ANNOTATION][=DEFAULT]`; copy the binding the refusal prints"
        return None
    try:
        tree: ast.AST = ast.parse(text if not text.startswith("except") else f"try:\n    pass\n{text}")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"{text!r} is not a statement ({getattr(exc, 'msg', exc)}); copy the binding the refusal prints"
    if not any(_binds_name(n) for n in ast.walk(tree)):
        return f"{text!r} binds no name; copy the binding the refusal prints, e.g. 'namespace = {{}}'"
    return None


def _binds_name(n: ast.AST) -> bool:
    if isinstance(n, ast.Name):
        return isinstance(n.ctx, ast.Store | ast.Del)
    if isinstance(n, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return n.name is not None
    return isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.alias | ast.MatchMapping)


def _wheel_path(file: str) -> str | None:
    parts = file.split("/")
    if not file.endswith(".py") or file.startswith("/") or "\\" in file or any(p in ("", ".", "..") for p in parts):
        return f"{file!r} is not a module's path in the wheel; write it as the refusal names it: vllm/compilation/x.py"
    return None


def _exec_statement(code: str) -> str | None:
    """What is wrong with `code` as the statement of an exec/eval site; None when it is one."""
    try:
        body = ast.parse(code.strip()).body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        why = getattr(exc, "msg", exc)
        return f"not Python code ({why}); copy the statement the refusal names, e.g. exec(code, namespace)"
    if len(body) != 1:
        return f"{len(body)} statements; give the one statement that calls exec or eval, as the refusal names it"
    if not any(_names_runner(n) for n in ast.walk(body[0])):
        return "the statement calls no exec or eval; copy the statement the refusal names, e.g. exec(code, namespace)"
    return None


def _names_runner(n: ast.AST) -> bool:
    """`exec`/`eval` by name, as an attribute (`builtins.exec`) or as a string (`getattr(builtins, "exec")`)."""
    said = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else getattr(n, "value", None)
    return said in ("exec", "eval")
