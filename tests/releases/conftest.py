"""The loopback package index for the matrix, port and upstream-state tests (releases/ tests)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.lib.index_server import IndexServer, pip_to_loopback, servers
from tests.lib.overlaps import released_toy
from tests.lib.site import Site
from tests.lib.wheels import Wheels, build_wheel


@pytest.fixture
def loopback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str, Wheels], IndexServer]]:
    """loopback(dist, {version: files}) -> an IndexServer serving those wheels (with Range), and
    radpatch pointed at it through pip's own settings, with a cache of its own."""
    pip_to_loopback(monkeypatch, tmp_path / "cache")
    with servers() as serve:

        def start(dist: str, wheels: Wheels) -> IndexServer:
            for version, files in wheels.items():
                build_wheel(tmp_path / "wheels", dist, version, files)
            server = serve(tmp_path / "wheels")
            monkeypatch.setenv("PIP_INDEX_URL", server.url)
            return server

        yield start


@pytest.fixture
def real_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's pip settings and radpatch's shared cache (not a test's loopback index)."""
    monkeypatch.delenv("RADPATCH_CACHE", raising=False)


@pytest.fixture
def index(loopback: Callable[[str, Wheels], IndexServer]) -> IndexServer:
    """The toy releases (tests/lib/toy_releases: `size()` moving from core.py to planning.py) served."""
    from tests.lib.toy_releases import DIST, RELEASES

    return loopback(DIST, RELEASES)


@pytest.fixture
def no_shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`verify --all` and `list` see only the registries a test writes, not the shipped one."""
    from radpatch.registry import catalog

    (tmp_path / "none").mkdir()
    monkeypatch.setattr(catalog, "shipped_registry", lambda: tmp_path / "none")


@pytest.fixture
def toy_release(
    site: Site, loopback: Callable[[str, Wheels], IndexServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., None]:
    """toy_release(core, wheel=False): tests/lib/overlaps.released_toy, toypkg 1.0 of `core` served and
    installed in this test's `site`, with no shipped registry (the overlap agreement tests)."""

    def release(core: str, wheel: bool = False) -> None:
        released_toy(site, loopback, tmp_path, monkeypatch, core, wheel)

    return release
