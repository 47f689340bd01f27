"""The real tier's share: which of its tests this run takes (RADPATCH_REAL_SHARE=N:T).

The real tier (real wheels, CPU vLLM releases and engines, GNU patch on real series) outgrew one CI
run on 2 cores: its parallel part alone ran for more than an hour. Like the fast tier's generated
families (tests/lib/generated.py), it takes turns: with RADPATCH_REAL_SHARE=N:T a run keeps the real
tests whose node id falls in share T of N (a stable hash of the whole id, parameters included, so a
family over releases spreads across the shares), and deselects the others. tools/test.sh picks T
from the commit's hash, so N consecutive commits run every real test; unset (or N=1), every real
test runs. The fast tier is never shared."""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping

SHARE_ENV = "RADPATCH_REAL_SHARE"


def real_share(environ: Mapping[str, str] = os.environ) -> tuple[int, int] | None:
    """(N, T) of RADPATCH_REAL_SHARE=N:T; None when unset or N is 1 (every real test)."""
    raw = environ.get(SHARE_ENV, "").strip()
    if not raw:
        return None
    every, colon, turn = raw.partition(":")
    if not (every.isdigit() and int(every) >= 1 and colon and turn.isdigit()):
        raise ValueError(f"{SHARE_ENV}={raw!r}: expected N:T (N whole, at least 1; T the share, 0 to N-1)")
    return None if int(every) == 1 else (int(every), int(turn) % int(every))


def in_share(nodeid: str, share: tuple[int, int]) -> bool:
    """Whether the test `nodeid` is in `share` (N, T): exactly one T of each N holds it."""
    every, turn = share
    return zlib.crc32(nodeid.encode()) % every == turn
