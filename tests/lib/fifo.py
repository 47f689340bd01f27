"""A FIFO in place of a file, for tests that radpatch never blocks reading one."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def fifo_in_place_of(path: Path) -> Iterator[None]:
    """Replace `path` by a FIFO for the block. A reader that opens it gets the real bytes (up to
    8 times) instead of hanging, so code that wrongly reads it behaves as if the file were there:
    tests assert what only the right code does. The code under test may replace the FIFO (the
    feeder then never writes into what took its place); afterwards the file is back, unless the
    code replaced the FIFO."""
    import stat
    import threading

    good = path.read_bytes()
    path.unlink()
    os.mkfifo(path)
    fifo = os.stat(path)
    done = threading.Event()

    def feed() -> None:
        fed = 0
        while fed < 8 and not done.is_set():
            try:  # without blocking: ENXIO while no reader has the FIFO open
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                done.wait(0.01)
                continue
            try:
                st = os.fstat(fd)
                if not stat.S_ISFIFO(st.st_mode) or (st.st_dev, st.st_ino) != (fifo.st_dev, fifo.st_ino):
                    return  # replaced by the code under test
                os.set_blocking(fd, True)
                view = memoryview(good)
                while view:
                    view = view[os.write(fd, view) :]
            except OSError:  # the reader closed early (EPIPE)
                pass
            finally:
                os.close(fd)
            fed += 1

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        yield
    finally:
        done.set()
        writer.join()
        st = os.lstat(path)
        if stat.S_ISFIFO(st.st_mode) and (st.st_dev, st.st_ino) == (fifo.st_dev, fifo.st_ino):
            path.unlink()  # still the FIFO: the file comes back as it was
            path.write_bytes(good)
