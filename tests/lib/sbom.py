"""A BOM as the tests read it: validated against the CycloneDX 1.6 strict schema, then parsed; a
component's properties by name."""

from __future__ import annotations

import json
from typing import Any

from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator


def bom_of(text: str) -> dict[str, Any]:
    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text)
    assert error is None, error
    return json.loads(text)  # type: ignore[no-any-return]


def props(component: dict[str, Any], name: str) -> list[str]:
    return [p["value"] for p in component["properties"] if p["name"] == name]
