"""add_element/remove_element (and set_item) change the display a name is bound to once in its scope.
"Bound once" counted assignments and imports only (attack39 L3): `X: list` with no value counted
as a second binding (refused), while a `for X in ...`, `with ... as X`, `except ... as X`, a `case
X:` capture, `X := ...` (also in a comprehension), `del X` or a `global X` function's assignment
were not counted (the rewrite applied, naming a display X does not hold when the module has run).
The rule is now one (rewrite.name_bindings), asked by the op and by the importer.

Generated: binding kind (every way Python binds a name, and the ways that look like one and are
not: an annotation with no value, a comprehension's target, a nested function's local, a lambda's
parameter, a class attribute, a star import, `global X` that only reads) x position (before the
display, after it, in an `if` block, in a `try`) x scope (module, class, function). The oracle is
Python running the code: with the display's statement replaced by a sentinel, does anything else
in the scope bind X when it runs? Where it does, the import writes no add_element (a `replace`)
and the op, written by hand, is refused naming the lines; where nothing does, the import writes
add_element, the engine's result is the patched bytes, and X holds the patched display's value
when the module runs. A batch (where the change is not dead code apply's proof refuses) goes
through `radpatch import`, apply, `status --check` and revert against GNU patch."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from functools import cache
from pathlib import Path

import pytest

from radpatch.importing.rewrites import rewrites
from radpatch.rewrite.ops.set_element import SetElement
from tests.lib.generated import sample
from tests.lib.importing import assert_each_imported_as_gnu_patch
from tests.lib.rewrites import check, refusal

# kind: code (X names the display's variable); which scopes it is valid in
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "assign": ("X = (7,)", ("module", "class", "function")),
    "tuple target": ("X, Y = 6, 7", ("module", "class", "function")),
    "annotated value": ("X: tuple = (7,)", ("module", "class", "function")),
    "augmented": ("X += [9]", ("module", "class", "function")),
    "for": ("for X in range(2):\n    pass", ("module", "class", "function")),
    "with as": ("with contextlib.nullcontext(3) as X:\n    pass", ("module", "class", "function")),
    "except as": ("try:\n    raise ValueError\nexcept ValueError as X:\n    pass", ("module", "class", "function")),
    "match capture": ("match 3:\n    case X:\n        pass", ("module", "class", "function")),
    "walrus": ("(X := 4)", ("module", "function")),
    "walrus in comprehension": ("[(X := i) for i in range(2)]", ("module", "function")),
    "import as": ("import os as X", ("module", "class", "function")),
    "from import": ("from os import sep as X", ("module", "class", "function")),
    "del": ("del X", ("module", "class", "function")),
    "def": ("def X():\n    pass", ("module", "class", "function")),
    "class": ("class X:\n    pass", ("module", "class", "function")),
    "global assign": ("def g():\n    global X\n    X = 7\ng()", ("module", "class", "function")),
    "nonlocal assign": ("def g():\n    nonlocal X\n    X = 7\ng()", ("function",)),
    # not bindings of the scope's X
    "annotation only": ("X: list[int]", ("module", "class", "function")),
    "comprehension target": ("[X for X in range(2)]", ("module", "function")),
    "nested local": ("def g():\n    X = 7\ng()", ("module", "class", "function")),
    "lambda parameter": ("g = lambda X: X", ("module", "class", "function")),
    "class attribute": ("class C:\n    X = 7", ("module", "class", "function")),
    "global read": ("def g():\n    global X\n    return X", ("module", "class", "function")),
    "star import": ("from os.path import *", ("module",)),
}
POSITIONS = ("before", "after", "if", "try")
SCOPES = ("module", "class", "function")
READS_FIRST = ("augmented", "del", "global read")  # need X bound before they run
# a star import after the display: apply's names proof refuses any change of X there (it cannot
# tell what the star binds), an `import` refusal of its own; only before it here
DISPLAY = "X = [1, 2]"
PATCHED = "X = [1, 2, 5]"


def module(kind: str, position: str, scope: str, display: str, first: str = "") -> str:
    code = KINDS[kind][0]
    if position == "if":
        code = "if True:\n" + textwrap.indent(code, "    ")
    elif position == "try":
        code = "try:\n" + textwrap.indent(code, "    ") + "\nfinally:\n    pass"
    body = [*([first] if first else []), *([code, display] if position == "before" else [display, code])]
    text = "\n".join(body) + "\n"
    head = {"module": "", "class": "class K:\n", "function": "def f():\n"}[scope]
    tail = {"module": "", "class": "", "function": "    return X\n"}[scope]
    if scope != "module":
        text = textwrap.indent(text, "    ")
    return f"import contextlib\nimport os\n\n{head}{text}{tail}\nY = 1\n"


CASES = sample(
    [
        (k, p, s)
        for k, p, s in itertools.product(KINDS, POSITIONS, SCOPES)
        if s in KINDS[k][1] and not (p == "before" and k in READS_FIRST) and not (p != "before" and k == "star import")
    ]
)
SCOPE_NAME = {"module": "<module>", "class": "K", "function": "f"}
SENTINEL = "class _S:\n    def __iadd__(self, other):\n        return object()\nS = _S()\n"
RUNNER = """
import json, sys
out = []
for src in json.loads(sys.stdin.read()):
    ns = {"__name__": "m", "__file__": "m.py"}
    exec(compile(src, "m.py", "exec"), ns)
    x = ns["X"] if "X" in ns and "K" not in ns and "f" not in ns else None
    if "K" in ns:
        x = ns["K"].__dict__.get("X", ns.get("_radpatch_missing"))
    if "f" in ns:
        try:
            x = ns["f"]()
        except NameError:
            x = None
    out.append([x is ns["S"], repr(x)])
print(json.dumps(out))
"""


@cache
def _run_all() -> dict[tuple[str, str, str], tuple[bool, str]]:
    """Per case, in one interpreter: (X bound to S, a sentinel, where the scope starts and the display
    replaced by `pass`: X is still S when the scope has run, i.e. nothing else binds it; the patched
    module's X)."""
    sources = []
    for c in CASES:  # S: `S += [9]` gives another object, as `X += [9]` rebinds X
        sentinel = module(*c, display="pass", first="X = S").replace("import os\n", "import os\n" + SENTINEL, 1)
        sources += [sentinel, module(*c, display=PATCHED).replace("import os\n", "import os\n" + SENTINEL, 1)]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER], input=json.dumps(sources), capture_output=True, text=True, check=True
    )
    got = json.loads(done.stdout)
    return {c: (got[2 * n][0], got[2 * n + 1][1]) for n, c in enumerate(CASES)}


@pytest.mark.parametrize(("kind", "position", "scope"), CASES)
def test_a_display_is_changed_by_element_where_nothing_else_binds_its_name(
    kind: str, position: str, scope: str
) -> None:
    before, after = module(kind, position, scope, DISPLAY), module(kind, position, scope, PATCHED)
    alone, value = _run_all()[(kind, position, scope)]
    found = rewrites(before, after)
    op = SetElement(SCOPE_NAME[scope], "X", "5")
    if alone:  # nothing else binds X: the display is what X holds
        assert [s.op for s in found.steps] == ["add_element"], found.steps
        assert value == "[1, 2, 5]", value  # running the patched module, X holds the display with 5
        check(before, op, after)
    else:
        assert "add_element" not in {s.op for s in found.steps}, found.steps
        message = refusal(before, op)
        assert "binds X 2 times (lines " in message, message


@pytest.mark.wheel
def test_bound_once_apply_as_gnu_patch_gives(tmp_path: Path) -> None:
    # a rebinding after the display at module or class level makes the change dead code: apply's
    # placement proof refuses any rewrite of it there (the value that runs is the later one), so
    # import refuses too; those are left to the engine-level test above
    runs = [c for c in CASES if _run_all()[c][0] or c[1] == "before" or c[2] == "function"]
    batch = runs[::4]
    pairs = [(module(*c, display=DISPLAY), module(*c, display=PATCHED)) for c in batch]
    assert_each_imported_as_gnu_patch(tmp_path, pairs, batch)
