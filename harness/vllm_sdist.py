#!/usr/bin/env python3
"""Fetch a vLLM release's source distribution from the package index and unpack its tests.

Stdlib only.  vLLM's own unit tests ship in the sdist (``vllm-X.tar.gz``), not in the wheel;
radpatch runs the KV-cache planning ones against a patched install (harness/vllm_own_tests.py).

Why not ``pip download --no-binary :all: vllm==X``: pip prepares an sdist's metadata before it
hands it over, and vLLM's build backend needs torch, cmake and CUDA headers for that (GBs, and
it fails on a CPU-only machine).  The index answers the file's URL and sha256 directly (PEP 691
JSON), so this fetches exactly that file and checks its hash.  The index is pip's
(``PIP_INDEX_URL``) or PyPI's.

Cache (``$RADPATCH_HARNESS_CACHE``, default ``~/.cache/radpatch/harness``)::

    sdists/vllm-<v>.tar.gz     the file the index named, hash-checked, renamed into place
    vllm-tests/<v>/            its ``tests/`` tree and ``pyproject.toml`` (pytest's rootdir,
                               with vLLM's own markers), complete once ``.radpatch-complete``
                               is written; vLLM's sources are *not* unpacked next to them,
                               so ``import vllm`` in a test finds the installed package

CLI::

    python harness/vllm_sdist.py 0.33.0     # prints the unpacked tests' directory
"""

from __future__ import annotations

import hashlib
import html.parser
import json
import os
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path, PurePosixPath

if not __package__:  # run as a script: make the checkout's `harness` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness.vllm_cpu import (
    MARKER,
    ProvisionError,
    cache_root,
    locked,
    mark_complete,
    remove_tree,
    say,
)

DEFAULT_INDEX = "https://pypi.org/simple"
JSON_ACCEPT = "application/vnd.pypi.simple.v1+json"
# what is unpacked from the sdist's top directory: the tests and pytest's rootdir config
KEPT = ("tests/", "pyproject.toml")
FETCH_TIMEOUT = 300  # s; the 0.33.0 sdist is 47 MB


def index_url() -> str:
    return (os.environ.get("PIP_INDEX_URL") or DEFAULT_INDEX).rstrip("/")


class _Anchors(html.parser.HTMLParser):
    """(href, text) of every <a> in a PEP 503 simple page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []
        self._href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href = dict(attrs).get("href") or ""

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self.found.append((self._href, data.strip()))
            self._href = None


def _files(body: bytes, content_type: str) -> list[tuple[str, str, str]]:
    """(filename, url, sha256) of each file a simple page lists (PEP 691 JSON or PEP 503 HTML)."""
    if "json" in content_type:
        return [
            (str(f.get("filename")), str(f.get("url")), str(f.get("hashes", {}).get("sha256", "")))
            for f in json.loads(body).get("files", [])
        ]
    parser = _Anchors()
    parser.feed(body.decode("utf-8", errors="replace"))
    out = []
    for href, text in parser.found:
        _url, _, fragment = href.partition("#")
        algo, _, digest = fragment.partition("=")
        out.append((text, href, digest if algo == "sha256" else ""))
    return out


def sdist_entry(version: str) -> tuple[str, str, str]:
    """(filename, url, sha256) of vllm==version's sdist, as the index lists it."""
    url = f"{index_url()}/vllm/"
    req = urllib.request.Request(url, headers={"Accept": f"{JSON_ACCEPT}, text/html;q=0.1"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            files = _files(resp.read(), resp.headers.get("Content-Type", ""))
    except (OSError, ValueError) as exc:
        raise ProvisionError(f"cannot read the package index's vllm page {url}: {exc}") from None
    wanted = f"vllm-{version}.tar.gz"
    for name, link, sha in files:
        if name == wanted:
            if not sha:
                raise ProvisionError(f"{url} lists {wanted} without a sha256")
            return wanted, urllib.parse.urljoin(url, link.partition("#")[0]), sha
    raise ProvisionError(f"{url} lists no {wanted} (is {version} a vLLM release with an sdist?)")


def ensure_sdist(version: str, cache: Path | None = None) -> Path:
    """The hash-checked vllm-<version>.tar.gz in the cache (downloaded once)."""
    root = cache_root(cache)
    dest = root / "sdists" / f"vllm-{version}.tar.gz"
    if dest.is_file():
        return dest
    with locked(root / "locks" / f"sdist-{version}.lock"):
        if dest.is_file():
            return dest
        dest.parent.mkdir(parents=True, exist_ok=True)
        name, url, sha = sdist_entry(version)
        start = time.monotonic()
        say(f"downloading {name} from {url.split('#')[0]}")
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{name}.")
        try:
            digest = hashlib.sha256()
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=FETCH_TIMEOUT) as resp:
                for chunk in iter(lambda: resp.read(1 << 20), b""):
                    digest.update(chunk)
                    out.write(chunk)
            if digest.hexdigest() != sha:
                raise ProvisionError(f"{name}: sha256 {digest.hexdigest()} is not the index's {sha}")
            os.replace(tmp, dest)
        except OSError as exc:
            raise ProvisionError(f"downloading {url}: {exc}") from None
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        say(f"{name} ready in {time.monotonic() - start:.0f}s")
        return dest


def _kept(member: tarfile.TarInfo, top: str) -> str | None:
    """The member's path below the sdist's top directory, if it is one we unpack."""
    parts = PurePosixPath(member.name).parts
    if len(parts) < 2 or parts[0] != top or ".." in parts:
        return None
    rel = "/".join(parts[1:])
    if any(rel == k or rel.startswith(k) for k in KEPT) and (member.isfile() or member.isdir()):
        return rel
    return None


def ensure_tests(version: str, cache: Path | None = None) -> Path:
    """Directory holding vllm==version's ``tests/`` and ``pyproject.toml`` (unpacked once)."""
    root = cache_root(cache)
    dest = root / "vllm-tests" / version
    if (dest / MARKER).is_file():
        return dest
    sdist = ensure_sdist(version, root)
    with locked(root / "locks" / f"vllm-tests-{version}.lock"):
        if (dest / MARKER).is_file():
            return dest
        remove_tree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".tmp-{version}-"))
        try:
            top = f"vllm-{version}"
            with tarfile.open(sdist) as tar:
                for member in tar:
                    rel = _kept(member, top)
                    if rel is None:
                        continue
                    target = tmp / rel
                    if member.isdir():
                        target.mkdir(parents=True, exist_ok=True)
                        continue
                    target.parent.mkdir(parents=True, exist_ok=True)
                    src = tar.extractfile(member)
                    if src is None:
                        continue
                    with src, open(target, "wb") as out:
                        out.write(src.read())
            if not (tmp / "tests").is_dir():
                raise ProvisionError(f"{sdist} holds no {top}/tests directory")
            mark_complete(tmp, {"version": version, "sdist": str(sdist)})
            os.rename(tmp, dest)
        finally:
            remove_tree(tmp)
    return dest


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python harness/vllm_sdist.py VERSION", file=sys.stderr)
        return 2
    try:
        print(ensure_tests(args[0]))
    except ProvisionError as exc:
        say(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
