"""Options that several commands share: checks made before anything is read, and `--wheel`
(apply and restore take the same: files or directories of wheels, the installed version's chosen)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from radpatch.errors import RefusedError, UsageError
from radpatch.install.environment import Installed

FC = TypeVar("FC", bound=Callable[..., Any])


def wheels_option(help: str) -> Callable[[FC], FC]:
    """`--wheel FILE|DIR`, repeatable, into `wheels` (apply, restore): a wheel, or a directory of wheels."""
    return click.option(
        "--wheel", "wheels", multiple=True, type=click.Path(dir_okay=True), metavar="FILE|DIR", help=help
    )


def wheel_of(dist: Installed, wheels: tuple[str, ...]) -> Path:
    """The given wheel of `dist`'s name and version (a directory stands for the wheels in it)."""
    from packaging.utils import canonicalize_name, parse_wheel_filename

    files: list[Path] = []
    for w in map(Path, wheels):
        files += sorted(w.glob("*.whl")) if w.is_dir() else [w]
    for f in files:
        try:
            name, version, _, _ = parse_wheel_filename(f.name)
        except ValueError:
            continue
        if canonicalize_name(name) == canonicalize_name(dist.name) and version == dist.version:
            return f
    if len(files) == 1:
        return files[0]  # pristine.from_wheel says what is wrong with it
    raise RefusedError(
        f"no --wheel given is {dist.name} {dist.version} ({', '.join(str(f) for f in files) or 'no .whl file'})",
        f"give the wheel {dist.name} {dist.version} was installed from: --wheel FILE (or a directory holding it)",
    )


def check_supported(supported: str | None) -> None:
    """`--supported` (import, capture): a PEP 440 version range, or not given."""
    if supported is None:
        return
    try:
        SpecifierSet(supported)
    except InvalidSpecifier:
        raise UsageError(
            f"--supported {supported!r} is not a PEP 440 version range", "e.g. --supported '>=0.32,<0.34'"
        ) from None
