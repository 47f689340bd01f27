"""set_default and set_bases undone by a later statement of the module (issue 21, later53 item 4):
`def f(a=1)` changed to `a=5`, then `f.__defaults__ = (7,)`, or `class C(A)` changed to `C(A, B)`,
then `C.__bases__ = (A,)`: the change has no effect on what the module keeps, and was applied.

Generated: the edit (set_default of a positional parameter, of a keyword-only one; set_bases) x the
later statement (the attribute that holds the change stored, deleted, changed in place, through
setattr, through another name, in a function of the module the definition is passed to, also one
run through an alias, `map` or a decorator, att56 F8; another
attribute; a read; an augmented store). The oracle (tests/lib/later_values) imports the original
and the patched module and compares the function's `__defaults__` and `__kwdefaults__` or the
class's bases: refused exactly where they are equal; applied where they differ, but for a later
change of another keyword-only default (`MAY`: radpatch reads `__kwdefaults__` changed as a whole)."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.registry.model import Operation
from radpatch.rewrite.ops.set_bases import SetBases
from radpatch.rewrite.ops.set_default import SetDefault
from tests.lib.generated import sample
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

DEF = "def f(a=1, *, b=2, c=3):\n    return a, b, c\n\n\n"
CLASSES = "class A:\n    pass\n\n\nclass B:\n    pass\n\n\nclass C(A):\n    pass\n\n\n"
EDITS: dict[str, tuple[str, Operation, str, str]] = {
    "positional default": (DEF, SetDefault("f", "a", "1", "5"), "a=1", "a=5"),
    "keyword-only default": (DEF, SetDefault("f", "b", "2", "5"), "b=2", "b=5"),
    "bases": (CLASSES, SetBases("C", "C(A)", "C(A, B)"), "class C(A)", "class C(A, B)"),
}
FUNCTION = [
    "f.__defaults__ = (7,)",
    'setattr(f, "__defaults__", (7,))',
    "f.__defaults__ += (0,)",
    'f.__kwdefaults__ = {"b": 7, "c": 3}',
    'f.__kwdefaults__["b"] = 7',
    "f.__kwdefaults__.update(b=7)",
    'del f.__kwdefaults__["b"]',
    'f.__kwdefaults__["c"] = 7',
    "g = f\ng.__defaults__ = (7,)",
    'g = f\ng.__kwdefaults__["b"] = 7',
    "def _reset(fn):\n    fn.__defaults__ = (7,)\n_reset(f)",
    'def _reset(fn):\n    fn.__kwdefaults__.pop("b")\n_reset(f)',
    "x = f.__defaults__",
    'f.__doc__ = "x"',
    "x = repr(f)",
    # att56 F8: run at import through an alias, `map`, a decorator; a twin setting another attribute
    "def _reset(fn):\n    fn.__defaults__ = (7,)\nrun = _reset\nrun(f)",
    "def _reset(fn):\n    fn.__defaults__ = (7,)\nlist(map(_reset, [f]))",
    'def _reset(fn):\n    fn.__doc__ = "x"\nlist(map(_reset, [f]))',
    "def _reg(g):\n    f.__defaults__ = (7,)\n    return g\n@_reg\ndef h():\n    pass",
]
CLASS = [
    "C.__bases__ = (A,)",
    "C.__bases__ = (B,)",
    'setattr(C, "__bases__", (A,))',
    "D = C\nD.__bases__ = (A,)",
    "def _rebase(cls):\n    cls.__bases__ = (A,)\n_rebase(C)",
    "C.x = 1",
    "x = C.__bases__",
    "def _show(cls):\n    return cls.__name__\nx = _show(C)",
    "def _rebase(cls):\n    cls.__bases__ = (A,)\nlist(map(_rebase, [C]))",  # att56 F8
]
MAY = {'f.__kwdefaults__["c"] = 7'}

CASES = sample([(e, s) for e in EDITS for s in (CLASS if e == "bases" else FUNCTION)])


@pytest.mark.parametrize(("edit", "later"), CASES)
def test_refused_exactly_where_a_later_statement_undoes_the_definition_change(
    tmp_path: Path, edit: str, later: str
) -> None:
    head, op, was, now = EDITS[edit]
    before = head + later + "\n"
    patch = patch_of(op)
    try:
        after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after.decode()
        refused = None
    except RefusedError as exc:
        after, refused = before.replace(was, now, 1), exc.message
    name = "C" if edit == "bases" else "f"
    took = took_effect(tmp_path, before, after, name)
    if took is None:
        return  # the original module does not import
    if not took:
        assert refused is not None, f"applied, but the module ends with the same value: {later}"
        assert "after line" in refused and "may not be what the module keeps" in refused, refused
    elif later not in MAY:
        assert refused is None, refused
