"""set_constant (radpatch/rewrite/ops/set_constant.py): a module constant changed, or a new one placed
after what its value reads.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from radpatch.prove import plan
from radpatch.rewrite import runner
from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.rewrites import check, patch_of, refuse
from tests.lib.sources import HEADER
from tests.lib.vllm_files import VERSIONS, fixture


def test_set_constant_changes_its_value() -> None:
    check(HEADER, SetConstant("HANDSHAKE_TIMEOUT_MINS", "15", "5"), HEADER.replace("= 5", "= 15"))


def test_set_constant_reading_an_environment_variable_with_an_import() -> None:
    value = 'int(os.environ.get("VLLM_HANDSHAKE_TIMEOUT_MINS", "5"))'
    check(
        HEADER,
        (AddImport("import os"), SetConstant("HANDSHAKE_TIMEOUT_MINS", value, "5")),
        HEADER.replace("= 5", f"= {value}"),
    )


def test_set_constant_new_name_goes_after_imports() -> None:
    check(
        HEADER,
        SetConstant("RETRIES", "3"),
        HEADER.replace("from typing import Any\n", "from typing import Any\n    RETRIES = 3\n"),
    )


def test_set_constant_new_name_that_the_module_binds_is_a_clash() -> None:
    exc = refuse(HEADER, SetConstant("logger", "3"))
    assert "already binds logger (line 6)" in exc.message and "from:" in exc.hint


def test_a_new_constant_goes_after_the_module_names_its_value_reads() -> None:
    check(
        "import os\n\nlogger = None\nTIMEOUT_MINS = 5\n\n\ndef f():\n    return TIMEOUT_MINS\n",
        SetConstant("TIMEOUT_MS", "TIMEOUT_MINS * 60_000 + int(os.environ.get('X', '0'))"),
        "import os\n\nlogger = None\nTIMEOUT_MINS = 5\n"
        "TIMEOUT_MS = TIMEOUT_MINS * 60_000 + int(os.environ.get('X', '0'))\n\n\n"
        "def f():\n    return TIMEOUT_MINS\n",
    )


def test_a_new_constant_reading_only_imports_goes_after_the_imports() -> None:
    check("import os\n\nTIMEOUT_MINS = 5\n", SetConstant("X", "os.sep"), "import os\nX = os.sep\n\nTIMEOUT_MINS = 5\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_new_constant_from_an_upstream_constant_is_defined_after_it_in_real_core(version: str) -> None:
    patch = patch_of(SetConstant("RADIANCE_HANDSHAKE_MS", "HANDSHAKE_TIMEOUT_MINS * 60_000"))
    data = fixture(version, "vllm/v1/engine/core.py")
    after = plan.plan(patch, patch.rewrites, "m", Path("core.py"), data).after.decode()
    assert after.index("RADIANCE_HANDSHAKE_MS = ") > after.index("HANDSHAKE_TIMEOUT_MINS = 5")
    assert runner.backward(patch, patch.rewrites, after.encode(), "core.py") == data


@pytest.mark.parametrize(
    "later",
    [
        "if cond:\n    LIMIT = 8\n",
        "with cm() as LIMIT:\n    pass\n",
        "if (LIMIT := 9):\n    pass\n",
        "class LIMIT:\n    pass\n",
        "def LIMIT():\n    pass\n",
        "for LIMIT in range(3):\n    pass\n",
        "try:\n    pass\nexcept Exception as LIMIT:\n    pass\n",
        "try:\n    from x import LIMIT\nexcept ImportError:\n    pass\n",
    ],
    ids=["if", "with-as", "walrus", "class", "def", "for", "except-as", "try-import"],
)
def test_set_constant_refuses_a_name_a_later_statement_rebinds(later: str) -> None:
    # `LIMIT = 4` then a compound statement binding LIMIT: the module's LIMIT is not the one set
    source = f"LIMIT = 4\n{later}"
    assert "binds LIMIT 2 times" in refuse(source, SetConstant("LIMIT", "16", "4")).message
    assert "already binds LIMIT" in refuse(later, SetConstant("LIMIT", "16")).message


@pytest.mark.parametrize("with_from", [True, False], ids=["from", "new"])
@pytest.mark.parametrize(
    "binder",
    [
        "def init():\n    global LIMIT\n    LIMIT = 4\n\n\ninit()\n",
        "class C:\n    def setup(self):\n        global LIMIT, OTHER\n        LIMIT = 4\n",
        "def outer():\n    def inner():\n        global LIMIT\n        LIMIT += 1\n",
    ],
    ids=["function", "method", "nested"],
)
def test_set_constant_refuses_a_name_a_function_declares_global(binder: str, with_from: bool) -> None:
    source = ("LIMIT = 4\n\n\n" if with_from else "import os\n\n\n") + binder
    exc = refuse(source, SetConstant("LIMIT", "16", "4" if with_from else None))
    assert "declares `global LIMIT` (line" in exc.message and "replace" in exc.hint, exc.message
