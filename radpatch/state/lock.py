"""radpatch's lock, `.radpatch/lock`: an fcntl lock serialising radpatch processes on one
installation; the kernel releases it if its holder dies."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Iterator

from radpatch.errors import EnvironmentProblem
from radpatch.state.layout import StateDir


class Lock(StateDir):
    """Taking the lock (a part of state.record's `Store`)."""

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        fd = self._lock()
        try:
            yield
        finally:
            os.close(fd)

    def _lock(self) -> int:
        """Lock `.radpatch/lock`, making sure the locked file is still the one at that path: a
        holder that tidies the directory away removes the lock file while holding it, and whoever
        was waiting on the removed file starts again."""
        lock = self.dir / "lock"
        for _ in range(1000):
            self.refuse_links()
            try:
                self.dir.mkdir(exist_ok=True)
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
            except FileNotFoundError:
                continue  # the directory was tidied away between mkdir and open
            except OSError as exc:
                raise EnvironmentProblem(
                    f"cannot create radpatch's state in {self.dir}: {exc.strerror}",
                    "run as a user who may write the installation",
                )
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"radpatch: waiting for another radpatch process ({lock})", file=sys.stderr)
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(lock))
            except FileNotFoundError:
                same = False
            if same:
                try:
                    self.refuse_links()  # as it is now that no other radpatch can change it
                except EnvironmentProblem:
                    os.close(fd)
                    raise
                return fd
            os.close(fd)
        raise EnvironmentProblem(
            f"cannot take radpatch's lock {lock}: it keeps being removed", "is another tool deleting it?"
        )
