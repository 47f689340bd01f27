"""A module-level name bound inside a block (`try: import orjson as json / except ImportError:
import json`, if/else, `if TYPE_CHECKING:`, with, for): a rewrite that adds or changes a binding
of that name is refused where its line would land above the block (which rebinds it, so the
change has no effect) or take the name over; a new constant that reads the name goes below the
block. Generated: each block kind times each way of binding the name times each operation."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from radpatch.rewrite.ops.add_import import AddImport
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from radpatch.rewrite.ops.set_constant import SetConstant
from tests.lib.generated import examples, turn_seed
from tests.lib.rewrites import check, refuse

BINDERS = {  # how a block binds `json`
    "import as": "import orjson as json",
    "import": "import json",
    "assignment": "json = None",
    "def": "def json():\n        pass",
    "class": "class json:\n        pass",
    "from import": "from simplejson import json",
}


def _block(kind: str, bind: str) -> str:
    return {
        "try": f"try:\n    {bind}\nexcept ImportError:\n    json = None\n",
        "try-else": f"try:\n    import os\nexcept ImportError:\n    pass\nelse:\n    {bind}\n",
        "if-else": f"if os.name == 'nt':\n    {bind}\nelse:\n    json = 0\n",
        "type-checking": f"if TYPE_CHECKING:\n    {bind}\n",
        "with": f"with open(os.devnull) as fh:\n    {bind}\n",
        "for": f"for _ in range(1):\n    {bind}\n",
    }[kind]


def module(kind: str, binder: str) -> str:
    return f"import os\nfrom typing import TYPE_CHECKING\n\n{_block(kind, BINDERS[binder])}\n\ndef f():\n    return 1\n"


blocks = st.sampled_from(("try", "try-else", "if-else", "type-checking", "with", "for"))
binders = st.sampled_from(sorted(BINDERS))


@settings(max_examples=examples(80), deadline=None, derandomize=True)
@turn_seed()
@given(blocks, binders, st.sampled_from(("import json", "import ujson as json", "from x import json")))
def test_an_import_rebinding_a_name_a_block_binds_is_refused(kind: str, binder: str, statement: str) -> None:
    src = module(kind, binder)
    lines = src.split("\n")
    binding = [k + 1 for k, x in enumerate(lines) if "json" in x and x.strip() != statement]
    if not binding:  # the block binds it only by the same import: adding that import changes nothing it binds
        after = src.replace("TYPE_CHECKING\n", f"TYPE_CHECKING\n{statement}  # radpatch: added import\n", 1)
        check(src, AddImport(statement), after)
        return
    exc = refuse(src, AddImport(statement))
    assert f"would rebind 'json', which the module binds at line {binding[0]}" in exc.message, (exc.message, src)
    assert "rename it with `as`" in exc.hint


@settings(max_examples=examples(60), deadline=None, derandomize=True)
@turn_seed()
@given(blocks, binders)
def test_a_new_constant_under_a_name_a_block_binds_is_refused(kind: str, binder: str) -> None:
    exc = refuse(module(kind, binder), SetConstant("json", "1"))
    assert "already binds json" in exc.message
    exc = refuse(module(kind, binder), SetConstant("json", "1", "None"))
    assert "json" in exc.message and ("binds json" in exc.message or "is not `json = value`" in exc.message)


@settings(max_examples=examples(60), deadline=None, derandomize=True)
@turn_seed()
@given(blocks, binders)
def test_a_new_constant_reading_a_name_a_block_binds_goes_below_the_block(kind: str, binder: str) -> None:
    src = module(kind, binder)
    block = _block(kind, BINDERS[binder])
    if kind == "type-checking":  # bound for type checkers only: reading it at import time is refused
        assert "only under `if TYPE_CHECKING:`" in refuse(src, SetConstant("NEW", "json")).message
        return
    check(src, SetConstant("NEW", "json"), src.replace(block, block + "NEW = json\n"))


@settings(max_examples=examples(40), deadline=None, derandomize=True)
@turn_seed()
@given(blocks, binders)
def test_a_payload_definition_under_a_name_a_block_binds_is_refused(kind: str, binder: str) -> None:
    op = InsertDefinitions(Path("p.py"), b"def json():\n    return 2\n", ("json",), "f", "before")
    exc = refuse(module(kind, binder), op)
    assert "already binds 'json'" in exc.message


def test_the_issue_case_orjson_fallback() -> None:
    src = "try:\n    import orjson as json\nexcept ImportError:\n    import json\n"
    assert "binds at line 2" in refuse(src, AddImport("import json")).message
    assert "already binds json (line 2)" in refuse(src + "X = 1\n", SetConstant("json", "1")).message
