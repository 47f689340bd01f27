"""set_keyword on the call a name is bound to, undone by a later statement (att51 #4, the sibling
of set_item's case): `B = Box(timeout=1)` then `B.timeout = 2`, or `CFG = dict(timeout=1)` then
`CFG["timeout"] = 2`: a change of `timeout=` has no effect on the value the module keeps.

Generated: the call (an object whose keywords become its attributes, `dict(...)`) x the later
statement (the attribute or key stored, deleted, augmented, through setattr, another one, a read,
under an `if`; later53: through another name, in a function of the module the value is passed to;
att56 F8: in one run through an alias, `map`, a lambda, a decorator, an inner def) x
the scope (the module, a class body) x the edit (the keyword's value changed; later53: the keyword
added to the call passing none, or taken away). The oracle imports the original and the
patched module in a subprocess and compares what the name ends with (the object's attributes, the
dict): the rewrite is refused exactly where they are equal; where they differ it applies, unless
a later statement radpatch reads conservatively (`MAY`, now none)."""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from radpatch.rewrite.ops.set_keyword import SetKeyword
from tests.lib.blocks import indent
from tests.lib.generated import sample
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

BOX = (
    "class Box:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n\n"
    "    def setTimeout(self, v):\n        self.timeout = v\n\n"  # a setter method (att52 #2d: `T.setDaemon(True)`)
    "    def set_other(self, v):\n        self.other = v\n\n\n"
)
CALLS = {"object": ("Box", "", "B"), "dict": ("dict", "", "CFG")}
LATER = {
    "object": [
        "B.timeout = 2",
        "B.other = 2",
        "del B.timeout",
        'setattr(B, "timeout", 5)',
        'setattr(B, "other", 5)',
        "B.timeout += 1",
        'k = "other"\nsetattr(B, k, 3)',
        "x = B.timeout",
        "if B:\n    B.timeout = 2",
        "B.setTimeout(5)",
        "B.set_other(5)",
    ],
    "dict": [
        'CFG["timeout"] = 2',
        'CFG["other"] = 2',
        "CFG.update(timeout=3)",
        'del CFG["timeout"]',
        'CFG.pop("timeout")',
        'CFG["timeout"] += 1',
        'x = CFG.get("timeout")',
        'if CFG:\n    CFG["timeout"] = 2',
    ],
}
MAY: set[str] = set()  # later53: `k = "other"` / `setattr(B, k, 3)` reads k as the constant it is bound to
# later53: through another name, in a function of the module the object is passed to
LATER["object"] += ["ALIAS = B\nALIAS.timeout = 4", "def _fix(b):\n    b.setTimeout(4)\n_fix(B)", "x = repr(B)"]
LATER["dict"] += ['ALIAS = CFG\nALIAS["timeout"] = 4', 'def _fix(d):\n    d.setdefault("timeout", 4)\n_fix(CFG)']
# att56 F8: a function run at import by a route other than a call by its def's name (an alias, map,
# a lambda bound to a name, a decorator, an inner def), with a twin changing another attribute or key
LATER["object"] += [
    "def _fix(b):\n    b.timeout = 4\nrun = _fix\nrun(B)",
    "def _fix(b):\n    b.timeout = 4\nlist(map(_fix, [B]))",
    "def _fix(b):\n    b.other = 4\nlist(map(_fix, [B]))",
    '_fix = lambda b: setattr(b, "timeout", 4)\n_fix(B)',
    "def _reg(fn):\n    B.timeout = 4\n    return fn\n@_reg\ndef h():\n    pass",
]
LATER["dict"] += [
    'def _fix(d):\n    d["timeout"] = 4\nrun = _fix\nrun(CFG)',
    'def _fix(d):\n    d["timeout"] = 4\nlist(map(_fix, [CFG]))',
    'def _fix(d):\n    d["other"] = 4\nlist(map(_fix, [CFG]))',
    "_fix = lambda d: d.update(timeout=4)\n_fix(CFG)",
    'def _setup():\n    def inner():\n        CFG["timeout"] = 4\n    inner()\n_setup()',
]
SCOPES = ("<module>", "K")
# the keyword's value changed, added to the call passing none, taken away (later53: set_keyword's
# add and remove): (the call's keywords, the rewrite's from and to)
EDITS = {
    "change": ("timeout=1, other=0", "1", "10"),
    "add": ("other=0", None, "10"),
    "remove": ("other=0, timeout=1", "1", None),
}
# reads of the keyword a removal takes away: the patched module raises on import (no value to compare)
READS = {
    "B.timeout += 1",
    "x = B.timeout",
    'CFG["timeout"] += 1',
    'CFG.pop("timeout")',
    'del CFG["timeout"]',
    "del B.timeout",
}


def module(call: str, later: str, scope: str, edit: str = "change") -> str:
    callee, _, name = CALLS[call]
    text = f"{name} = {callee}({EDITS[edit][0]})\n" + later + "\n"
    return BOX + (text if scope == "<module>" else "class K:\n" + indent(text, "    "))


CASES = sample([(c, s, sc, e) for c in CALLS for s in LATER[c] for sc in SCOPES for e in EDITS])


@pytest.mark.parametrize(
    ("call", "later", "scope", "edit"), CASES, ids=[f"{c}-{i}-{sc}-{e}" for i, (c, _, sc, e) in enumerate(CASES)]
)
def test_refused_exactly_where_a_later_statement_undoes_the_keyword(
    tmp_path: Path, call: str, later: str, scope: str, edit: str
) -> None:
    callee, _, name = CALLS[call]
    if edit == "remove" and later in READS:
        return  # not a later change: the module no longer imports (the import check's to find)
    before = module(call, later, scope, edit)
    _, was, to = EDITS[edit]
    patch = patch_of(SetKeyword(scope=scope, call=callee, keyword="timeout", from_=was, to=to))
    try:
        after: str | None = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after.decode()
        refused = None
    except RefusedError as exc:
        after, refused = None, exc.message
    # what the edit alone gives, the later statement kept: the keyword changed in the text
    alone = {"change": "timeout=10, other=0", "add": "other=0, timeout=10", "remove": "other=0"}[edit]
    patched = after if after is not None else before.replace(f"({EDITS[edit][0]})", f"({alone})", 1)
    took = took_effect(tmp_path, before, patched, name, '"timeout"' if edit == "remove" else None)
    if took is None:
        return  # the original module does not import: no value to compare
    if not took:  # for a removal, also where a later statement gives the keyword's name back
        assert refused is not None, f"applied, but the module ends with the same value: {later}"
        assert f"changes {name} after line" in refused
    elif later not in MAY:
        assert refused is None, refused
