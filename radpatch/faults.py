"""A deterministic fault point for crash tests: RADPATCH_FAULT=NAME:N kills this process with
SIGKILL the N-th time (1-based) the code passes the point NAME; NAME:N:stop stops it (SIGSTOP)
there instead, so that a test can change the installation under a run and then let it go on.
Unset, it costs one dict lookup."""

from __future__ import annotations

import os
import signal

_seen: dict[str, int] = {}


def point(name: str) -> None:
    want = os.environ.get("RADPATCH_FAULT")
    if not want or not want.startswith(name + ":"):
        return
    _seen[name] = _seen.get(name, 0) + 1
    _, n, *action = want.split(":")
    if str(_seen[name]) == n:
        os.kill(os.getpid(), signal.SIGSTOP if action == ["stop"] else signal.SIGKILL)
