"""A deterministic fault point for crash tests: RADPATCH_FAULT=NAME:N kills this process with
SIGKILL the N-th time (1-based) the code passes the point NAME. Unset, it costs one dict lookup."""

from __future__ import annotations

import os
import signal

_seen: dict[str, int] = {}


def point(name: str) -> None:
    want = os.environ.get("RADPATCH_FAULT")
    if not want or not want.startswith(name + ":"):
        return
    _seen[name] = _seen.get(name, 0) + 1
    if str(_seen[name]) == want.split(":", 1)[1]:
        os.kill(os.getpid(), signal.SIGKILL)
