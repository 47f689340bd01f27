"""Options that several commands share: checks made before anything is read, and `--wheel`
(apply and restore take the same: files or directories of wheels, the installed version's chosen)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from radpatch.errors import UsageError
from radpatch.install.environment import Installed

FC = TypeVar("FC", bound=Callable[..., Any])


def wheels_option(help: str) -> Callable[[FC], FC]:
    """`--wheel FILE|DIR`, repeatable, into `wheels` (apply, restore): a wheel, or a directory of wheels."""
    return click.option(
        "--wheel", "wheels", multiple=True, type=click.Path(dir_okay=True), metavar="FILE|DIR", help=help
    )


def wheel_of(dist: Installed, wheels: tuple[str, ...]) -> Path:
    """The given wheel of `dist`'s name and version (a directory stands for the wheels in it):
    releases.pristine.local_wheel, as apply, restore and capture choose it."""
    from radpatch.releases.pristine import local_wheel

    return local_wheel(dist, wheels)


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
