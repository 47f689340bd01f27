"""The if/match/try constructs that bind `y` on some paths (or all), shared by the bound-on-some-paths
families (tests/prove/test_branch_only_bindings*), and what the names step refuses of a change."""

from __future__ import annotations

from radpatch.prove import names
from radpatch.prove.names_check import introduced

CONSTRUCTS = {
    "match-one-arm": "match x:\n    case 1:\n        y = 1\n    case _:\n        pass\n",
    "match-no-wildcard": "match x:\n    case 1:\n        y = 1\n    case 2:\n        y = 2\n",
    "match-all": "match x:\n    case 1:\n        y = 1\n    case _:\n        y = 2\n",
    "match-capture": "match x:\n    case 1 | 2:\n        y = x\n    case other:\n        y = other\n",
    "match-capture-only-in-arm": "match [x]:\n    case [1 as y]:\n        pass\n    case _:\n        pass\n",
    "match-guarded-wildcard": "match x:\n    case 1:\n        y = 1\n    case _ if x > 1:\n        y = 2\n",
    "match-raises": "match x:\n    case 1:\n        y = 1\n    case _:\n        raise ValueError(x)\n",
    "if-no-else": "if x == 1:\n    y = 1\n",
    "if-else": "if x == 1:\n    y = 1\nelse:\n    y = 0\n",
    "elif": "if x == 1:\n    y = 1\nelif x == 2:\n    y = 2\n",
    "elif-else": "if x == 1:\n    y = 1\nelif x == 2:\n    y = 2\nelse:\n    y = 0\n",
    "try-one": "try:\n    y = 10 // x\nexcept ZeroDivisionError:\n    pass\n",
    "try-both": "try:\n    y = 10 // x\nexcept ZeroDivisionError:\n    y = 0\n",
    "nested": (
        "if x:\n    match x:\n        case 1:\n            y = 1\n        case _:\n            y = 2\n"
        "else:\n    y = 0\n"
    ),
    "nested-unsafe": "if x:\n    match x:\n        case 1:\n            y = 1\nelse:\n    y = 0\n",
    "bound-before": "y = 0\nmatch x:\n    case 1:\n        y = 1\n",
}


def refused(before: str, after: str) -> list[names.Problem]:
    found = introduced(before.encode(), after.encode()) or []
    return [p for p in found if p.kind == names.MAYBE_UNBOUND]
