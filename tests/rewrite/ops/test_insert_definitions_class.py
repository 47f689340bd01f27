"""insert_definitions into a class: `before:`/`after: Class.method`, `into: Class`.

Literal sources run through plan.plan as apply does (compile, names, placement, the reverse
proof) and undo byte for byte; real vLLM 0.32.0/0.33.0 coordinator.py through the CLI on a fake
site-packages (apply, status --check, byte-identical revert), the added method read back with ast.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any, Literal

import pytest
from packaging.specifiers import SpecifierSet

from radpatch.errors import RefusedError, RegistryError
from radpatch.prove import plan
from radpatch.registry.loader import load_patch
from radpatch.registry.model import Patch, Rewrite
from radpatch.rewrite import runner
from radpatch.rewrite.ops.common.payload_items import payload
from radpatch.rewrite.ops.insert_definitions import InsertDefinitions
from tests.lib.registry import write_entry
from tests.lib.vllm_files import VERSIONS, install_vllm

TARGET = '''\
import os


class Engine:
    """An engine."""

    LIMIT = 4

    def start(self):
        return os.getpid()

    # stopping
    @property
    def stopped(self):
        return False

    class Config:
        size = 1

        def total(self):
            return self.size
'''

PAYLOAD = b'''\
"""Methods for Engine."""
import logging


def _rp_restart(self):
    logging.info("restart")
    return self.start()


_RP_TRIES = 3
'''


def op(where: Literal["before", "after", "into"], anchor: str, names: tuple[str, ...] = ()) -> InsertDefinitions:
    return InsertDefinitions(Path("payload.py"), PAYLOAD, names or ("_rp_restart", "_RP_TRIES"), anchor, where)


def patch_of(*ops: InsertDefinitions) -> Patch:
    rws = tuple(Rewrite(f"r{i}", "mod", None, o, f"reg.yaml:{i + 1}") for i, o in enumerate(ops))
    return Patch("t", "t", "t", "toypkg", SpecifierSet(""), None, (), (), rws, Path("t.yaml"), "0")


def apply(before: str, *ops: InsertDefinitions) -> str:
    """The patched module as apply plans it (with the proofs), checked to undo byte for byte."""
    patch = patch_of(*ops)
    after = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), before.encode()).after
    assert runner.backward(patch, patch.rewrites, after, "mod.py") == before.encode()
    return after.decode()


def body_names(source: str, *path: str) -> list[str]:
    node: Any = ast.parse(source)
    for name in path:
        node = next(n for n in node.body if isinstance(n, ast.ClassDef) and n.name == name)
    return [t for s in node.body for t in _names(s)]


def _names(s: ast.stmt) -> list[str]:
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [s.name]
    if isinstance(s, ast.Assign):
        return [t.id for t in s.targets if isinstance(t, ast.Name)]
    return ["<docstring>"] if isinstance(s, ast.Expr) else []


def test_after_a_method_the_payload_is_indented_into_the_class_after_it() -> None:
    after = apply(TARGET, op("after", "Engine.start"))
    assert body_names(after, "Engine") == [
        "<docstring>",
        "LIMIT",
        "start",
        "_rp_restart",
        "_RP_TRIES",
        "stopped",
        "Config",
    ]
    assert '\n    def _rp_restart(self):\n        logging.info("restart")\n' in after
    assert "import logging  # radpatch: added import" in after
    assert "    # stopping\n    @property" in after  # the comment stays with its method


def test_before_a_method_goes_above_its_comment_and_decorators() -> None:
    after = apply(TARGET, op("before", "Engine.stopped", ("_rp_restart",)))
    assert body_names(after, "Engine") == ["<docstring>", "LIMIT", "start", "_rp_restart", "stopped", "Config"]
    assert after.index("def _rp_restart") < after.index("# stopping") < after.index("@property")


def test_into_a_class_goes_at_the_end_of_its_body_and_nested_classes_work() -> None:
    after = apply(TARGET, op("into", "Engine"))
    assert body_names(after, "Engine")[-2:] == ["_rp_restart", "_RP_TRIES"]
    after = apply(TARGET, op("into", "Engine.Config"))
    assert body_names(after, "Engine", "Config") == ["size", "total", "_rp_restart", "_RP_TRIES"]
    assert "\n        def _rp_restart(self):\n            logging.info" in after


def test_before_the_first_statement_of_a_body() -> None:
    after = apply(TARGET, op("before", "Engine.Config.total", ("_rp_restart",)))
    assert body_names(after, "Engine", "Config") == ["size", "_rp_restart", "total"]
    src = "class A:\n    def f(self):\n        return 1\n"
    after = apply(src, op("before", "A.f", ("_rp_restart",)))
    assert body_names(after, "A") == ["_rp_restart", "f"]


def test_a_file_without_a_final_newline_keeps_having_none() -> None:
    src = "class A:\n    def f(self):\n        return 1"
    after = apply(src, op("into", "A", ("_rp_restart",)))
    assert body_names(after, "A") == ["f", "_rp_restart"] and not after.endswith("\n")


def test_crlf_files_get_crlf_lines() -> None:
    src = TARGET.replace("\n", "\r\n")
    after = apply(src, op("after", "Engine.start"))
    assert "\n" not in after.replace("\r\n", "")


def test_a_name_the_class_binds_is_refused_as_shadowing_it() -> None:
    taken = b"def start(self):\n    return 0\n\n\nLIMIT = 5\n"
    for name in ("start", "LIMIT"):
        o = InsertDefinitions(Path("payload.py"), taken, (name,), "Engine", "into")
        patch = patch_of(o)
        with pytest.raises(RefusedError) as info:
            runner.forward(patch, patch.rewrites, TARGET.encode(), "mod.py")
        assert f"class 'Engine' already binds {name!r}" in info.value.message
        assert "would shadow it" in info.value.message


@pytest.mark.parametrize(
    ("where", "anchor", "message"),
    [
        ("after", "Engine.strat", "class 'Engine' defines no method 'strat'; closest: start"),
        ("into", "Engin", "class 'Engin' not found in the module; closest: Engine"),
        ("into", "Engine.Nope", "'Engine' defines no class 'Nope'"),
        ("into", "Engine.start", "'Engine.start' is a function, not a class"),
    ],
)
def test_a_missing_anchor_is_refused_naming_what_is_there(where: str, anchor: str, message: str) -> None:
    patch = patch_of(op(where, anchor))  # type: ignore[arg-type]
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, TARGET.encode(), "mod.py")
    assert message in info.value.message


def test_a_decorator_read_when_the_class_is_created_must_be_bound_above_it() -> None:
    late = b"@_registry\ndef _rp_hook(self):\n    return 1\n"
    src = "class A:\n    def f(self):\n        return 1\n\n\ndef _registry(f):\n    return f\n"
    patch = patch_of(InsertDefinitions(Path("payload.py"), late, ("_rp_hook",), "A", "into"))
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, src.encode(), "mod.py")
    assert "reads '_registry' when class 'A' is created" in info.value.message


def test_the_inverse_removes_exactly_the_payload_and_refuses_an_edited_one() -> None:
    o = op("after", "Engine.start")
    patch = patch_of(o)
    after = runner.forward(patch, patch.rewrites, TARGET.encode(), "mod.py")
    edited = after.replace(b'logging.info("restart")', b'logging.info("again")')
    with pytest.raises(RefusedError) as info:
        runner.backward(patch, patch.rewrites, edited, "mod.py")
    assert "differ from the payload payload.py: _rp_restart" in info.value.message
    moved = apply(TARGET, op("into", "Engine"))
    with pytest.raises(RefusedError) as info:
        runner.backward(patch, patch.rewrites, moved.encode(), "mod.py")
    assert "are not after 'Engine.start'" in info.value.message
    assert payload(PAYLOAD).items["_rp_restart"][0].startswith("def _rp_restart")


# --- the registry and real vLLM files ------------------------------------------------------------

COORD = "vllm/v1/engine/coordinator.py"
METHOD = '''\
def _rp_engine_count(self) -> int:
    """How many engines the coordinator tracks (added by radpatch)."""
    return len(self.engines)
'''


def entry(where: str, anchor: str) -> str:
    return textwrap.dedent(f"""\
        summary: a method added to a class
        description: test
        distribution: vllm
        supported: ">=0.32.0,<0.34"
        modules:
          coordinator: vllm.v1.engine.coordinator
        rewrites:
          - id: add-method
            insert_definitions:
              payload: method.py
              {where}: {anchor}
        """)


@pytest.mark.parametrize(("where", "anchor"), [("after", "DPCoordinatorProc.__init__"), ("into", "DPCoordinatorProc")])
@pytest.mark.parametrize("version", VERSIONS)
def test_real_coordinator_gets_a_method_applies_reads_applied_and_reverts_byte_for_byte(
    version: str, where: str, anchor: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    originals = install_vllm(site.root, version)
    reg = tmp_path / "reg"
    write_entry(reg, "count", entry(where, anchor), {"method.py": METHOD})
    r = radpatch("--registry", str(reg), "apply", "count")
    assert r.code == 0, r.err
    patched = (site.root / COORD).read_text()
    names = body_names(patched, "DPCoordinatorProc")
    assert names.count("_rp_engine_count") == 1
    i = names.index("_rp_engine_count")
    assert names[i - 1] == "__init__" if where == "after" else i == len(names) - 1
    assert radpatch("--registry", str(reg), "status", "--check", "count").code == 0
    assert radpatch("--registry", str(reg), "revert", "count").code == 0
    assert site.snapshot()[COORD] == originals[COORD]


def test_the_loader_reads_into_and_dotted_anchors_and_refuses_module(tmp_path: Path) -> None:
    f = write_entry(tmp_path, "e", entry("into", "DPCoordinatorProc"), {"method.py": METHOD})
    (rw,) = load_patch(f).rewrites
    assert isinstance(rw.op, InsertDefinitions) and (rw.op.side, rw.op.anchor) == ("into", "DPCoordinatorProc")
    write_entry(tmp_path, "e", entry("before", "DPCoordinatorProc.run_coordinator"))
    (rw,) = load_patch(f).rewrites
    assert isinstance(rw.op, InsertDefinitions) and rw.op.in_class
    write_entry(tmp_path, "e", entry("into", "'<module>'"))
    with pytest.raises(RegistryError) as info:
        load_patch(f)
    assert any("not `<module>`" in p for p in info.value.problems)


def _refused(src: str, payload_bytes: bytes, name: str, anchor: str = "P") -> str:
    patch = patch_of(InsertDefinitions(Path("payload.py"), payload_bytes, (name,), anchor, "into"))
    with pytest.raises(RefusedError) as info:
        runner.forward(patch, patch.rewrites, src.encode(), "mod.py")
    return info.value.message


@pytest.mark.parametrize(
    ("slots", "name"),
    [('("cache",)', "cache"), ('["a", "cache"]', "cache"), ('"cache"', "cache"), ("tuple(NAMES)", "other")],
    ids=["tuple", "list", "one-string", "unreadable"],
)
def test_a_name_in_the_class_slots_is_a_class_binding(slots: str, name: str) -> None:
    # `cache = None` in a class whose __slots__ lists cache: creating the class raises ValueError
    src = f"NAMES = ()\n\n\nclass P:\n    __slots__ = {slots}\n\n    def f(self):\n        return 1\n"
    for item in (f"{name} = None\n", f"def {name}(self):\n    return 1\n"):
        message = _refused(src, item.encode(), name)
        assert f"class 'P' already binds {name!r} (line 5" in message, message


@pytest.mark.parametrize(
    "header",
    [
        "import typing\n\n\nclass P(typing.NamedTuple):\n",
        "import dataclasses\n\n\n@dataclasses.dataclass\nclass P:\n",
        "from typing import TypedDict\n\n\nclass P(TypedDict):\n",
        "class Base:\n    pass\n\n\nclass P(Base):\n",
    ],
    ids=["namedtuple", "dataclass", "typeddict", "any-base"],
)
def test_an_annotated_payload_constant_is_refused_in_a_class_that_may_make_it_a_field(header: str) -> None:
    src = header + "    x: int\n"
    message = _refused(src, b"_rp_extra: int = 0\n", "_rp_extra")
    assert "the payload's '_rp_extra' is annotated" in message and "field" in message, message
    # the plain (unannotated) constant and a method go in
    for item, name in ((b"_rp_extra = 0\n", "_rp_extra"), (b"def _rp_m(self):\n    return 1\n", "_rp_m")):
        after = apply(src, InsertDefinitions(Path("payload.py"), item, (name,), "P", "into"))
        assert name in body_names(after, "P")


def test_a_plain_payload_constant_is_refused_in_an_enum() -> None:
    src = "import enum\n\n\nclass P(enum.Enum):\n    A = 1\n"
    assert "is an enum" in _refused(src, b"_RP_B = 2\n", "_RP_B")


def test_a_payload_method_with_a_multi_line_string_keeps_the_string_and_undoes() -> None:
    # indenting the lines inside a docstring or a triple-quoted value would change it (and the undo)
    item = b'def _rp_help(self):\n    """First line.\n\n    More.\n"""\n    return """a\nb\n  c"""\n'
    after = apply(TARGET, InsertDefinitions(Path("payload.py"), item, ("_rp_help",), "Engine", "into"))
    payload = ast.parse(item).body[0]  # the payload's own function
    assert isinstance(payload, ast.FunctionDef)
    tree = ast.parse(after)
    engine = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine")
    method = next(n for n in engine.body if isinstance(n, ast.FunctionDef) and n.name == "_rp_help")
    # the string constants themselves (Python 3.13's compiler dedents __doc__, so not __doc__)
    raw = ast.get_docstring(payload, clean=False)
    assert ast.get_docstring(method, clean=False) == raw == "First line.\n\n    More.\n"
    assert '    return """a\nb\n  c"""\n' in after
