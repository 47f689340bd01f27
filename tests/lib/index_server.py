"""A package index on 127.0.0.1 for `radpatch verify`'s tests: an http.server that serves a PEP 503
simple page (or PEP 691 JSON) and the wheel files of a directory, with Range support or without it
(a server that answers 200 to every request). It logs every request and every byte it sends."""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import ssl
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name


@dataclass(frozen=True)
class Hit:
    path: str
    range: str | None
    status: int
    sent: int


class IndexServer:
    """A package index on 127.0.0.1: /simple/<project>/ and /files/<file> from a directory."""

    def __init__(self, root: Path, ranges: bool = True, api: str = "html", tls: ssl.SSLContext | None = None) -> None:
        self.root, self.ranges, self.api, self.scheme = root, ranges, api, "https" if tls else "http"
        self.log: list[Hit] = []
        self.proxied: list[str] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.answer(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.httpd.server_address[1]}/simple/"

    def files(self, project: str) -> list[Path]:
        return sorted(
            p
            for p in self.root.iterdir()
            if canonicalize_name(re.split(r"-\d", p.name, maxsplit=1)[0]) == canonicalize_name(project)
        )

    def answer(self, h: BaseHTTPRequestHandler) -> None:
        if h.path.startswith("http://"):  # asked as a proxy: the absolute URL's host is not us
            with self.lock:
                self.proxied.append(h.path)
            h.path = urllib.parse.urlsplit(h.path).path
        parts = h.path.strip("/").split("/")
        wanted = h.headers.get("Range")
        if parts[0] == "simple" and len(parts) == 2:
            body, kind = self.page(parts[1], h.headers.get("Accept", ""))
            self.send(h, 200 if body else 404, body or b"not found", {"Content-Type": kind}, wanted)
        elif parts[0] == "files" and len(parts) == 2 and (self.root / parts[1]).is_file():
            self.send_file(h, self.root / parts[1], wanted)
        else:
            self.send(h, 404, b"not found", {}, wanted)

    def page(self, project: str, accept: str) -> tuple[bytes, str]:
        files = self.files(project)
        if not files:
            return b"", "text/plain"
        sha = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
        if self.api == "json" and "application/vnd.pypi.simple.v1+json" in accept:
            data = {
                "meta": {"api-version": "1.1"},
                "name": project,
                "files": [
                    {
                        "filename": p.name,
                        "url": f"../../files/{p.name}",
                        "hashes": {"sha256": sha[p.name]},
                        "size": p.stat().st_size,
                    }
                    for p in files
                ],
            }
            return json.dumps(data).encode(), "application/vnd.pypi.simple.v1+json"
        links = "".join(
            f'<a href="../../files/{html.escape(p.name)}#sha256={sha[p.name]}">{html.escape(p.name)}</a>\n'
            for p in files
        )
        return f"<!DOCTYPE html><html><body>\n{links}</body></html>".encode(), "text/html"

    def send_file(self, h: BaseHTTPRequestHandler, path: Path, wanted: str | None) -> None:
        data = path.read_bytes()
        found = re.fullmatch(r"bytes=(\d*)-(\d*)", wanted or "")
        if not self.ranges or not found:
            return self.send(h, 200, data, {"Content-Type": "application/octet-stream"}, wanted)
        first, last = found.groups()
        start, end = (
            (len(data) - int(last), len(data)) if not first else (int(first), int(last) + 1 if last else len(data))
        )
        start = max(start, 0)
        self.send(
            h, 206, data[start:end], {"Content-Range": f"bytes {start}-{min(end, len(data)) - 1}/{len(data)}"}, wanted
        )

    def send(
        self, h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str], wanted: str | None
    ) -> None:
        h.send_response(status)
        for k, v in {**headers, "Content-Length": str(len(body))}.items():
            h.send_header(k, v)
        h.end_headers()
        with self.lock:  # logged before the client can have read the answer: no race with a test's assertion
            self.log.append(Hit(h.path, wanted, status, len(body)))
        h.wfile.write(body)

    def sent(self, name: str = "") -> int:
        """Bytes sent of files whose name contains `name` (every file: "")."""
        return sum(x.sent for x in self.log if x.path.startswith("/files/") and name in x.path)

    def requests(self, prefix: str = "/") -> list[Hit]:
        return [x for x in self.log if x.path.startswith(prefix)]


# pip settings that would send radpatch elsewhere than the loopback index, or change how it is reached
PIP_ELSEWHERE = (
    *("PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_PROXY", "PIP_TRUSTED_HOST"),
    *("PIP_CERT", "PIP_CLIENT_CERT", "VIRTUAL_ENV", "RADPATCH_LISTING_TTL"),
    *("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"),
)


def pip_to_loopback(monkeypatch: Any, cache: Path, jobs: bool = True) -> None:
    """radpatch's pip settings made the loopback index's alone (this machine's pip.conf must not add
    indexes), with a cache of its own at `cache` (and one job at a time when `jobs`); PIP_INDEX_URL is
    set by whoever starts the server."""
    for var in PIP_ELSEWHERE:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("RADPATCH_CACHE", str(cache))
    if jobs:
        monkeypatch.setenv("RADPATCH_JOBS", "1")


@contextmanager
def servers() -> Iterator[Callable[..., IndexServer]]:
    """start(root, ranges=True, api="html", tls=None) -> an IndexServer over `root`, started; every
    server started is shut down when the block ends."""
    started: list[IndexServer] = []

    def start(root: Path, ranges: bool = True, api: str = "html", tls: ssl.SSLContext | None = None) -> IndexServer:
        server = IndexServer(root, ranges, api, tls)
        server.thread.start()
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            server.httpd.shutdown()
            server.httpd.server_close()
