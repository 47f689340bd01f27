"""The line a refusal names where the value escapes in code the walk followed (att62 F10): it named the line
inside the followed function (`request.app` of an unrelated-looking helper, line 2) rather than the line of the
scope's own code that runs it and hands the value over (the decorator `@router.post(..., responses={1: CFG})`,
line 8). Real vLLM 0.34.0: entrypoints/serve/checkpoint/api_router.py's `_STATE_RESPONSE` named line 15
(`request.app`). Now the refusal names the line that runs the code, and says the inner line after it; where
`self.m` is not followed because the module may store an attribute `m` (vLLM's config/vllm.py:999, a computed
`setattr`), the refusal names that store too."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, verdict

_HELPER = "def client(request):\n    return request.app.state\n\n\n"
CASES = {  # (the module's text after CFG's binding, or with it; the line named; the inner line said)
    "a decorator from elsewhere": (
        _HELPER + 'CFG = {"timeout": 1, "retries": 3}\n\n\n@router.post("/x", responses={1: CFG})\n'
        "def route(raw):\n    c = client(raw)\n    return g(c)\n",
        8,
        2,
    ),
    "a module function called": (
        'CFG = {"timeout": 1, "retries": 3}\n\n\ndef _use(d):\n    return d.app\n\n\n_use(CFG)\n',
        8,
        5,
    ),
    "self._m with a computed setattr in the class": (  # vLLM's vllm.py:999, `setattr(config_obj, key, ...)`
        'CFG = {"timeout": 1, "retries": 3}\n\n\nclass _K:\n    def _set(self, k, v):\n        setattr(self, k, v)\n\n'
        "    def _m(self, d):\n        return len(str(d))\n\n    def run(self):\n        return self._m(CFG)\n\n\n"
        "_K().run()\n",
        15,
        12,
    ),
    "a class's __init__": (
        'CFG = {"timeout": 1, "retries": 3}\n\n\nclass _K:\n    def __init__(self, d):\n        self.got = d.app\n\n\n'
        "_K(CFG)\n",
        9,
        6,
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_the_refusal_names_the_line_that_runs_the_code(tmp_path: Path, case: str) -> None:
    text, line, inner = CASES[case]
    edit = EDITS["set_item"]
    top, _, later = text.partition(edit.top)
    refused, _, module = verdict(tmp_path, replace(edit, top=top + edit.top), later.strip("\n"))
    assert refused is not None, module
    assert f"mod.py: line {line} runs code where, at line {inner}, " in refused, refused
    if "setattr" in text:  # what keeps `self._m` from being followed: the store that may replace it
        assert "self._m (line 6 may store an attribute so named)" in refused, refused
