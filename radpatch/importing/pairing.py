"""Which statements of a block before and after a patch are the same one, unchanged (importing.rewrites'
Differ.block): the most statements equal on both sides, and among the ways to match that many, the
one that leaves the most statements between them pairing up as changed ones (shapes.ident: a call's
callee, an assignment's target), so that Differ.region says each change in place.

Why: where a block holds identical statements (`p.add(x=["a"])` three times) and the patch changes
some of them, difflib matches an unchanged statement of the after-block with the first of its twins.
The changed statements around it then read as one inserted and another deleted (an `insert_before`
and a `delete` counted with `occurrence:`, which apply refuses, or which leaves a marker comment)
instead of each changed in place, as the diff shows them and as GNU patch changes them.

difflib's matches stay wherever another match is not strictly better: more equal statements, or as
many and more of the rest paired. That other match: statements equal at both ends first, as diff
matches them, then a longest common subsequence weighted so that one more equal statement outweighs
any number of pairs (not computed for a block too large for its table, more than _CELLS).
"""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Sequence

Opcode = tuple[str, int, int, int, int]  # as difflib.SequenceMatcher.get_opcodes gives them
_CELLS = 400_000


def opcodes(
    before: Sequence[str], after: Sequence[str], bids: Sequence[Hashable], aids: Sequence[Hashable]
) -> list[Opcode]:
    """The opcodes turning `before` into `after` (statement keys; `bids`, `aids` their idents):
    difflib's, unless another match of as many equal statements pairs more of the rest."""
    found = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    plain: list[Opcode] = [(str(tag), i1, i2, j1, j2) for tag, i1, i2, j1, j2 in found]
    n, m = len(before), len(after)
    head = 0
    while head < min(n, m) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(n, m) - head and before[n - 1 - tail] == after[m - 1 - tail]:
        tail += 1
    mid = _matches(before[head : n - tail], after[head : m - tail], bids[head : n - tail], aids[head : m - tail])
    if mid is None:
        return plain
    pairs = [(k, k) for k in range(head)] + [(i + head, j + head) for i, j in mid]
    pairs += [(n - tail + k, m - tail + k) for k in range(tail)]
    paired = _as_opcodes(pairs, n, m)
    return paired if _score(paired, bids, aids) > _score(plain, bids, aids) else plain


def _score(ops: list[Opcode], bids: Sequence[Hashable], aids: Sequence[Hashable]) -> tuple[int, int]:
    """How many statements `ops` match as equal, then how many of the rest pair up by their idents."""
    equal = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    return equal, sum(_pairs(bids[i1:i2], aids[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag == "replace")


def _pairs(bids: Sequence[Hashable], aids: Sequence[Hashable]) -> int:
    """How many statements of two runs pair up by their idents (as Differ.region pairs them)."""
    matcher = difflib.SequenceMatcher(None, list(bids), list(aids), autojunk=False)
    return sum(b.size for b in matcher.get_matching_blocks())


def _matches(
    before: Sequence[str], after: Sequence[str], bids: Sequence[Hashable], aids: Sequence[Hashable]
) -> list[tuple[int, int]] | None:
    """The (before, after) indexes of equal statements, most of them first, then most pairs of
    idents between them; the earliest such match in `before` where several are as good. None where
    the table would be too large."""
    n, m = len(before), len(after)
    if n * m > _CELLS:
        return None
    big = n + m + 1  # one more equal statement outweighs every pair
    # best[i][j]: the score of before[i:] against after[j:]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        for j in range(m - 1, -1, -1):
            score = max(below[j], row[j + 1])
            if before[i] == after[j]:
                score = max(score, below[j + 1] + big)
            elif bids[i] == aids[j]:
                score = max(score, below[j + 1] + 1)
            row[j] = score
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if before[i] == after[j] and best[i][j] == best[i + 1][j + 1] + big:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif before[i] != after[j] and bids[i] == aids[j] and best[i][j] == best[i + 1][j + 1] + 1:
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return out


def _as_opcodes(pairs: list[tuple[int, int]], n: int, m: int) -> list[Opcode]:
    """Matched indexes (increasing on both sides) as difflib's opcodes."""
    out: list[Opcode] = []
    a = b = 0
    for i, j in [*pairs, (n, m)]:
        if a < i and b < j:
            out.append(("replace", a, i, b, j))
        elif a < i:
            out.append(("delete", a, i, b, j))
        elif b < j:
            out.append(("insert", a, i, b, j))
        if (i, j) != (n, m):
            if out and out[-1][0] == "equal" and out[-1][2] == i and out[-1][4] == j:
                out[-1] = ("equal", out[-1][1], i + 1, out[-1][3], j + 1)
            else:
                out.append(("equal", i, i + 1, j, j + 1))
        a, b = i + 1, j + 1
    return out
