"""A FIFO in place of a file, for tests that radpatch never blocks reading one."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def fifo_in_place_of(path: Path) -> Iterator[None]:
    """Replace `path` by a FIFO for the block; a reader that blocks on it gets the real bytes
    (a few times) instead of hanging, and a writer still waiting is released afterwards."""
    import threading

    good = path.read_bytes()
    path.unlink()
    os.mkfifo(path)
    done = threading.Event()

    def feed() -> None:
        for _ in range(8):
            try:
                with open(path, "wb") as fh:
                    fh.write(good)
            except OSError:
                pass
            if done.is_set():
                return

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        yield
    finally:
        done.set()
        while writer.is_alive():
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            writer.join(0.05)
