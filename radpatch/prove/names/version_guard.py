"""An `if` test on the Python version, decided for the target's major.minor version: `sys.version_info`
(or `version_info` taken from sys) compared with a tuple on either side, sliced (`[:2]`), indexed
(`[0]`, `[1]`) or by field (`.major`, `.minor`), `sys.hexversion` compared with an int, chained,
negated, or joined by `and` / `or`.

A module-level name bound once, to a test that reads the version (`PY311 = sys.version_info >= (3, 11)`,
then `if PY311:`), stands for that test (flags()); a name bound more than once is not followed.

decide() answers True or False when the test is decided, OPEN when it reads the version in a way
that is not understood (or that needs the micro version): then both branches may run, so neither
guards; None when the test does not read the version (any other condition: it counts as a guard).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, Literal

OPEN: Final = "open"
if TYPE_CHECKING:  # aliases for the checker only: this module also runs in targets as old as 3.9
    Decision = bool | Literal["open"] | None

# an operand: an exact int, or a tuple prefix and whether unknown elements follow it
_Tuple = tuple[tuple[int, ...], bool]
if TYPE_CHECKING:
    _Operand = int | _Tuple | Literal["open"] | None

_OPS: dict[type, tuple[int, ...]] = {  # the comparison results (-1, 0, 1) each operator accepts
    ast.Lt: (-1,),
    ast.LtE: (-1, 0),
    ast.Gt: (1,),
    ast.GtE: (0, 1),
    ast.Eq: (0,),
    ast.NotEq: (-1, 1),
}


def _reads_version(e: ast.AST) -> bool:
    return any(
        (isinstance(n, ast.Attribute) and n.attr in ("version_info", "hexversion"))
        or (isinstance(n, ast.Name) and n.id in ("version_info", "hexversion"))
        for n in ast.walk(e)
    )


def _name(e: ast.expr) -> str | None:
    if isinstance(e, ast.Attribute):
        return e.attr
    if isinstance(e, ast.Name):
        return e.id
    return None


def _operand(e: ast.expr, version: tuple[int, int]) -> _Operand:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.Tuple):
        if all(isinstance(x, ast.Constant) and type(x.value) is int for x in e.elts):
            return tuple(x.value for x in e.elts), False  # type: ignore[attr-defined]
        return OPEN if _reads_version(e) else None
    if _name(e) == "version_info":
        return version, True
    if isinstance(e, ast.Attribute) and _name(e.value) == "version_info":
        fields = {"major": 0, "minor": 1}
        return version[fields[e.attr]] if e.attr in fields else OPEN
    if isinstance(e, ast.Subscript) and _name(e.value) == "version_info":
        s = e.slice
        if isinstance(s, ast.Constant) and type(s.value) is int:
            return version[s.value] if s.value in (0, 1) else OPEN
        if isinstance(s, ast.Slice) and s.step is None and (s.lower is None or _is_int(s.lower, 0)):
            if s.upper is not None and isinstance(s.upper, ast.Constant) and type(s.upper.value) is int:
                n = s.upper.value
                return (version[:n], False) if 0 <= n <= 2 else (version, True) if n > 2 else OPEN
        return OPEN
    return OPEN if _reads_version(e) else None


def _is_int(e: ast.expr, value: int) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) is int and e.value == value


def _cmp_tuples(a: _Tuple, b: _Tuple) -> int | None:
    (x, more_x), (y, more_y) = a, b
    for p, q in zip(x, y):
        if p != q:
            return -1 if p < q else 1
    rest_x, rest_y = len(x) > len(y) or more_x, len(y) > len(x) or more_y
    if rest_x and rest_y:
        return None  # both go on with elements the major.minor version does not tell
    return 1 if rest_x else -1 if rest_y else 0


def _cmp_hex(left: ast.expr, right: ast.expr, version: tuple[int, int]) -> int | None | Literal["open"]:
    """`sys.hexversion` against an int: the target's hexversion is within its major.minor's range."""
    lo = (version[0] << 24) | (version[1] << 16)
    hi = lo | 0xFFFF
    if _name(left) == "hexversion" and isinstance(right, ast.Constant) and type(right.value) is int:
        c = right.value
        return -1 if hi < c else 1 if lo > c else None
    if _name(right) == "hexversion" and isinstance(left, ast.Constant) and type(left.value) is int:
        c = left.value
        return 1 if c > hi else -1 if c < lo else None
    return OPEN


def _compare(left: ast.expr, op: ast.cmpop, right: ast.expr, version: tuple[int, int]) -> Decision:
    if not (_reads_version(left) or _reads_version(right)):
        return None
    if type(op) not in _OPS:
        return OPEN
    c: int | None | Literal["open"]
    if _name(left) == "hexversion" or _name(right) == "hexversion":
        c = _cmp_hex(left, right, version)
    else:
        a, b = _operand(left, version), _operand(right, version)
        if isinstance(a, int) and isinstance(b, int):
            c = (a > b) - (a < b)
        elif isinstance(a, tuple) and isinstance(b, tuple):
            c = _cmp_tuples(a, b)
        else:
            c = OPEN  # an int against a tuple, or a reading not understood
    if c is None or c == OPEN:
        return OPEN
    return c in _OPS[type(op)]


def aliases(tree: ast.Module) -> dict[str, str]:
    """The names `from sys import version_info as vi` (or hexversion) binds anywhere in `tree`."""
    return {
        a.asname: a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module == "sys" and not n.level
        for a in n.names
        if a.asname and a.name in ("version_info", "hexversion")
    }


class _Rename(ast.NodeTransformer):
    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.names.get(node.id, node.id), node.ctx)


class _Expand(ast.NodeTransformer):
    """Each flag's name read in a test replaced by (a copy of) the test it stands for."""

    def __init__(self, flags: Mapping[str, ast.expr]) -> None:
        self.flags = flags

    def visit_Name(self, node: ast.Name) -> ast.expr:
        flag = self.flags.get(node.id)
        return copy.deepcopy(flag) if flag is not None and isinstance(node.ctx, ast.Load) else node


def _bound_names(tree: ast.Module) -> dict[str, int]:
    """How many times each name is bound (or deleted) anywhere in `tree`, in any scope."""
    count: dict[str, int] = {}
    for n in ast.walk(tree):
        names: list[str] = []
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names = [n.id]
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [n.name]
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names = [a.asname or a.name.split(".")[0] for a in n.names]
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names = list(n.names)
        elif isinstance(n, ast.arg):
            names = [n.arg]
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names = [n.name]
        else:
            bound = getattr(n, "name", None) or getattr(n, "rest", None)  # match patterns' captures
            names = [bound] if isinstance(bound, str) and type(n).__name__.startswith("Match") else []
        for name in names:
            count[name] = count.get(name, 0) + 1
    return count


def flags(tree: ast.Module) -> dict[str, ast.expr]:
    """The module-level names bound once in `tree`, by `NAME = test` (or `NAME: T = test`) where the
    test reads the Python version, each with its test (the flags it reads already replaced, and the
    aliases of version_info and hexversion renamed): a name bound anywhere else too is not one."""
    once = {name for name, n in _bound_names(tree).items() if n == 1}
    renamed = aliases(tree)
    out: dict[str, ast.expr] = {}
    for s in tree.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            target, value = s.targets[0], s.value
        elif isinstance(s, ast.AnnAssign) and s.value is not None:
            target, value = s.target, s.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in once:
            test = _Rename(renamed).visit(_Expand(out).visit(copy.deepcopy(value)))
            if _reads_version(test):
                out[target.id] = test
    return out


def decide(
    test: ast.expr,
    version: tuple[int, int],
    renamed: Mapping[str, str] | None = None,
    flagged: Mapping[str, ast.expr] | None = None,
) -> Decision:
    """The value of `test` on the target's `version`, OPEN, or None (see the module's docstring).
    `renamed`: the aliases of version_info and hexversion the module binds (aliases()); `flagged`:
    its names that stand for a version test (flags())."""
    if flagged:
        test = _Expand(flagged).visit(copy.deepcopy(test))
    if renamed:
        test = _Rename(renamed).visit(copy.deepcopy(test))
    return _decide(test, version)


def _decide(test: ast.expr, version: tuple[int, int]) -> Decision:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decide(test.operand, version)
        return inner if inner is None or inner == OPEN else not inner
    if isinstance(test, ast.BoolOp):
        parts = [_decide(v, version) for v in test.values]
        if all(p is None for p in parts):
            return None
        stop = isinstance(test.op, ast.Or)  # the value that decides the whole
        if any(p is stop for p in parts):
            return stop  # a known part decides it; the rest only decides the other way
        if all(p is (not stop) for p in parts):
            return not stop
        return OPEN if any(p == OPEN for p in parts) else None
    if isinstance(test, ast.Compare):
        values = [test.left, *test.comparators]
        results = [_compare(values[i], op, values[i + 1], version) for i, op in enumerate(test.ops)]
        if all(r is None for r in results):
            return None
        if any(r is False for r in results):
            return False
        if all(r is True for r in results):
            return True
        return OPEN
    return OPEN if _reads_version(test) else None


def catches(h: ast.ExceptHandler, errors: frozenset[str]) -> bool:
    """Whether the handler catches one of `errors` (exception class names, by their last dotted
    part), or everything (a bare `except:`): the try's body is then guarded against that failure,
    as a version test guards it (target_stdlib's imports, stdlib_attributes' attribute reads)."""
    if h.type is None:
        return True
    names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
    return any(
        (n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else "") in errors for n in names
    )
