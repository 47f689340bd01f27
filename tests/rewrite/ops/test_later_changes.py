"""An edit of a literal that a later statement of its scope undoes (att51 #4): `CFG = {"timeout": 1}`
then `CFG["timeout"] = 2`, set_item timeout 1 -> 10 was applied and `status --check` passed, but the
module still ended with 2; `FLAGS[:] = ["a"]` after the list, add_element "c", likewise.

Generated: the literal and the edit (a dict entry changed, added or taken away; a list or set
element added, after another, or taken away) x the later statement (a subscript stored, augmented
or deleted, with the same key, another one or one the text cannot tell; a method that changes the
literal, with the same key or element, another one, or that only reads it; under an `if`) x the
scope (the module, a class body); and seeded pairs of later statements. later53: the statement
through another name (`ALIAS = CFG`) and in a function of the module the literal is passed to
(`_fill(CFG)`), and a function from elsewhere or one that only reads (applied). The oracle imports the
original and the patched module in a subprocess and compares the value the name ends with: the
rewrite is refused exactly where the two are equal (or the patched module fails to import); it
may refuse where they differ only when a later statement is one radpatch reads conservatively
(`MAY`: a list's positions), and applies otherwise."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from tests.lib.blocks import indent
from tests.lib.generated import sample, seeds
from tests.lib.later_edits import ADDED, EDITS, NAMES, REMOVED, element, item, module
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

LATER = {
    "dict": [
        'CFG["timeout"] = 2',
        'CFG["retries"] = 4',
        'CFG["new"] = 6',
        'CFG["timeout"] += 5',
        'del CFG["timeout"]',
        'del CFG["retries"]',
        'CFG.update({"timeout": 7})',
        "CFG.update(timeout=7)",
        'CFG.update({"retries": 7}, other=1)',
        "CFG.update(new=7)",
        'CFG.pop("timeout", None)',
        'CFG.pop("retries")',
        'CFG.setdefault("new", 9)',
        'CFG.setdefault("other", 9)',
        'x = CFG.get("timeout")',
        "CFG.clear()",
        'k = "timeout"\nCFG[k] = 3',
        'k = "other"\nCFG[k] = 3',
        'k = "other"\nif CFG:\n    k = "timeout"\nCFG[k] = 3',  # bound twice: may be the key
        'k = "other"\nif CFG:\n    k = "alt"\nCFG[k] = 3',  # bound twice, never the key (later2)
        'k = "other"\nfor k in ["timeout"]:\n    pass\nCFG[k] = 3',  # bound by a loop: may be the key
        'k = "other"\nglobals()["k"] = "timeout"\nCFG[k] = 3',  # att56 F9: a store radpatch does not read
        'import sys\nk = "other"\nsys.modules[__name__].k = "timeout"\nCFG[k] = 3',
        'import sys\nk = "other"\nsetattr(sys.modules[__name__], "k", "timeout")\nCFG[k] = 3',  # a setattr keyed "k"
        'import sys\nk = "other"\nn = "k"\nsetattr(sys.modules[__name__], n, "timeout")\nCFG[k] = 3',
        'for CFG["timeout"] in [5]:\n    pass',
        'if len(CFG) > 1:\n    CFG["timeout"] = 2',
        'class _D:\n    CFG["timeout"] = 2',  # att52 #2b: a class body runs at once
        "def _r(k=CFG.update(timeout=2)):\n    pass",  # att52 #2c: a default runs where the def is
        'def _h():\n    CFG["timeout"] = 2',  # a body that does not run: the edit stays
        # later53: through another name, and a function of the module the dict is passed to
        'ALIAS = CFG\nALIAS["timeout"] = 2',
        "ALIAS = CFG\nALIAS.update(timeout=2)",
        'ALIAS = CFG\nA2 = ALIAS\ndel A2["retries"]',
        'ALIAS = CFG\nALIAS["other"] = 2',
        'def _fill(d):\n    d["timeout"] = 2\n_fill(CFG)',
        "def _fill(d, e=None):\n    d.update(retries=5)\n_fill(e=0, d=CFG)",
        'def _fill(d):\n    d.pop("retries", None)\nx = _fill(CFG)',
        'def _read(d):\n    return d.get("timeout")\nx = _read(CFG)',
        'def _fill(d):\n    d["other"] = 2\n_fill(CFG)',
        "x = sorted(CFG)",  # a function from elsewhere: not read (it only reads here)
    ],
    "list": [
        'FLAGS[:] = ["a"]',
        'FLAGS.append("d")',
        'FLAGS.extend(["c"])',
        'FLAGS.insert(0, "z")',
        'FLAGS.append("b")',  # att52 #2a: puts a removed element back
        'FLAGS.insert(1, "b")',
        'FLAGS.extend(("b",))',
        'FLAGS.remove("a")',
        'FLAGS.remove("b")',
        "FLAGS.pop()",
        "FLAGS.sort()",
        "FLAGS.reverse()",
        'FLAGS[0] = "z"',
        "del FLAGS[0]",
        "FLAGS.clear()",
        'x = FLAGS.count("a")',
        'if FLAGS:\n    FLAGS[:] = ["a"]',
        "@(FLAGS.clear() or (lambda f: f))\ndef _g():\n    pass",  # a decorator runs where the def is
        'ALIAS = FLAGS\nALIAS.append("b")',
        'ALIAS = FLAGS\nALIAS.insert(0, "c")',
        'ALIAS = FLAGS\nALIAS[:] = ["a"]',
        'ALIAS = FLAGS\nALIAS.append("d")',
        'def _fill(xs):\n    xs.extend(["b", "c"])\n_fill(FLAGS)',
        'def _fill(xs):\n    xs.remove("c")\n_fill(FLAGS)',
        'def _show(xs):\n    return xs.count("a")\nx = _show(FLAGS)',
    ],
    "set": [
        'S.add("c")',
        'S.add("d")',
        'S.discard("c")',
        'S.discard("a")',
        'S.remove("b")',
        'S.update({"c"})',
        'S.update(["d"])',
        'S.difference_update({"b"})',
        'S.intersection_update({"a", "b", "c"})',
        "S.clear()",
        'x = S.union({"z"})',
        'if S:\n    S.add("c")',
        'class _E:\n    S.add("c")',
        'f = lambda s=S.discard("c"): s',
        'ALIAS = S\nALIAS.discard("c")',
        'ALIAS = S\nALIAS.add("b")',
        'ALIAS = S\nALIAS.add("z")',
        'def _fill(s):\n    s.add("b")\n    s.discard("c")\n_fill(S)',
        'def _fill(s):\n    s.add("z")\n_fill(S)',
        'S.intersection_update({"a", "c"})',
    ],
}
# later statements radpatch cannot prove harmless from the text, and refuses: a list's positions
# (a key held in a name the scope binds once to a constant is that constant: later53)
MAY = {
    'FLAGS[0] = "z"',
    "del FLAGS[0]",
    "FLAGS.pop()",
}
MAY |= {'FLAGS.remove("a")'}  # a key bound twice, each time to a constant, is one of them: exact (later2)
MAY |= {'k = "other"\nfor k in ["timeout"]:\n    pass\nCFG[k] = 3'}  # a loop's variable: any key
# a key variable a store radpatch does not read may rebind (in a class body the module's `k` is another name)
MAY |= {'k = "other"\nglobals()["k"] = "timeout"\nCFG[k] = 3'}
MAY |= {'import sys\nk = "other"\nsys.modules[__name__].k = "timeout"\nCFG[k] = 3'}
MAY |= {'import sys\nk = "other"\nsetattr(sys.modules[__name__], "k", "timeout")\nCFG[k] = 3'}
MAY |= {'import sys\nk = "other"\nn = "k"\nsetattr(sys.modules[__name__], n, "timeout")\nCFG[k] = 3'}
# a list's positions changed by plain top-level statements alone are replayed (rewrite.list_replay,
# later2 #2): exact on their own; beside a statement that cannot be replayed (an alias) still MAY
REPLAYED = {'FLAGS[0] = "z"', "del FLAGS[0]", "FLAGS.pop()", 'FLAGS.remove("a")'}
# a store under a test, refused whether or not the test holds once an earlier statement ran (flow is not read)
MAY |= {'if len(CFG) > 1:\n    CFG["timeout"] = 2', 'if FLAGS:\n    FLAGS[:] = ["a"]', 'if S:\n    S.add("c")'}
SCOPES = ("<module>", "K")


def outcome(tmp: Path, edit: str, later: list[str], scope: str) -> tuple[bool | None, str | None]:
    """(the oracle's effect, radpatch's refusal or None when it applies)."""
    kind, make = EDITS[edit]
    before = module(kind, later, scope)
    patch = patch_of(make(scope))
    try:
        change = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode())
    except RefusedError as exc:
        refused: str | None = exc.message
        # what the edit alone gives: the later statements left out of the original, put back after
        patched = _alone(before, kind, make, scope, later)
    else:
        refused, patched = None, change.after.decode()
    return took_effect(tmp, before, patched, NAMES[kind], REMOVED.get(edit), ADDED.get(edit)), refused


def _alone(before: str, kind: str, make: object, scope: str, later: list[str]) -> str:
    """The module with the edit made as the literal alone takes it, then the later statements."""
    patch = patch_of(make(scope))  # type: ignore[operator]
    bare = module(kind, [], scope)
    edited = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), bare.encode()).after.decode()
    tail = "".join(s + "\n" for s in later)
    return edited + (tail if scope == "<module>" else indent(tail, "    "))


def check(tmp: Path, edit: str, later: list[str], scope: str, may: set[str] = MAY) -> None:
    took, refused = outcome(tmp, edit, later, scope)
    if took is None:
        return  # the original module does not import: no value to compare
    if not took:
        assert refused is not None, f"applied, but the module ends with the same value: {later}"
        assert "changes" in refused and "may not be what the module keeps" in refused
    elif not may & set(later):
        assert refused is None, f"refused, but the edit takes effect: {refused}"


SINGLES = sample(
    [(e, s, sc) for e in EDITS for s in LATER[EDITS[e][0]] for sc in SCOPES],
)


@pytest.mark.parametrize(
    ("edit", "later", "scope"), SINGLES, ids=[f"{e}-{i}-{sc}" for i, (e, _, sc) in enumerate(SINGLES)]
)
def test_refused_exactly_where_a_later_statement_undoes_the_edit(
    tmp_path: Path, edit: str, later: str, scope: str
) -> None:
    check(tmp_path, edit, [later], scope, MAY - REPLAYED)


@pytest.mark.parametrize("seed", seeds(40))
def test_pairs_of_later_statements(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    edit = rng.choice(sorted(EDITS))
    later = rng.sample(LATER[EDITS[edit][0]], 2)
    check(tmp_path, edit, later, rng.choice(SCOPES))


def test_the_reported_cases_are_refused() -> None:
    """att51 c28 and c37 as reported."""
    c28 = 'CFG = {\n    "timeout": 1,\n    "retries": 3,\n}\nCFG["timeout"] = 2\n'
    patch = patch_of(item("<module>", key='"timeout"', from_="1", value="10"))
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), c28.encode())
    assert "line 5 (`CFG['timeout']`) changes CFG after line 1 binds it" in info.value.message
    patch = patch_of(element("<module>", kind="list", element='"c"'))
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), b'FLAGS = ["a", "b"]\nFLAGS[:] = ["a"]\n')
    assert "line 2 (`FLAGS[:]`) changes FLAGS" in info.value.message


def test_a_function_of_the_module_is_named_by_the_call_that_runs_it() -> None:
    """later53: the refusal names the line that passes the dict on, not a line of the function's body."""
    text = 'CFG = {"timeout": 1}\n\n\ndef _fill(d):\n    d["timeout"] = 2\n\n\n_fill(CFG)\n'
    patch = patch_of(item("<module>", key='"timeout"', from_="1", value="10"))
    with pytest.raises(RefusedError) as info:
        plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), text.encode())
    assert "line 8 (`_fill(CFG)`) changes CFG after line 1 binds it" in info.value.message
