"""set_constant of a dict, list or set display undone by a later statement (att51 #4, set_constant's
case): `LIMITS = {"a": 1, "b": 2}` changed to `{"a": 5, "b": 2}`, then `LIMITS["a"] = 3`: the change
has no effect on the value the module keeps.

Generated: the change (a dict entry's value changed, a key added, a key taken away; a list's or
set's element added or taken away) x the later statement (the key or element the change is about,
another, a method that only reads, one that empties the collection; later53: a list only reordered
and then sorted, the statement through another name or in a function of the module the value is
passed to; att56 F8: run through an alias, `map`, a lambda, a decorator) x whether it sits under an
`if`.
The oracle imports the original and the patched module in a subprocess and compares the name's
final value: refused exactly where the two are equal (or the patched module fails to import);
applied wherever they differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

CHANGES = {
    "dict change": ("C", '{"a": 1, "b": 2}', '{"a": 5, "b": 2}'),
    "dict add": ("C", '{"a": 1, "b": 2}', '{"a": 1, "b": 2, "c": 7}'),
    "dict remove": ("C", '{"a": 1, "b": 2}', '{"a": 1}'),
    "list add": ("L", '["x"]', '["x", "y"]'),
    "list remove": ("L", '["x", "y"]', '["x"]'),
    "list reorder": ("L", '["y", "x", "z"]', '["x", "z", "y"]'),  # later53: a sort puts the elements back
    "set add": ("S", '{"x"}', '{"x", "y"}'),
    "set remove": ("S", '{"x", "y"}', '{"x"}'),
}
LATER = {
    "C": [
        'C["a"] = 3',
        'ALIAS = C\nALIAS["a"] = 3',
        "def _fill(d):\n    d.update(a=3)\n_fill(C)",
        'C["b"] = 3',
        'C["c"] = 3',
        'del C["a"]',
        "C.update(b=4)",
        "C.update(c=4)",
        'x = C.get("a")',
        "C.clear()",
        # att56 F8: a function run at import through an alias, `map`, a lambda, a decorator; a twin
        "def _fill(d):\n    d.update(a=3)\nrun = _fill\nrun(C)",
        "def _fill(d):\n    d.update(a=3)\nlist(map(_fill, [C]))",
        "def _fill(d):\n    d.update(q=3)\nlist(map(_fill, [C]))",
        "_fill = lambda d: d.update(a=3)\n_fill(C)",
        'def _reg(fn):\n    C["a"] = 3\n    return fn\n@_reg\ndef h():\n    pass',
    ],
    "L": [
        'L.append("z")',
        'L.remove("x")',
        "L.clear()",
        'L[:] = ["x"]',
        'x = L.count("y")',
        "L.sort()",
        "L.sort(reverse=True)",
        "L.reverse()",
        "L = sorted(L)",
        "ALIAS = L\nALIAS.sort()",
        'ALIAS = L\nALIAS.append("q")',
        "def _tidy(xs):\n    xs.sort()\n_tidy(L)",
        "def _count(xs):\n    return len(xs)\nn = _count(L)",
    ],
    "S": ['S.add("y")', 'S.discard("y")', 'S.add("z")', 'S.discard("x")', "S.clear()", 'x = S.union({"q"})'],
}
# set_constant refuses a name bound twice (whatever the second binding does); a remove after a
# reorder may leave the rest in the old order (the text does not tell, and radpatch refuses)
MAY = {"L = sorted(L)", 'L.remove("x")'}
CASES = sample([(c, s, g) for c in CHANGES for s in LATER[CHANGES[c][0]] for g in (False, True)])


@pytest.mark.parametrize(
    ("change", "later", "guarded"), CASES, ids=[f"{c}-{i}-{g}" for i, (c, _, g) in enumerate(CASES)]
)
def test_refused_exactly_where_a_later_statement_undoes_the_constant(
    tmp_path: Path, change: str, later: str, guarded: bool
) -> None:
    name, old, new = CHANGES[change]
    tail = ("if True:\n" + indent(later + "\n", "    ")) if guarded else later + "\n"
    before = f"{name} = {old}\n{tail}"
    patch = patch_of(SetConstant(name, new, old))
    try:
        after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after.decode()
        refused = None
    except RefusedError as exc:
        after, refused = f"{name} = {new}\n{tail}", exc.message
    took = took_effect(tmp_path, before, after, name)
    if took is None:
        return  # the original module does not import
    if not took:
        assert refused is not None and (f"changes {name} after line 1" in refused or later in MAY), later
    elif later not in MAY or (later == 'L.remove("x")' and change != "list reorder"):
        assert refused is None, refused
