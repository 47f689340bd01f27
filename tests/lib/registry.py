"""The one registry writer: a patch's YAML entry and its payload files, in a registry directory;
and the toy entry the loader's and the JSON Schema's tests vary.

Tests that need odd bytes (hostile input, tabs, whitespace-only lines) pass dedent=False so the
file holds exactly what they typed."""

from __future__ import annotations

import functools
import json
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from radpatch.errors import RegistryError
from radpatch.registry import json_schema
from radpatch.registry.loader import load_patch


def write_entry(
    directory: Path, name: str, text: str, payloads: Mapping[str, str] | None = None, dedent: bool = True
) -> Path:
    """Write `directory`/`name`.yaml and each payload (relpath -> source); return the YAML file."""

    def form(source: str) -> str:
        return textwrap.dedent(source) if dedent else source

    directory.mkdir(parents=True, exist_ok=True)
    entry = directory / f"{name}.yaml"
    entry.write_text(form(text))
    for rel, source in (payloads or {}).items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(form(source))
    return entry


def entry_head(summary: str, distribution: str, modules: Mapping[str, str], supported: str = ">=1.0,<2") -> str:
    """An entry's keys up to `rewrites:` (its items follow, indented two spaces), one module per
    name; its description names the modules."""
    lines = "".join(f"  {name}: {module}\n" for name, module in modules.items())
    return (
        f"summary: {summary}\ndescription: changes {', '.join(modules.values())}\ndistribution: {distribution}\n"
        f'supported: "{supported}"\nmodules:\n{lines}rewrites:\n'
    )


# --- the toy entry the loader's tests vary: every kind of key, a payload, versioned modules -------

TOY_ENTRY = """\
summary: Toy patch
description: |
  Two lines
  of description.
distribution: toypkg
supported: ">=1.0,<2"
knobs:
  TOY_KNOB:
    default: "1"
    meaning: 0 turns it off
modules:
  core:
    - versions: "<1.5"
      module: toypkg.core
    - versions: ">=1.5"
      module: toypkg.planning
rewrites:
  - id: inject
    insert_definitions:
      payload: payload.py
      before: plan
  - add_parameter:
      function: plan
      name: cfg
      default: None
  - id: call
    versions: ">=1.2"
    replace:
      scope: groups
      find: plan(spec)
      with: plan(spec, cfg)
  - insert_after:
      scope: plan
      find: "size = len(spec)"
      code: "size = _rp_helper(size)"
"""

# the smallest entry the `requires:` and `upstream:` tests add keys to
LIMIT_ENTRY = """\
summary: s
description: d
distribution: vllm
supported: ">=0.1"
modules: {core: vllm.core}
rewrites:
  - set_constant: {name: LIMIT, value: 3}
"""

TOY_PAYLOAD = '"""payload"""\n\n\ndef _rp_helper(x):\n    return x\n\n\nclass _RpThing:\n    pass\n'


def write_toy(directory: Path, text: str, name: str = "toy", payload: str | None = TOY_PAYLOAD) -> Path:
    """An entry exactly as typed (no dedent), with payload.py unless payload is None; the YAML file."""
    return write_entry(directory, name, text, None if payload is None else {"payload.py": payload}, dedent=False)


def load_problems(entry: Path) -> list[str]:
    """The problems the loader reports for `entry` (it must refuse it)."""
    with pytest.raises(RegistryError) as info:
        load_patch(entry)
    return info.value.problems


def toy_entry_with(rewrites: str) -> str:
    """The toy entry with `rewrites` (YAML list items, dedented) in place of its own."""
    return TOY_ENTRY.split("rewrites:\n")[0] + "rewrites:\n" + textwrap.indent(textwrap.dedent(rewrites), "  ")


@functools.cache
def _validator(rendered: str) -> Any:
    import jsonschema

    schema = json.loads(rendered)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def schema_validate(instance: object) -> None:
    """jsonschema.validate(instance, json.loads(json_schema.render())): the same best-match
    ValidationError, with the schema checked against its metaschema and its validator built once."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator(json_schema.render()).iter_errors(instance))
    if error is not None:
        raise error


def shipped_range(name: str = "kv_group_size") -> str:
    """The `supported:` range of a shipped registry entry as its YAML says it (`>=0.12.0,<0.35`):
    tests that quote it read it here, so widening the entry (`radpatch port`) needs no test edit."""
    import yaml

    from tests.lib import REPO

    supported = yaml.safe_load((REPO / "registry" / f"{name}.yaml").read_text(encoding="utf-8"))["supported"]
    assert isinstance(supported, str)
    return supported
