"""A hand edit of a file under a stack of recorded patches: the drifted detail of every entry under
the top names what changed since the stack's last patch wrote the file (the definition edited by
hand, by qualified name), never what the recorded patches above it changed (att20b F1). Generated:
the scope edited by hand, and how many entries are stacked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lib.generated import sample
from tests.lib.site import Site

SOURCE = """\
    class Engine:
        def start(self):
            return 1

        def stop(self):
            return 2

        def awake(self):
            return 3


    class Proc(Engine):
        def run(self):
            return 4

        def idle(self):
            return 5


    def helper():
        return 6
    """
# each entry: the scope it rewrites, what it finds there, what it writes; stacked in this order
STACK = [
    ("Engine.start", "return 1", "return 10"),
    ("Proc.run", "return 4", "return 40"),
    ("helper", "return 6", "return 60"),
]
# the second entry's alternative: it rewrites the line the first one wrote (the first no longer
# reads as applied on its own, only the stack's result says what was someone's edit)
RESTACKED = ("Engine.start", "return 10", "return 11")
# scopes no entry touches, and the line a hand edit changes in each
UNTOUCHED = {"Engine.awake": "return 3", "Proc.idle": "return 5", "Engine.stop": "return 2"}


def entry(i: int, on_lower: bool = False) -> str:
    scope, find, with_ = RESTACKED if on_lower and i == 1 else STACK[i]
    requires = f"requires: [e{i - 1}]\n" if i else ""
    return (
        f'summary: entry {i}\ndescription: rewrites {scope}\ndistribution: stk\nsupported: ">=1.0,<2"\n{requires}'
        f"modules:\n  m: stk.mod\nrewrites:\n  - id: r{i}\n"
        f"    replace: {{scope: {scope}, find: {find}, with: {with_}}}\n"
    )


@pytest.mark.parametrize(
    ("depth", "edited", "on_lower"), sample([(d, e, o) for d in (2, 3) for e in UNTOUCHED for o in (False, True)])
)
def test_a_hand_edit_under_a_stack_is_named_alone(
    site: Site, write_registry: Callable[..., Path], radpatch: Any, depth: int, edited: str, on_lower: bool
) -> None:
    site.install("stk", "1.0", {"stk/__init__.py": "", "stk/mod.py": SOURCE})
    regs = [
        arg
        for i in range(depth)
        for arg in ("--registry", str(write_registry(f"e{i}", entry(i, on_lower), dirname=f"r{i}")))
    ]
    names = [f"e{i}" for i in range(depth)]
    assert radpatch(*regs, "apply", *names).code == 0
    mod = site.root / "stk" / "mod.py"
    line = UNTOUCHED[edited]
    text = mod.read_text()
    assert text.count(line) == 1
    mod.write_text(text.replace(line, line + " + 0"))

    got = {s["patch"]: s for s in json.loads(radpatch(*regs, "status", "--json", *names).out)}

    assert radpatch(*regs, "status", "--check", *names).code == 3
    for name in names[:-1]:  # every entry under the top
        assert got[name]["state"] == "drifted", got[name]
        reason = got[name]["reason"]
        assert f"edited since radpatch patched it: {edited} changed" in reason, reason
        for scope, _, _ in [*STACK, RESTACKED]:  # what the recorded patches wrote is not someone's edit
            assert scope not in reason and scope.split(".")[0] + "," not in reason, reason
