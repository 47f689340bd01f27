"""The operations' specs, once: the JSON Schema generated from them (radpatch/registry/json_schema.py)
is the committed one, accepts and refuses what the loader does, validates every example and every
operation's own example; the README shows a sample of them and points to the generated reference."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml

from radpatch.registry import json_schema
from radpatch.registry.loader import load_patch
from radpatch.rewrite.ops import OPERATIONS
from tests.lib import REPO
from tests.lib.registry import load_problems as problems
from tests.lib.registry import schema_validate, toy_entry_with
from tests.lib.registry import write_toy as write

README = REPO / "README.md"
EXAMPLES = REPO / "examples" / "registry"


def test_the_committed_json_schema_is_what_the_specs_generate() -> None:
    assert json_schema.PATH.read_text() == json_schema.render(), "run: python -m radpatch.registry.json_schema"


SAMPLES_VALID = [
    "- set_default: {function: A.f, parameter: t, from: 300, to: 900}",
    "- add_decorator: {function: f, decorator: functools.cache, position: bottom}",
    "- remove_decorator: {function: C.f, decorator: staticmethod}",
    "- replace_decorator: {function: f, find: 'cache', with: 'cache(1)'}",
    "- wrap_body:\n    function: f\n    with: |\n      try:\n          __body__\n      finally:\n          pass",
    "- replace_body: {function: f, find: return 1, with: return 2}",
    "- delete: {scope: f, find: x = 1, occurrence: 2}",
    "- replace: {scope: f, find: x = 1, with: x = 2, within: 'for a in b:'}",
    "- add_import: {import: from a import b}",
    "- set_constant: {name: LIMIT, value: 3}",
    "- id: call\n  versions: '>=1.2'\n  insert_before: {scope: plan, find: size = 1, code: pass}",
    "- insert_definitions: {payload: payload.py, names: [_rp_helper], after: plan}",
]
SAMPLES_INVALID = [
    "- set_default: {function: A.f, parameter: t, to: 900}",  # missing from
    "- add_decorator: {function: f, decorator: x, position: middle}",  # bad position
    "- wrap_body: {function: f, with: 'try:\\n    pass\\nfinally:\\n    pass'}".replace(
        "'", '"'
    ),  # no __body__ (loader only)
    "- delete: {scope: f, find: x = 1, occurrence: 0}",  # occurrence from 1
    "- replace: {scope: f, find: '', with: x}",  # empty find
    "- add_import: {import: x = 1}",  # not an import
    "- set_constant: {name: 1x, value: 3}",  # not an identifier
    "- replace: {scope: f, find: a, with: b, extra: 1}",  # unknown key
    "- insert_definitions: {payload: payload.py, before: a, after: b}",  # both sides
    "- add_parameter: {function: f, name: x, default: 1}\n  replace: {scope: f, find: a, with: b}",  # two operations
]
SCHEMA_BLIND = {2}  # a rule JSON Schema cannot state (the template must hold `__body__`): the loader alone refuses it


@pytest.mark.parametrize("sample", SAMPLES_VALID)
def test_loader_and_schema_accept_the_same_valid_samples(tmp_path: Path, sample: str) -> None:
    f = write(tmp_path, toy_entry_with(sample))
    load_patch(f)
    schema_validate(yaml.safe_load(f.read_text()))


@pytest.mark.parametrize("index", range(len(SAMPLES_INVALID)))
def test_loader_and_schema_refuse_the_same_invalid_samples(tmp_path: Path, index: int) -> None:
    f = write(tmp_path, toy_entry_with(SAMPLES_INVALID[index]))
    assert problems(f)
    if index not in SCHEMA_BLIND:
        with pytest.raises(jsonschema.ValidationError):
            schema_validate(yaml.safe_load(f.read_text()))


def test_every_example_validates_against_the_schema() -> None:
    for f in sorted(EXAMPLES.glob("*.yaml")):
        schema_validate(yaml.safe_load(f.read_text()))


def test_the_readmes_operation_examples_are_real_operations_and_it_points_to_the_full_list() -> None:
    """The front page shows a sample; the reference (generated from the specs, checked by
    tests/docs) lists every operation, so a new operation is one module, not a README edit too."""
    section = README.read_text().split("## The registry format")[1].split("\n## ")[0]
    shown = re.findall(r"^- ([a-z_]+):", section, flags=re.MULTILINE)
    assert len(shown) >= 10 and set(shown) <= set(OPERATIONS), set(shown) - set(OPERATIONS)
    assert "every key and\noperation is in the reference, [docs/registry.md](docs/registry.md)" in section


@pytest.mark.parametrize("key", list(OPERATIONS))
def test_each_operations_declared_example_loads_and_validates(tmp_path: Path, key: str) -> None:
    example = OPERATIONS[key].EXAMPLE.replace("../patches/kv_group_size/payload.py", "payload.py")  # type: ignore[attr-defined]
    f = write(tmp_path, toy_entry_with(f"- {key}:\n" + textwrap.indent(example, "    ") + "\n"))
    load_patch(f)
    schema_validate(yaml.safe_load(f.read_text()))
