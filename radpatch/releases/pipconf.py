"""The machine's pip settings, read the way pip reads them, without pip.

`radpatch verify` talks to the package index itself, so it works where radpatch's own
environment has no pip (pipx, `uv tool`). It reads the same settings pip would use for
`pip download`: configuration files, lowest precedence first,

  $XDG_CONFIG_DIRS/pip/pip.conf (default /etc/xdg/pip/pip.conf), /etc/pip.conf   global
  ~/.pip/pip.conf, $XDG_CONFIG_HOME/pip/pip.conf (default ~/.config/pip/pip.conf)  user
  $VIRTUAL_ENV/pip.conf                                                            site
  $PIP_CONFIG_FILE (os.devnull: no file at all; an existing file skips the user files)

their `[global]`, `[install]` and `[download]` sections in that order, then the PIP_* environment
variables (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_NO_INDEX, PIP_FIND_LINKS, PIP_CERT,
PIP_CLIENT_CERT, PIP_PROXY, PIP_TRUSTED_HOST, PIP_DEFAULT_TIMEOUT).
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import UsageError

PYPI = "https://pypi.org/simple/"
SECTIONS = ("global", "install", "download")
_KEYS = {  # pip option name -> the name used here (pip accepts an option's long name or its dest)
    "index-url": "index-url",
    "i": "index-url",
    "extra-index-url": "extra-index-url",
    "no-index": "no-index",
    "find-links": "find-links",
    "f": "find-links",
    "cert": "cert",
    "client-cert": "client-cert",
    "proxy": "proxy",
    "trusted-host": "trusted-host",
    "timeout": "timeout",
    "default-timeout": "timeout",
}


@dataclass(frozen=True)
class PipSettings:
    index_url: str
    extra_index_urls: tuple[str, ...]
    no_index: bool
    find_links: tuple[str, ...]
    cert: str | None  # CA bundle; None: the system's trust store
    client_cert: str | None
    proxy: str | None  # None: the http(s)_proxy environment variables, as urllib reads them
    trusted_hosts: frozenset[str]
    timeout: float
    files: tuple[str, ...]  # the configuration files that were read

    @property
    def indexes(self) -> tuple[str, ...]:
        return () if self.no_index else (self.index_url, *self.extra_index_urls)

    def describe(self) -> str:
        where = [*self.indexes, *(f"find-links {f}" for f in self.find_links)]
        return ", ".join(where) or "no index (no-index set, no find-links)"


def config_files(environ: Mapping[str, str], home: Path, etc: Path = Path("/etc")) -> list[Path]:
    """pip's configuration files in the order pip loads them (later ones win)."""
    env_file = environ.get("PIP_CONFIG_FILE")
    if env_file == os.devnull:
        return []
    xdg_dirs = [d for d in environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(os.pathsep) if d]
    files = [Path(d) / "pip" / "pip.conf" for d in xdg_dirs] + [etc / "pip.conf"]
    if not (env_file and Path(env_file).exists()):
        xdg_home = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
        files += [home / ".pip" / "pip.conf", xdg_home / "pip" / "pip.conf"]
    if environ.get("VIRTUAL_ENV"):
        files.append(Path(environ["VIRTUAL_ENV"]) / "pip.conf")
    if env_file:
        files.append(Path(env_file))
    return files


def read_settings(
    environ: Mapping[str, str] | None = None, home: Path | None = None, etc: Path = Path("/etc")
) -> PipSettings:
    environ = os.environ if environ is None else environ
    values: dict[str, str] = {}
    read: list[str] = []
    for path in config_files(environ, home or Path.home(), etc):
        if path.is_file():
            values.update(_read_file(path))
            read.append(str(path))
    for key, value in environ.items():
        if key.startswith("PIP_"):
            name = _KEYS.get(key[4:].lower().replace("_", "-"))
            if name:
                values[name] = value
    return PipSettings(
        index_url=values.get("index-url", PYPI).strip() or PYPI,
        extra_index_urls=tuple(values.get("extra-index-url", "").split()),
        no_index=_truthy(values.get("no-index", "")),
        find_links=tuple(values.get("find-links", "").split()),
        cert=values.get("cert") or None,
        client_cert=values.get("client-cert") or None,
        proxy=values.get("proxy") or None,
        trusted_hosts=frozenset(values.get("trusted-host", "").split()),
        timeout=_seconds(values.get("timeout", "")),
        files=tuple(read),
    )


def _read_file(path: Path) -> dict[str, str]:
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot read pip's configuration file {path}: {str(exc).splitlines()[0]}",
            "fix it (pip itself would refuse it too), or set PIP_CONFIG_FILE",
        )
    out: dict[str, str] = {}
    for section in SECTIONS:
        if parser.has_section(section):
            for key, value in parser.items(section):
                name = _KEYS.get(key.replace("_", "-"))
                if name:
                    out[name] = value
    return out


def _truthy(text: str) -> bool:
    return text.strip().lower() in ("1", "yes", "true", "on", "y", "t")


def _seconds(text: str) -> float:
    try:
        return float(text) if text.strip() else 15.0
    except ValueError:
        return 15.0
