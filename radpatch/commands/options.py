"""Checks of options that several commands share, made before anything is read."""

from __future__ import annotations

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from radpatch.errors import UsageError


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
