"""Which module-level branch a binding sits in, and whether two bindings' branches never both run.

Each binding carries its `Branch`: the compound statements around it, each with the block it is in
(`if` body or else, a try's body, handler k, else or finally, a match's case k, a loop's body...).
Two bindings are exclusive (only one of them ever runs) when their paths part:
- in the same `if` (its body and its else; an `elif` is an `if` in the else);
- in the same try, between its body and a handler, two handlers, or a handler and the try's else
  (the usual fallback: `try: from fast import f` / `except ImportError: def f`);
- in the same match, between two cases;
- or in two `if`s whose tests are the same stable test, one negated (`if sys.version_info >=
  (3, 8):` ... `if sys.version_info < (3, 8):`): stable when it calls nothing and reads only
  attributes of names the module binds by import alone (and constants).
Never inside a loop body both share: a loop runs both branches, one iteration after another.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

# (a compound statement's position, the block of it the binding is in)
Step = tuple[tuple[int, int], str]
# (a test's canonical form, whether the binding's block runs when it is true)
Literal = tuple[str, bool]

_NEGATED = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.NotEq: ast.Eq, ast.IsNot: ast.Is, ast.NotIn: ast.In}
LOOP_BLOCKS = ("loop", "loop-else")


@dataclass(frozen=True)
class Branch:
    steps: tuple[Step, ...] = ()
    tests: tuple[tuple[Literal, frozenset[str]], ...] = ()  # each `if` test around it, with the names it reads
    looped: tuple[int, ...] = ()  # indexes of steps that are a loop's body or else

    def into(self, s: ast.stmt, block: str) -> Branch:
        """The branch of block `block` of compound statement `s` in this one: an `if`'s "body" or
        "orelse"; a try's "try", "handler:K", "try-else" or "finally"; a match's "case:K"; a
        loop's "loop" or "loop-else"; a with's "with"."""
        step = ((s.lineno, s.col_offset), block)
        looped = self.looped + ((len(self.steps),) if block in LOOP_BLOCKS else ())
        tests = self.tests
        if isinstance(s, ast.If):
            form, truth, names = literal(s.test)
            tests = tests + (((form, truth == (block == "body")), names),)
        return Branch(self.steps + (step,), tests, looped)


def exclusive(a: Branch, b: Branch, import_only: Iterable[str]) -> bool:
    """Whether the bindings in branches a and b never both run. `import_only`: the names the
    module binds by import and by nothing else (a test reading only those is stable)."""
    shared = 0
    while shared < min(len(a.steps), len(b.steps)) and a.steps[shared] == b.steps[shared]:
        shared += 1
    if any(i < shared for i in a.looped):
        return False
    if shared < min(len(a.steps), len(b.steps)):
        (at, one), (bt, other) = a.steps[shared], b.steps[shared]
        if at == bt and _alternatives(one, other):
            return True
    stable = frozenset(import_only)
    mine = {lit: names for lit, names in a.tests}
    return any(
        (form, not truth) in mine and names <= stable and mine[(form, not truth)] <= stable
        for (form, truth), names in b.tests
        if form
    )


def _alternatives(one: str, other: str) -> bool:
    if one == other:
        return False
    pair = {one.split(":")[0], other.split(":")[0]}
    return pair in ({"body", "orelse"}, {"case"}, {"try", "handler"}, {"handler"}, {"handler", "try-else"})


def literal(test: ast.expr) -> tuple[str, bool, frozenset[str]]:
    """A test's canonical form ("" when radpatch does not compare it), whether the test is that form
    (True) or its negation, and the names it reads."""
    truth = True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, truth = test.operand, not truth
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _NEGATED:
        op = _NEGATED[type(test.ops[0])]
        test, truth = ast.Compare(test.left, [op()], test.comparators), not truth
    if not _plain(test):
        return "", truth, frozenset()
    names = frozenset(n.id for n in ast.walk(test) if isinstance(n, ast.Name))
    return ast.dump(test), truth, names


_PLAIN = (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Tuple, ast.Compare, ast.BoolOp, ast.UnaryOp)
_PARTS = (ast.expr_context, ast.cmpop, ast.boolop, ast.unaryop)


def _plain(test: ast.expr) -> bool:
    """Reads names, attributes, subscripts and constants only, and compares them: no call, no walrus."""
    return all(isinstance(n, _PLAIN + _PARTS) for n in ast.walk(test))
