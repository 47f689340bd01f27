"""Verify's progress on stderr: a bar on a terminal, else one line per release: the wheels read (bytes),
then each entry's proofs (per release, or group of releases with identical files) as they end."""

from __future__ import annotations

import threading
import time
from typing import TextIO

from packaging.version import Version

from radpatch.releases.wheel_records import Fetch
from radpatch.releases.wheels import Releases


class Progress:
    """Fetches: a bar on a terminal, else one line per release (both on stderr); bytes and releases."""

    def __init__(self, stream: TextIO, dist: str) -> None:
        self.stream, self.dist = stream, dist
        self.tty = stream.isatty()
        self.total = self.done = 0
        self.bytes = self.wheel_bytes = 0
        self.unread = 0  # wheels that could not be read (verify's row says why)
        self.whole_said = False
        self.active: list[Version] = []
        self.t0 = 0.0
        self.entry = ""
        self.lock = threading.Lock()  # fetch threads report here

    def begin(self, total: int, releases: Releases) -> None:
        self.total, self.done, self.bytes, self.wheel_bytes, self.t0 = total, 0, 0, 0, time.monotonic()
        self.unread = 0
        self._line(
            f"radpatch: reading {total} wheel(s) of {self.dist} from {releases.settings.describe()} "
            f"(range requests: central directory, dist-info, target modules); cache {releases.root}"
        )

    def started(self, v: Version) -> None:
        with self.lock:
            self.active.append(v)
            self._bar()

    def received(self, n: int) -> None:
        with self.lock:
            self.bytes += n

    def step(self, v: Version, got: Fetch | None) -> None:
        with self.lock:
            self.done += 1
            if v in self.active:
                self.active.remove(v)
            if got is not None:
                self.wheel_bytes += got.size
            else:  # no wheel, or one that cannot be read: its size is not known
                self.unread += 1
            if got is not None and got.whole and not self.whole_said:
                self.whole_said = True
                self._line(
                    "radpatch: the server ignores range requests (it answered 200): "
                    f"downloading whole wheels of {self.dist}"
                )
            if self.tty:
                self._bar()
            else:
                how = (
                    ""
                    if got is None
                    else (
                        f": {_size(got.received)} of a {_size(got.size)} wheel"
                        + (" (whole download)" if got.whole else f" ({_share(got.received, got.size)})")
                    )
                )
                self._line(
                    f"radpatch: [{self.done}/{self.total}] {self.dist} {v}{how} ({time.monotonic() - self.t0:.0f} s)"
                )

    def note(self, text: str) -> None:
        """A line of its own (a long read outside the fetches: a store index built)."""
        with self.lock:
            self._line(text)

    def tick(self) -> None:
        with self.lock:
            self._bar()

    def end(self) -> None:
        unread = f" ({self.unread} could not be read)" if self.unread else ""
        # the share of the readable wheels' bytes, when there are some: an unreadable wheel's size is not known
        of = f" of {_size(self.wheel_bytes)} ({_share(self.bytes, self.wheel_bytes)})" if self.wheel_bytes else ""
        self._line(
            f"radpatch: read {self.done - self.unread} of {self.total} wheel(s) of {self.dist}{unread}: "
            f"{_size(self.bytes)}{of} in {time.monotonic() - self.t0:.1f} s"
        )

    # --- the proofs (apply's pipeline per entry x release; identical files are proven once) ---------

    def proving(self, entry: str, total: int, kept: int, workers: int) -> None:
        """`total` proofs of `entry` are to run (`kept` answered from the proof cache)."""
        self.total, self.done, self.t0 = total, 0, time.monotonic()
        self.entry = entry
        kept_text = f", {kept} kept from earlier runs" if kept else ""
        self._line(
            f"radpatch: proving {entry} on {total} release file set(s) of {self.dist}{kept_text} "
            f"({workers} process(es))"
        )

    def proved(self, entry: str, versions: list[Version], error: str | None) -> None:
        self.done += 1
        which = ", ".join(str(v) for v in versions) or "?"
        outcome = "ok" if error is None else f"fails {error.split(':', 1)[0]}"
        if self.tty:
            width = 30
            filled = width * self.done // max(self.total, 1)
            self.stream.write(
                f"\r\033[K[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} proofs of {entry}, "
                f"{time.monotonic() - self.t0:.0f} s  last: {self.dist} {which} {outcome}"
            )
            self.stream.flush()
        else:
            self._line(
                f"radpatch: [{self.done}/{self.total}] {entry} on {self.dist} {which}: {outcome} "
                f"({time.monotonic() - self.t0:.0f} s)"
            )

    def proven(self) -> None:
        if self.tty:
            self._line(f"radpatch: proved {self.entry}: {self.done} proof(s) in {time.monotonic() - self.t0:.1f} s")

    def _bar(self) -> None:
        if not self.tty:
            return
        width = 30
        filled = width * self.done // max(self.total, 1)
        now = ", ".join(str(v) for v in self.active)
        self.stream.write(
            f"\r\033[K[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} releases, "
            f"{_size(self.bytes)}, {time.monotonic() - self.t0:.0f} s  {self.dist} {now}"
        )
        self.stream.flush()

    def _line(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.stream.flush()


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "-"
