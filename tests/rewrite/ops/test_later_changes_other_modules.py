"""A module imported by a name computed from other parts is another module (esc54): vLLM 0.33.0's
model registry (models/registry.py:1138, `mod = importlib.import_module(self.module_name); return
getattr(mod, self.class_name)`) was refused for an architecture added to `_TEXT_GENERATION_MODELS`
(set_item), `getattr(mod, ...)` taken for the module itself, maybe. `importlib.import_module(X)`,
`__import__(X)`, `sys.modules[X]`, `sys.modules.get(X)` with X an attribute, a parameter or an
f-string of them is another module's (module_routes.other_module); with X a constant, `__name__`,
`__spec__.name` or a name bound to one it may still be this module (refused where the value is
handed on from there, or a function of the module may run from there and undo the edit).

Generated: the way the module is reached (OTHERS, SELVES) x the edit (tests/lib/escape_edits:
set_item, add_element on a list and a set). The oracle imports the original and the patched module
in a fresh interpreter (tests/lib/later_values)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lib.escape_edits import EDITS, verdict
from tests.lib.generated import sample

# the registry, cut down: {n} the edited literal (its entries the models), {imp} the module reached
# from `self.module_name` or `module_name` ({target}: "json", or `_ME` for SELVES), {cls} the class
REGISTRY = """import importlib
import sys

_ME = __name__


def _named(self):
    self = _ME  # `self` may hold this module's name (registry.py:1219 `self = model`); `self.x` is another's
    return self


class _Lazy:
    def __init__(self, module_name, class_name):
        self.module_name = module_name
        self.class_name = class_name

    def load(self):
        module_name = self.module_name
        mod = {imp}
        return getattr(mod, self.class_name)


LOADED = {{k: _Lazy({target}, {cls}).load() for k in {n}}}"""
OTHERS = {
    "import_module(self.module_name)": "importlib.import_module(self.module_name)",
    "import_module(parameter)": "importlib.import_module(module_name)",
    "import_module(f-string)": 'importlib.import_module(f"{self.module_name}")',
    "__import__(self.module_name)": "__import__(self.module_name)",
    "sys.modules[self.module_name]": "(importlib.import_module(self.module_name), sys.modules[self.module_name])[1]",
    "sys.modules.get(parameter)": "(importlib.import_module(module_name), sys.modules.get(module_name))[1]",
}
SELVES = {
    "import_module(__name__)": "importlib.import_module(__name__)",
    "sys.modules[__name__]": "sys.modules[__name__]",
    "sys.modules[_ME]": "sys.modules[_ME]",
    "__import__(__spec__.name)": "__import__(__spec__.name) and sys.modules[__spec__.name]",
    "import_module(constant)": 'importlib.import_module("original" if __name__ == "original" else "patched")',
    "sys.modules.get(__name__)": "sys.modules.get(__name__)",
}
# the module reached that way, a function got from it and run: this module's `_reset` undoes the edit
RESET = """import importlib
import sys

_ME = __name__


def _reset():
    {s}


class _Hook:
    def __init__(self, module_name, name):
        self.module_name = module_name
        self.name = name

    def run(self):
        module_name = self.module_name
        mod = {imp}
        getattr(mod, self.name)()


_Hook({target}, {cls}).run()"""
SETS = ("set_item", "add_element list", "add_element set")
CASES = sample([(e, r) for e in SETS for r in [*OTHERS, *SELVES]])


def _later(template: str, edit: str, route: str, cls: str) -> str:
    e, this = EDITS[edit], route in SELVES
    return template.format(
        n=e.name,
        imp={**OTHERS, **SELVES}[route],
        s=e.undo.format(v=e.name),
        target="_ME" if this else '"json"',
        cls=cls if this else '"JSONDecoder"',
    )


@pytest.mark.parametrize(("edit", "route"), CASES, ids=[f"{e}-{r}" for e, r in CASES])
def test_another_module_is_not_the_value(tmp_path: Path, edit: str, route: str) -> None:
    """Handed on (returned) from another module: applies and takes effect; from this one, maybe
    the value: refused, as code radpatch cannot follow."""
    refused, took, before = verdict(tmp_path, EDITS[edit], _later(REGISTRY, edit, route, '"_Lazy"'))
    assert took, f"the original does not import, or the edit does not take effect:\n{before}"
    if route in OTHERS:
        assert refused is None, f"refused, but the module is another one: {refused}\n{before}"
    else:
        assert refused is not None, f"applied, but the value may be handed on from the module itself:\n{before}"
        assert "is handed on (returned)" in refused and "cannot follow what changes it" in refused, refused


@pytest.mark.parametrize(("edit", "route"), CASES, ids=[f"{e}-{r}" for e, r in CASES])
def test_a_function_got_from_the_module_itself_is_followed(tmp_path: Path, edit: str, route: str) -> None:
    """`getattr(mod, self.name)()`: from this module, `_reset` may run there and undo the edit
    (refused, the oracle agreeing); from another module nothing of this one runs (applies)."""
    refused, took, before = verdict(tmp_path, EDITS[edit], _later(RESET, edit, route, '"_reset"'))
    if route in OTHERS:
        assert took, f"the original does not import, or the edit does not take effect:\n{before}"
        assert refused is None, f"refused, but the module is another one: {refused}\n{before}"
    else:
        assert not took, before  # undone, or (`FLAGS.remove("c")`) the original does not import
        assert refused is not None, f"applied, but the module ends with the same value:\n{before}"


# vLLM 0.33.0's registry.py:822 `_VLLM_MODELS = {**_TEXT_GENERATION_MODELS, ...}`, read at :1587: `**`
# copies the items, the new dict does not hold the value (a change of the copy leaves it alone)
SPREADS = {
    "read": "_ALL = {{**{n}, 'other': 0}}\nLOADED = {{k: v for k, v in _ALL.items()}}",
    "copy changed": "_ALL = {{**{n}}}\n_ALL['timeout'] = 1\nLOADED = sorted(_ALL.items())",
    "passed on": "import json\n\n_ALL = {{**{n}}}\nLOADED = json.JSONEncoder().encode(_ALL)",
}


@pytest.mark.parametrize("route", list(SPREADS))
def test_a_dict_spread_into_another_is_copied_not_held(tmp_path: Path, route: str) -> None:
    e = EDITS["set_item"]
    refused, took, before = verdict(tmp_path, e, SPREADS[route].format(n=e.name))
    assert took, f"the original does not import, or the edit does not take effect:\n{before}"
    assert refused is None, f"refused, but the dict spread is a copy: {refused}\n{before}"
