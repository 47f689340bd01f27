"""Read a few members of a zip file (a wheel) over HTTP range requests.

The first request asks for the last TAIL bytes (`Range: bytes=-TAIL`): the end-of-central-directory
records and, for most wheels, much of the central directory. zipfile then parses the archive
through a sparse file object that fetches whatever it has not seen yet; the members wanted are
prefetched in as few requests as their offsets allow. A server that ignores ranges (answers 200)
streams the whole file instead, to a temporary file, and the result says so.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from radpatch.errors import EnvironmentProblem
from radpatch.releases.index import Http, Readable

TAIL = 64 * 1024 + 22 + 20  # a maximal zip comment, the end record and the zip64 locator
MIN_READ = 16 * 1024  # a read zipfile makes beyond what was fetched fetches at least this much
GAP = 64 * 1024  # members closer than this are fetched in one request
_SLACK = 30 + 64  # the local header's fixed part and room for a local extra field longer than the central one

Counter = Callable[[int], None]  # told the size of every body received


# what reading a damaged zip raises: its directory (BadZipFile), a member's deflated bytes (zlib.error,
# EOFError: cut short), a compression method zipfile does not read (NotImplementedError)
UNREADABLE = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError)


class BadWheel(EnvironmentProblem):
    """The file the index serves as a release's wheel cannot be read as one (not a zip file, a
    truncated one, a member unlike its RECORD): that release's problem, not the index's; verify
    fails that release's `wheel` check with these words and reads the others."""


@dataclass(frozen=True)
class Tail:
    """Where the zip's tail starts, and its bytes: enough to list and locate members later."""

    offset: int
    data: bytes

    @property
    def size(self) -> int:
        return self.offset + len(self.data)


@dataclass(frozen=True)
class Members:
    data: dict[str, bytes]  # the members asked for that exist
    names: frozenset[str]  # every file member of the archive
    tail: Tail | None  # None when the server ignores ranges (nothing worth keeping)
    size: int  # the archive's size
    whole: bool  # the server ignored ranges: the whole archive was downloaded


class _Sparse:
    """A read-only seekable file over byte ranges: known spans, and a fetcher for the rest."""

    def __init__(self, size: int, spans: Iterable[tuple[int, bytes]], fetch: Callable[[int, int], bytes]) -> None:
        self.size, self.pos, self.fetch = size, 0, fetch
        self.spans = dict(spans)

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.pos, 2: self.size}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def read(self, n: int = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        if end <= self.pos:
            return b""
        data = self._covered(self.pos, end)
        if data is None:
            self.spans[self.pos] = self.fetch(self.pos, self._stop(self.pos, end))
            data = self._covered(self.pos, end)
            assert data is not None
        self.pos = end
        return data

    def _stop(self, start: int, end: int) -> int:
        """Where a fetch for [start, end) ends: at least MIN_READ, but not into a span already held."""
        stop = min(self.size, max(end, start + MIN_READ))
        nxt = min((s for s in self.spans if start < s <= stop), default=None)
        if nxt is not None and (nxt >= end or self._covered(nxt, end) is not None):
            stop = nxt
        return stop

    def _covered(self, start: int, end: int) -> bytes | None:
        """Bytes [start, end) from the spans held (pieced together), or None if some are missing."""
        pieces, at = [], start
        for s in sorted(self.spans):
            blob = self.spans[s]
            if s <= at < s + len(blob):
                piece = blob[at - s : min(end, s + len(blob)) - s]
                pieces.append(piece)
                at += len(piece)
                if at >= end:
                    return b"".join(pieces)
        return None

    def prefetch(self, ranges: list[tuple[int, int]]) -> None:
        for start, end in _coalesce([r for r in ranges if self._covered(*r) is None]):
            self.spans[start] = self.fetch(start, end)


def _coalesce(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start - out[-1][1] < GAP:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+)")


class _Ranges:
    def __init__(self, http: Http, url: str, count: Counter) -> None:
        self.http, self.url, self.count = http, url, count

    def get(self, start: int, end: int) -> bytes:
        answer = self.http.get(self.url, {"Range": f"bytes={start}-{end - 1}"})
        self.count(len(answer.body))
        if answer.status != 206 or len(answer.body) != end - start:
            raise EnvironmentProblem(
                f"{self.url}: a range request for bytes {start}-{end - 1} answered HTTP {answer.status} "
                f"with {len(answer.body)} bytes",
                "run verify again; if it persists, the server mishandles ranges",
            )
        return answer.body


def read_members(
    http: Http, url: str, want: Callable[[frozenset[str]], Iterable[str]], tail: Tail | None, count: Counter
) -> Members:
    """The members `want(names)` picks from the archive at `url`, reading as little of it as it can.

    `tail` (from an earlier run) saves the first request; without it the tail is fetched first."""
    ranges = _Ranges(http, url, count)
    if tail is None:
        with http.stream(url, {"Range": f"bytes=-{TAIL}"}) as (status, headers, body, _):
            if status == 200:
                return _whole(body, want, count, url)
            if status != 206:
                raise EnvironmentProblem(f"{url}: HTTP {status}", "check that the index still serves this file")
            got = body.read()
        count(len(got))
        found = _CONTENT_RANGE.match(headers.get("Content-Range", ""))
        if not found:
            raise EnvironmentProblem(f"{url}: a range answer without a usable Content-Range header")
        tail = Tail(int(found.group(1)), got)
        size = int(found.group(3))
    else:
        size = tail.size
    sparse = _Sparse(size, [(tail.offset, tail.data)], ranges.get)
    try:
        with zipfile.ZipFile(sparse) as zf:
            infos = {i.filename: i for i in zf.infolist() if not i.is_dir()}
            names = frozenset(infos)
            picked = [infos[n] for n in want(names) if n in infos]
            sparse.prefetch(
                [
                    (
                        i.header_offset,
                        min(
                            size,
                            i.header_offset + _SLACK + len(i.orig_filename.encode()) + len(i.extra) + i.compress_size,
                        ),
                    )
                    for i in picked
                ]
            )
            data = {i.filename: zf.read(i) for i in picked}
            cd_start = zf.start_dir
    except UNREADABLE as exc:
        raise BadWheel(f"{url} is not a readable zip file: {exc}")
    keep = tail if tail.offset <= cd_start else _tail_from(sparse, cd_start, size)
    return Members(data, names, keep, size, False)


def _tail_from(sparse: _Sparse, start: int, size: int) -> Tail:
    """The bytes from the central directory to the end, from what was fetched (no new request)."""
    sparse.seek(start)
    return Tail(start, sparse.read(size - start))


def _whole(body: Readable, want: Callable[[frozenset[str]], Iterable[str]], count: Counter, url: str) -> Members:
    with tempfile.TemporaryFile(prefix="radpatch-wheel-") as tmp:
        size = 0
        while True:
            chunk = body.read(1 << 20)
            if not chunk:
                break
            tmp.write(chunk)
            size += len(chunk)
            count(len(chunk))
        tmp.seek(0)
        try:
            with zipfile.ZipFile(tmp) as zf:
                names = frozenset(i.filename for i in zf.infolist() if not i.is_dir())
                data = {n: zf.read(n) for n in want(names) if n in names}
        except UNREADABLE as exc:
            raise BadWheel(f"{url} (downloaded whole) is not a readable zip file: {exc}")
    return Members(data, names, None, size, True)
