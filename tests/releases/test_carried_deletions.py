"""A change made only of deletions is carried by a release only on positive evidence.

The base's `Worker.warm` calls `freeze()` between two other statements; the entry deletes the call.
Releases are generated: the scope kept as it was, emptied, or turned into a call of a helper (that
still calls `freeze()`, or not), with or without the call in the scope, with or without a copy of
it elsewhere in the module, with an unrelated upstream change or not. The reference: upstream
removed the call exactly when the scope still runs its neighbours, lacks the call, and the module
runs no copy of it that the base did not have.
"""

from __future__ import annotations

import itertools

from radpatch.releases import carried
from radpatch.releases.compared import Compared

BASE = """\
def other():
    return 1


class Worker:
    def warm(self):
        prepare()
        freeze()
        report()
"""
AFTER = BASE.replace("        freeze()\n", "")


def release(scope: str, call: bool, elsewhere: bool, extra: bool) -> str:
    body = {
        "kept": ["prepare()", *(["freeze()"] if call else []), "report()"],
        "emptied": [*(["freeze()"] if call else []), "pass"],
        "helper-calls": ["return self._warm()"],
        "helper-lacks": ["return self._warm()"],
    }[scope]
    if extra:
        body.append("done = True")
    out = "def other():\n" + ("    freeze()\n" if elsewhere else "") + "    return 1\n\n\nclass Worker:\n"
    out += "    def warm(self):\n" + "".join(f"        {s}\n" for s in body)
    if scope.startswith("helper"):
        freeze = "        freeze()\n" if scope == "helper-calls" else ""
        out += "\n    def _warm(self):\n        prepare()\n" + freeze + "        report()\n"
    return out


def test_a_deletion_is_carried_only_where_the_scope_kept_its_neighbours_and_no_copy_runs_elsewhere() -> None:
    seen = {True: 0, False: 0}
    for scope, call, elsewhere, extra in itertools.product(
        ("kept", "emptied", "helper-calls", "helper-lacks"), (True, False), (True, False), (True, False)
    ):
        source = release(scope, call, elsewhere, extra)
        compile(source, scope, "exec")
        expected = scope == "kept" and not call and not elsewhere
        got = carried.carries(Compared(BASE.encode(), AFTER.encode(), source.encode()))
        assert got is expected, (scope, call, elsewhere, extra)
        seen[expected] += 1
    assert seen[True] == 2 and seen[False] == 30  # the reference is not one answer


def test_a_deletion_beside_an_insertion_elsewhere_still_needs_its_own_evidence() -> None:
    base = BASE
    after = AFTER.replace("    return 1\n", "    return 2\n")  # and another scope's statement changed
    helper = release("helper-calls", False, False, False).replace("    return 1\n", "    return 2\n")
    kept = release("kept", False, False, False).replace("    return 1\n", "    return 2\n")
    assert not carried.carries(Compared(base.encode(), after.encode(), helper.encode()))
    assert carried.carries(Compared(base.encode(), after.encode(), kept.encode()))


def test_a_removed_call_still_made_elsewhere_with_other_arguments_is_not_carried() -> None:
    base = "def groups(cfg, spec):\n    out = plan(spec)\n    warn(cfg, out)\n    return out\n"
    after = base.replace("    warn(cfg, out)\n", "")
    kept = "def groups(cfg, spec):\n    out = plan(spec)\n    return out\n\n\n"
    moved = kept + "def plan(spec):\n    if spec:\n        warn(spec.cfg, [spec])\n"  # in a caller, other arguments
    gone = kept + "def plan(spec):\n    return [spec]\n"
    assert carried.carries(Compared(base.encode(), after.encode(), moved.encode())) is False
    assert carried.carries(Compared(base.encode(), after.encode(), gone.encode())) is True
