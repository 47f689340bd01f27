"""add_import (radpatch/rewrite/ops/add_import.py): placed after the imports, a no-op when already there,
refused when it would rebind a name.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

from radpatch.rewrite.ops.add_import import AddImport
from tests.lib.rewrites import check, refuse
from tests.lib.sources import HEADER


def test_add_import_goes_after_the_imports() -> None:
    check(
        HEADER,
        AddImport("import re"),
        HEADER.replace("from typing import Any\n", "from typing import Any\n    import re  # radpatch: added import\n"),
    )


def test_add_import_already_there_is_a_no_op_and_revert_keeps_it() -> None:
    check(HEADER, AddImport("from typing import Any"), HEADER)


def test_an_import_that_would_rebind_a_module_name_is_refused() -> None:
    exc = refuse(HEADER, AddImport("from mylog import logger"))
    assert "would rebind 'logger', which the module binds at line 6" in exc.message and "rename" in exc.hint


def test_an_import_of_a_submodule_of_an_imported_module_is_no_clash() -> None:
    check(
        HEADER,
        AddImport("import os.path"),
        HEADER.replace(
            "from typing import Any\n", "from typing import Any\n    import os.path  # radpatch: added import\n"
        ),
    )


def test_an_import_another_entry_added_is_held_by_both_and_each_inverse_takes_one_off() -> None:
    added = HEADER.replace(
        "from typing import Any\n", "from typing import Any\n    import re  # radpatch: added import\n"
    )
    held = added.replace("# radpatch: added import\n", "# radpatch: added import (by 2 rewrites)\n")
    check(added, AddImport("import re"), held)  # the reverse proof gives back `added`, the line kept
    check(held, AddImport("import re"), held.replace("(by 2 rewrites)", "(by 3 rewrites)"))
