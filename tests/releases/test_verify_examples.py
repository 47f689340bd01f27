"""`radpatch verify` on every example of examples/registry/ against the real vLLM wheels of its
declared range (through the CLI; the first run downloads one wheel per release into RADPATCH_CACHE)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.network, pytest.mark.vllm]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "registry"
NAMES = [f.stem for f in sorted(EXAMPLES.glob("*.yaml"))]


@pytest.mark.parametrize("name", NAMES)
def test_example_passes_verify_on_every_release_in_its_range(name: str, radpatch: Any) -> None:
    r = radpatch("--registry", str(EXAMPLES), "verify", name, "--json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    in_range = [x for x in data["results"] if x["in_range"]]
    assert in_range, "the range holds at least one release"
    for x in in_range:
        assert x["ok"], (x["version"], x["error"])
