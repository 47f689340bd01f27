"""An operation's enum-valued key (issue 22): its `Field` declares the allowed values
(`kind="choice"`, `choices=`), one generic reader checks them and one schema rule renders them, so
an operation adding such a key edits neither the loader nor the schema generator. The loader's
message for a bad value is the one the per-kind readers gave."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import jsonschema
import pytest
import yaml

from radpatch.registry import json_schema
from radpatch.registry.loader import field_kinds, load_patch
from radpatch.registry.model import Field
from radpatch.rewrite.ops import OPERATIONS
from radpatch.rewrite.ops.delete import Delete
from tests.lib.registry import load_problems, toy_entry_with, write_toy

COLOURS = ("red", "green", "blue")


@dataclass(frozen=True)
class _Tinted(Delete):
    """A toy operation: a delete with a new enum-valued key, declared in its FIELDS alone."""

    colour: str = "red"

    KEY: ClassVar[str] = "toy_tinted"
    FIELDS: ClassVar[tuple[Field, ...]] = (
        *Delete.FIELDS,
        Field("colour", "choice", "optional: the tint", required=False, choices=COLOURS),
    )
    EXAMPLE: ClassVar[str] = "scope: f\nfind: x = 1\ncolour: green"


@pytest.fixture
def tinted(monkeypatch: pytest.MonkeyPatch) -> type[_Tinted]:
    monkeypatch.setitem(OPERATIONS, _Tinted.KEY, _Tinted)
    return _Tinted


def _schema() -> dict[str, object]:
    return json.loads(json_schema.render())  # type: ignore[no-any-return]


@pytest.mark.parametrize("value", COLOURS)
def test_a_new_choice_key_loads_each_declared_value(tmp_path: Path, tinted: type[_Tinted], value: str) -> None:
    f = write_toy(tmp_path, toy_entry_with(f"- toy_tinted: {{scope: f, find: x = 1, colour: {value}}}"))
    (rewrite,) = load_patch(f).rewrites
    assert isinstance(rewrite.op, tinted) and rewrite.op.colour == value
    jsonschema.validate(yaml.safe_load(f.read_text()), _schema())


@pytest.mark.parametrize("value", ["purple", "Red", "''", "1"])
def test_a_new_choice_key_refuses_other_values_in_loader_and_schema(
    tmp_path: Path, tinted: type[_Tinted], value: str
) -> None:
    f = write_toy(tmp_path, toy_entry_with(f"- toy_tinted: {{scope: f, find: x = 1, colour: {value}}}"))
    (problem,) = load_problems(f)
    shown = repr(str(yaml.safe_load(value) if value != "1" else "1"))
    assert problem.endswith(f"at rewrites[0].toy_tinted.colour: {shown}: expected one of red, green, blue"), problem
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(f.read_text()), _schema())


def test_the_schema_renders_a_choice_field_from_its_declaration(tinted: type[_Tinted]) -> None:
    rewrite = json_schema.build()["properties"]["rewrites"]["items"]["properties"]
    assert rewrite["toy_tinted"]["properties"]["colour"] == {"enum": list(COLOURS), "description": "optional: the tint"}


# --- the operations' own enum keys: declared by their fields, read by the one reader ---------------

BAD_VALUES = [
    (
        "- add_decorator: {function: f, decorator: x, position: middle}",
        "add_decorator.position",
        "'middle'",
        "top, bottom",
    ),
    ("- remove_decorator: {function: f, decorator: x, position: ''}", "remove_decorator.position", "''", "top, bottom"),
    ("- delete: {scope: f, find: x = 1, marker: 3}", "delete.marker", "'3'", "pass, comment"),
    ("- delete: {scope: f, find: x = 1, marker: Pass}", "delete.marker", "'Pass'", "pass, comment"),
    (
        "- set_keyword: {scope: f, call: g, keyword: k, to: '1', header: body}",
        "set_keyword.header",
        "'body'",
        "decorators, defaults",
    ),
]


@pytest.mark.parametrize(("rewrite", "key", "shown", "allowed"), BAD_VALUES)
def test_a_bad_enum_value_is_reported_as_before(
    tmp_path: Path, rewrite: str, key: str, shown: str, allowed: str
) -> None:
    f = write_toy(tmp_path, toy_entry_with(rewrite))
    (problem,) = load_problems(f)
    lines = f.read_text().splitlines()
    line = lines.index("  " + rewrite) + 1
    name = key.split(".")[1]
    column = lines[line - 1].index(f"{name}: ") + len(name) + 3  # 1-based, at the value
    assert problem == f"{f}:{line}:{column}: at rewrites[0].{key}: {shown}: expected one of {allowed}"


def test_every_enum_key_of_the_operations_is_a_declared_choice() -> None:
    fields = [f for spec in OPERATIONS.values() for f in spec.FIELDS]
    choices = {f.key: f.choices for f in fields if f.kind == "choice"}
    assert choices == {
        "position": ("top", "bottom"),
        "marker": ("pass", "comment"),
        "header": ("decorators", "defaults"),
    }
    assert all(f.kind in field_kinds.READERS or f.kind in ("payload", "choice") for f in fields)
    assert not {"position", "marker", "header"} & (set(field_kinds.READERS) | set(json_schema.KINDS))


def test_a_choice_field_must_name_its_values_and_only_a_choice_field_may() -> None:
    with pytest.raises(ValueError, match="choices"):
        Field("colour", "choice", "the tint")
    with pytest.raises(ValueError, match="choices"):
        Field("colour", "identifier", "the tint", choices=COLOURS)
