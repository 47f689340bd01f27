"""The TYPE_CHECKING guard predicate the placement proofs share with the names proof: one rule for
`if TYPE_CHECKING:`, `if typing.TYPE_CHECKING:`, an alias (`from typing import TYPE_CHECKING as
TC`, `TC = TYPE_CHECKING`) and `TYPE_CHECKING and ...`/`not TYPE_CHECKING` (names/typing_only.py).

In radpatch's own process it is the names package beside this one; in the target interpreter's
probe (prove/target_probe) both packages are served at top level, as radpatch_names and
radpatch_placement, and the relative import beyond them fails: there it is radpatch_names.
"""

from __future__ import annotations

try:
    from ..names.typing_only import names_type_checking, type_checking, type_checking_names
except ImportError:  # served to the target interpreter: no parent package
    from radpatch_names.typing_only import (  # type: ignore[import-not-found,no-redef]
        names_type_checking,
        type_checking,
        type_checking_names,
    )

__all__ = ["names_type_checking", "type_checking", "type_checking_names"]
