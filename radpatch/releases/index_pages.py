"""A project's files on the package index: its PEP 691 JSON or PEP 503 HTML page on each configured
index, and its find-links, read into IndexFile records (yanked ones marked)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from packaging.utils import (
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from radpatch.errors import EnvironmentProblem
from radpatch.releases.index import ACCEPT, Http, Response, _strip_auth
from radpatch.releases.pipconf import PipSettings


@dataclass(frozen=True)
class IndexFile:
    filename: str
    url: str
    version: Version
    size: int | None
    sha256: str | None
    yanked: bool
    wheel: bool

    def to_json(self) -> dict[str, object]:
        return {"filename": self.filename, "url": self.url, "size": self.size, "sha256": self.sha256}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> IndexFile:
        name = str(data["filename"])
        size = data.get("size")
        sha = data.get("sha256")
        return cls(
            name,
            str(data["url"]),
            parse_wheel_filename(name)[1],
            size if isinstance(size, int) else None,
            sha if isinstance(sha, str) else None,
            False,
            True,
        )


def project_files(http: Http, settings: PipSettings, dist: str) -> list[IndexFile]:
    """Every file of `dist` on the configured indexes and find-links (yanked ones marked)."""
    name = canonicalize_name(dist)
    found: dict[str, IndexFile] = {}
    for index in settings.indexes:
        for f in _index_page(http, index.rstrip("/") + f"/{name}/", name):
            found.setdefault(f.filename, f)
    for link in settings.find_links:
        for f in _find_links(http, link, name):
            found.setdefault(f.filename, f)
    return sorted(found.values(), key=lambda f: (f.version, f.filename))


def _index_page(http: Http, url: str, name: str) -> list[IndexFile]:
    answer = http.get(url, {"Accept": ACCEPT})
    if answer.status == 404:
        return []
    if answer.status != 200:
        raise EnvironmentProblem(
            f"the package index answered HTTP {answer.status} for {_strip_auth(url)}",
            "check pip's index settings (`pip config list`: index-url, extra-index-url)",
        )
    kind = answer.headers.get("Content-Type", "")
    if "json" in kind:
        return _from_json(answer, name)
    return _from_html(answer.body.decode("utf-8", "replace"), answer.url, name)


def _from_json(answer: Response, name: str) -> list[IndexFile]:
    try:
        data = json.loads(answer.body)
        entries = [
            (
                str(f["filename"]),
                urllib.parse.urljoin(answer.url, str(f["url"])),
                f.get("size"),
                (f.get("hashes") or {}).get("sha256"),
                bool(f.get("yanked")),
            )
            for f in data["files"]
        ]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise EnvironmentProblem(f"{_strip_auth(answer.url)} is not a PEP 691 project page: {exc}")
    return [f for f in (_file(n, u, s if isinstance(s, int) else None, h, y, name) for n, u, s, h, y in entries) if f]


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links.append(dict(attrs))


def _from_html(text: str, base: str, name: str) -> list[IndexFile]:
    parser = _Anchors()
    parser.feed(text)
    out = []
    for attrs in parser.links:
        href = attrs.get("href")
        if not href:
            continue
        url, _, fragment = urllib.parse.urljoin(base, href).partition("#")
        filename = urllib.parse.unquote(url.rsplit("/", 1)[-1])
        sha = fragment[len("sha256=") :] if fragment.startswith("sha256=") else None
        f = _file(filename, url, None, sha, "data-yanked" in attrs, name)
        if f:
            out.append(f)
    return out


def _find_links(http: Http, link: str, name: str) -> list[IndexFile]:
    parts = urllib.parse.urlsplit(link)
    path = (
        Path(urllib.request.url2pathname(parts.path))
        if parts.scheme == "file"
        else Path(link)
        if not parts.scheme
        else None
    )
    if path is not None and path.is_dir():
        return [
            f
            for f in (
                _file(p.name, p.resolve().as_uri(), p.stat().st_size, None, False, name) for p in sorted(path.iterdir())
            )
            if f
        ]
    url = path.resolve().as_uri() if path is not None else link
    answer = http.get(url)
    return [] if answer.status != 200 else _from_html(answer.body.decode("utf-8", "replace"), answer.url, name)


def _file(filename: str, url: str, size: int | None, sha: str | None, yanked: bool, name: str) -> IndexFile | None:
    try:
        if filename.endswith(".whl"):
            project, version, _, _ = parse_wheel_filename(filename)
            wheel = True
        else:
            project, version = parse_sdist_filename(filename)
            wheel = False
    except ValueError:  # InvalidWheelFilename, InvalidSdistFilename, or a version number too long to convert
        return None
    if canonicalize_name(project) != name:
        return None
    return IndexFile(filename, url, version, size, sha, yanked, wheel)
