"""insert_definitions (radpatch/rewrite/ops/insert_definitions.py): a payload module's definitions
placed around a named top-level def.

Every case runs through plan.plan as the engine runs it (compile, names, reverse proof);
tests/lib/rewrites.py's check compares whole modules and proves the structural inverse.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from tests.lib.rewrites import check, refusal, refuse
from tests.lib.sources import HEADER, MODULE, PAYLOAD


def test_payload_imports_and_constants_are_placed_not_dropped() -> None:
    payload = (
        b'"""Payload."""\nimport re\nimport os\n\n_RP_LIMIT = 4\n\n\ndef _rp_parse(s):\n'
        b'    return re.findall("x", s)[:_RP_LIMIT]\n'
    )
    op = InsertDefinitions(Path("p.py"), payload, ("_RP_LIMIT", "_rp_parse"), "f", "before")
    check(
        HEADER,
        op,
        HEADER.replace(
            "from typing import Any\n", "from typing import Any\n    import re  # radpatch: added import\n"
        ).replace(
            "HANDSHAKE_TIMEOUT_MINS = 5\n",
            "HANDSHAKE_TIMEOUT_MINS = 5\n\n\n    _RP_LIMIT = 4\n\n\n    def _rp_parse(s):\n"
            '        return re.findall("x", s)[:_RP_LIMIT]\n',
        ),
    )


def test_payload_def_taking_over_an_imported_name_is_refused() -> None:
    op = InsertDefinitions(Path("p.py"), b"def Any():\n    pass\n", ("Any",), "f", "before")
    exc = refuse(HEADER, op)
    assert "already binds 'Any' (line 4)" in exc.message and "rename" in exc.hint


def test_payload_future_import_the_target_lacks_is_refused() -> None:
    op = InsertDefinitions(
        Path("p.py"), b"from __future__ import annotations\n\n\ndef _rp():\n    pass\n", ("_rp",), "f", "before"
    )
    assert "__future__" in refuse(HEADER, op).message


def defs(anchor: str, where: str) -> InsertDefinitions:
    return InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper", "_rp_glue"), anchor, where)  # type: ignore[arg-type]


def test_insert_definitions_before_a_named_def() -> None:
    check(
        MODULE,
        defs("target", "before"),
        '''\
        import os


        def first():
            return 1


        def _rp_helper(x):
            return x + 1


        # a comment between definitions
        def _rp_glue(y):
            """Docstring kept."""
            return _rp_helper(y)


        # The anchor's own comment stays with it.
        def target(a):
            return a


        def last():
            return 3
        ''',
    )


def test_insert_definitions_after_a_named_def() -> None:
    check(
        MODULE,
        defs("target", "after"),
        '''\
        import os


        def first():
            return 1


        # The anchor's own comment stays with it.
        def target(a):
            return a


        def _rp_helper(x):
            return x + 1


        # a comment between definitions
        def _rp_glue(y):
            """Docstring kept."""
            return _rp_helper(y)


        def last():
            return 3
        ''',
    )


def test_insert_definitions_after_the_last_def() -> None:
    check(
        MODULE,
        defs("last", "after"),
        '''\
        import os


        def first():
            return 1


        # The anchor's own comment stays with it.
        def target(a):
            return a


        def last():
            return 3


        def _rp_helper(x):
            return x + 1


        # a comment between definitions
        def _rp_glue(y):
            """Docstring kept."""
            return _rp_helper(y)
        ''',
    )


def test_insert_definitions_only_the_named_subset() -> None:
    op = InsertDefinitions(Path("payload.py"), PAYLOAD, ("_rp_helper",), "first", "before")
    check(
        "import os\n\n\ndef first():\n    return 1\n",
        op,
        "import os\n\n\ndef _rp_helper(x):\n    return x + 1\n\n\ndef first():\n    return 1\n",
    )


def test_insert_definitions_missing_anchor_names_the_closest() -> None:
    message = refusal(MODULE, defs("targte", "before"))
    assert "'targte' not found in the module" in message
    assert "closest: target" in message


def test_insert_definitions_refuses_to_shadow_an_existing_def() -> None:
    message = refusal(textwrap.dedent(MODULE) + "\n\ndef _rp_glue():\n    pass\n", defs("target", "after"))
    assert "already binds '_rp_glue' (line 17)" in message


def test_insert_definitions_anchor_must_be_top_level() -> None:
    source = "class C:\n    def target(self):\n        pass\n"
    assert "'target' not found" in refusal(source, defs("target", "after"))


def _payload_op(tmp_path: Path, text: str, **where: str) -> InsertDefinitions:
    f = tmp_path / "payload.py"
    f.write_text(text)
    names = tuple(n for n in ("_RP_MS", "_rp_f") if n in text)
    return InsertDefinitions(
        f, f.read_bytes(), names, where.get("before") or where["after"], "before" if "before" in where else "after"
    )


LIMIT_MODULE = "import os\n\n\ndef first():\n    return 1\n\n\nLIMIT = 5\n\n\ndef last():\n    return LIMIT\n"


def test_a_payload_constant_reading_a_module_name_bound_below_it_is_refused(tmp_path: Path) -> None:
    err = refuse(LIMIT_MODULE, _payload_op(tmp_path, "_RP_MS = LIMIT * 1000\n", after="first"))
    assert "reads 'LIMIT' when the module is imported" in err.message and "line 8" in err.message
    assert "`after:`" in err.hint


def test_a_payload_constant_reading_a_module_name_bound_above_it_applies(tmp_path: Path) -> None:
    check(
        LIMIT_MODULE,
        _payload_op(tmp_path, "_RP_MS = LIMIT * 1000\n", before="last"),
        LIMIT_MODULE.replace("LIMIT = 5\n", "LIMIT = 5\n\n\n_RP_MS = LIMIT * 1000\n"),
    )


def test_a_payload_decorator_reading_a_module_name_bound_below_is_refused(tmp_path: Path) -> None:
    err = refuse(LIMIT_MODULE, _payload_op(tmp_path, "@LIMIT\ndef _rp_f():\n    return 1\n", before="first"))
    assert "'_rp_f' reads 'LIMIT'" in err.message
