"""What Python calls of an object where the code spells no call (issue 21 #4): its truth (`if k:`,
`while k:`, `assert k`, an `and`/`or` operand, a conditional expression's or a comprehension's test:
`__bool__`, else `__len__`), iterating it (`for x in k`, a comprehension: `__iter__`, `__next__`),
entering it (`with k:`: `__enter__`, `__exit__`) and an augmented assignment (`k += 1`: `__iadd__`,
else `__add__`; `__radd__` of the value). implicit_calls runs those of an instance of a class the scope
defined. Read with `ast` only."""

from __future__ import annotations

import ast

TRUTH = ("__bool__", "__len__")
_ITER = ("__iter__", "__next__")
_AITER = ("__aiter__", "__anext__")
BIN_OPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.MatMult: "matmul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift",
    ast.BitOr: "or", ast.BitXor: "xor", ast.BitAnd: "and",
}  # fmt: skip


def protocols(node: ast.AST) -> list[tuple[ast.expr, tuple[str, ...]]]:
    """Per operand of `node` Python calls a special method of: the operand and those methods' names."""
    if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
        return [(node.test, TRUTH)]
    if isinstance(node, ast.BoolOp):
        return [(v, TRUTH) for v in node.values[:-1]]  # the last operand's value is the result, not tested
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [(node.iter, _ITER if isinstance(node, ast.For) else _AITER)]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        names = ("__enter__", "__exit__") if isinstance(node, ast.With) else ("__aenter__", "__aexit__")
        return [(item.context_expr, names) for item in node.items]
    if isinstance(node, ast.AugAssign):
        op = BIN_OPS[type(node.op)]
        return [(node.target, (f"__i{op}__", f"__{op}__")), (node.value, (f"__r{op}__",))]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        first = node.generators[0]  # made where it stands; the later iterables and the `if`s run in the
        return [(first.iter, _AITER if first.is_async else _ITER)]  # comprehension's scope (operand_walks)
    return []
