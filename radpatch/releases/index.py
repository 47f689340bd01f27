"""The package index, spoken to directly: one HTTP client with pip's settings (a project's files are
read with it by radpatch.releases.index_pages).

Pages are read as PEP 691 JSON when the index offers it, else as PEP 503 simple HTML; find-links
may be directories, HTML pages or file URLs. file:// URLs are read from disk (a directory's page
is its index.html), so a local mirror costs no HTTP at all.
"""

from __future__ import annotations

import base64
import hashlib
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import BinaryIO, Protocol

from radpatch.errors import EnvironmentProblem
from radpatch.releases.pipconf import PipSettings

ACCEPT = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"
USER_AGENT = "radpatch-verify (urllib)"
RETRIES = 3


class Readable(Protocol):
    def read(self, n: int = -1, /) -> bytes: ...


class Offline(EnvironmentProblem):
    """A URL could not be fetched at all (no answer, or a server error after retries)."""


@dataclass(frozen=True)
class Response:
    status: int
    headers: Message
    body: bytes
    url: str


class Http:
    """GET with pip's CA bundle, client certificate, proxy and trusted hosts; file:// from disk."""

    def __init__(self, settings: PipSettings) -> None:
        self.settings = settings
        self._openers: dict[bool, urllib.request.OpenerDirector] = {}

    def _opener(self, verify: bool) -> urllib.request.OpenerDirector:
        if verify not in self._openers:
            if verify:
                ctx = _verifying(self.settings.cert, self.settings.client_cert)
            else:
                ctx = ssl._create_unverified_context()
                if self.settings.client_cert:
                    ctx.load_cert_chain(self.settings.client_cert)
            proxy = self.settings.proxy
            proxies = urllib.request.ProxyHandler({"http": proxy, "https": proxy} if proxy else None)
            self._openers[verify] = urllib.request.build_opener(proxies, urllib.request.HTTPSHandler(context=ctx))
        return self._openers[verify]

    def get(self, url: str, headers: dict[str, str] | None = None) -> Response:
        with self.stream(url, headers) as (status, head, body, final):
            return Response(status, head, body.read(), final)

    @contextmanager
    def stream(self, url: str, headers: dict[str, str] | None = None) -> Iterator[tuple[int, Message, Readable, str]]:
        """(status, headers, body stream, final URL); 4xx answers are returned, not raised."""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme == "file":
            yield from _file_stream(parts, headers or {})
            return
        if parts.scheme not in ("http", "https"):
            raise EnvironmentProblem(f"cannot fetch {url}: only http, https and file URLs are supported")
        request = urllib.request.Request(_strip_auth(url), headers={"User-Agent": USER_AGENT, **(headers or {})})
        if parts.username is not None:
            token = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            request.add_header("Authorization", "Basic " + base64.b64encode(token.encode()).decode())
        opener = self._opener(parts.hostname not in self.settings.trusted_hosts)
        answer = None
        for attempt in range(RETRIES):
            try:
                answer = opener.open(request, timeout=self.settings.timeout)
                break
            except urllib.error.HTTPError as exc:
                if exc.code < 500 or attempt == RETRIES - 1:
                    answer = exc
                    break
                why = f"HTTP {exc.code}"
            except (urllib.error.URLError, OSError) as exc:
                why = str(getattr(exc, "reason", exc))
                if attempt == RETRIES - 1 or isinstance(getattr(exc, "reason", exc), ssl.SSLCertVerificationError):
                    raise Offline(f"{_strip_auth(url)}: {why}")  # a certificate pip's settings do not trust: no retry
            time.sleep(0.25 * 2**attempt)
        assert answer is not None
        with answer:
            if answer.status >= 500:
                raise Offline(f"{_strip_auth(url)}: HTTP {answer.status}")
            yield answer.status, answer.headers, answer, answer.geturl()


# What a verifying context was built from -> the context, for the whole process: building one reads
# and parses the whole trust store (the system's CA bundle, about 50 ms), and every verify run
# built its own. The key is everything the context holds: pip's `cert` bundle and client certificate,
# each by path and the sha256 of its bytes, and without a `cert`, the system bundle OpenSSL loads (its
# path, after SSL_CERT_FILE, and the sha256 of its bytes) and the directory it looks certificates up in
# at each handshake (SSL_CERT_DIR: read then, not when the context is built). A file that cannot be
# read is not kept: ssl builds the context and says what is wrong with it, as it did.
_CONTEXTS: dict[tuple[object, ...], ssl.SSLContext] = {}
_CONTEXTS_MAX = 16


def _verifying(cert: str | None, client_cert: str | None) -> ssl.SSLContext:
    """A context that verifies with pip's `cert` bundle (else the system's trust store), presenting
    pip's client certificate if one is set."""
    try:
        paths = ssl.get_default_verify_paths()
        store = None if cert else (paths.cafile, _digest(paths.cafile), paths.capath)
        key: tuple[object, ...] | None = (cert, _digest(cert), client_cert, _digest(client_cert), store)
    except OSError:
        key = None
    if key is not None and key in _CONTEXTS:
        return _CONTEXTS[key]
    ctx = ssl.create_default_context(cafile=cert) if cert else ssl.create_default_context()
    if client_cert:
        ctx.load_cert_chain(client_cert)
    if key is not None:
        if len(_CONTEXTS) >= _CONTEXTS_MAX:
            _CONTEXTS.pop(next(iter(_CONTEXTS)))
        _CONTEXTS[key] = ctx
    return ctx


def _digest(path: str | None) -> str | None:
    if path is None:
        return None
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def _strip_auth(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _file_stream(
    parts: urllib.parse.SplitResult, headers: dict[str, str]
) -> Iterator[tuple[int, Message, Readable, str]]:
    path = Path(urllib.request.url2pathname(parts.path))
    if path.is_dir():
        path = path / "index.html"
    head = Message()
    if not path.is_file():
        yield 404, head, _Empty(), parts.geturl()
        return
    size = path.stat().st_size
    start, end, status = 0, size, 200
    wanted = headers.get("Range", "")
    if wanted.startswith("bytes="):
        start, end = _range(wanted[len("bytes=") :], size)
        status = 206
        head["Content-Range"] = f"bytes {start}-{end - 1}/{size}"
    head["Content-Length"] = str(end - start)
    with path.open("rb") as fh:
        fh.seek(start)
        yield status, head, _Limited(fh, end - start), path.as_uri()


def _range(spec: str, size: int) -> tuple[int, int]:
    first, _, last = spec.partition("-")
    if not first:
        return max(0, size - int(last)), size
    return int(first), min(size, int(last) + 1) if last else size


class _Empty:
    def read(self, n: int = -1) -> bytes:
        return b""


class _Limited:
    def __init__(self, fh: BinaryIO, left: int) -> None:
        self.fh, self.left = fh, left

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        data = self.fh.read(n)
        self.left -= len(data)
        return data
