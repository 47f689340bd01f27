"""set_keyword where the binding's own call drops the keyword (att62 F9): `B = Box(timeout=1, other=0)` with the
module's Box setting `timeout` itself when called (its metaclass's `__call__`, its `__init__` or a dataclass's
`__post_init__` assigning the field from something else). The rewrite said the keyword takes effect, but the
object ends as before; now refused, naming the line that sets it (rewrite.ops.common.keyword_dropped). An
`__init__` storing the keyword's own parameter is how it takes effect, and applies.

The oracle imports the original and the patched module in a fresh interpreter (tests/lib/later_values)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from tests.lib.escape_edits import EDITS
from tests.lib.later_values import took_effect
from tests.lib.rewrites import patch_of

_META = "class Meta(type):\n    def __call__(cls, **kw):\n        o = super().__call__(**kw)\n        o.timeout = 1\n"
DROPPING = {  # (the module's text up to the binding, the line the refusal names)
    "a metaclass __call__": (
        _META + "        return o\n\n\nclass Box(metaclass=Meta):\n    def __init__(self, **kw):\n"
        "        self.__dict__.update(kw)\n",
        2,
    ),
    "__init__ setting it after": (
        "class Box:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n        self.timeout = 1\n",
        4,
    ),
    "__new__ filling, __init__ resetting": (
        "class Box:\n    def __new__(cls, **kw):\n        o = object.__new__(cls)\n        o.__dict__.update(kw)\n"
        "        return o\n\n    def __init__(self, **kw):\n        self.timeout = 1\n",
        8,
    ),
    "a dataclass __post_init__": (
        "import dataclasses\n\n\n@dataclasses.dataclass\nclass Box:\n    timeout: int = 0\n    other: int = 0\n\n"
        "    def __post_init__(self):\n        self.timeout = 1\n",
        10,
    ),
    "a base's __init__ via setattr": (
        "class Base:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n"
        "        setattr(self, 'timeout', 1)\n\n\nclass Box(Base):\n    pass\n",
        4,
    ),
}
KEEPING = {
    "__init__ storing the parameter": "class Box:\n    def __init__(self, timeout=0, other=0):\n"
    "        self.timeout = timeout\n        self.other = other\n",
    "__post_init__ reading the field": "import dataclasses\n\n\n@dataclasses.dataclass\nclass Box:\n"
    "    timeout: int = 0\n    other: int = 0\n\n    def __post_init__(self):\n"
    "        self.timeout = max(self.timeout, 0)\n",
}


def verdict(tmp_path: Path, above: str) -> tuple[str | None, bool | None, str]:
    """(the refusal or None, whether the edit takes effect, the module): the edit made by hand where refused."""
    edit = replace(EDITS["set_keyword"], top=above + "\n\nB = Box(timeout=1, other=0)\n")
    patch = patch_of(edit.op)
    try:
        after, refused = plan.plan(patch, patch.rewrites, "mod", Path("mod.py"), edit.top.encode()).after.decode(), None
    except RefusedError as exc:
        after, refused = edit.top.replace("Box(timeout=1,", "Box(timeout=10,"), exc.message
    return refused, took_effect(tmp_path, edit.top, after, edit.name, edit.removed, edit.added), edit.top


@pytest.mark.parametrize("case", DROPPING)
def test_a_call_that_drops_the_keyword_is_refused_naming_the_line(tmp_path: Path, case: str) -> None:
    above, line = DROPPING[case]
    refused, took, before = verdict(tmp_path, above)
    assert took is False, f"the oracle: {case} should drop the keyword\n{before}"
    assert refused is not None, f"applied, but the object ends without the keyword:\n{before}"
    assert f"line {line}:" in refused and "set_keyword of timeout=" in refused, refused


@pytest.mark.parametrize("case", KEEPING)
def test_a_call_that_keeps_the_keyword_applies(tmp_path: Path, case: str) -> None:
    refused, took, before = verdict(tmp_path, KEEPING[case])
    assert took, f"the oracle: {case} should keep the keyword\n{before}"
    assert refused is None, refused
