"""The value handed to `self.m(...)` in a method of the module's own DECORATED class (att62 F12, fix69): vLLM's
config/vllm.py hands `OPTIMIZATION_LEVEL_*` to `self._apply_optimization_level_defaults` in `VllmConfig`, which
`@config(...)` (vllm/config/utils.py: a pydantic dataclass) decorates. A decorator may return another class,
so `self.m` is followed as the class's own def only under one known to return the class it is given
(rewrite.class_decorators): `dataclasses.dataclass`, typing's `final`, or a module-level def of this module or
of a module of its package whose every return is the class or `dataclass(cls)`. Any other decorator keeps the
refusal: one returning a subclass that overrides `m`, one storing `m` on the class, one from elsewhere.

The oracle imports the original and the patched module in a fresh interpreter (tests/lib/later_values): where
`m` only reads the value the edit is in effect and radpatch must apply; where the decorator makes `self.m` run
code undoing the edit, radpatch must refuse."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from radpatch.errors import RefusedError
from radpatch.prove import plan
from tests.lib.escape_edits import EDITS, assert_refused_where_undone, verdict
from tests.lib.rewrites import patch_of

_CLASS = (
    "class _K:\n    x: int = 0\n\n    def _m(self, d):\n        {b}\n\n    def run(self):\n"
    "        return self._m(CFG)\n\n\n_K().run()\n"
)
_CONFIG = (  # vLLM's config decorator (vllm/config/utils.py), cut down
    "from dataclasses import dataclass\nfrom typing import overload\n\nfrom typing_extensions import "
    "dataclass_transform\n\n\n@overload\ndef config(cls): ...\n\n\n@overload\ndef config(*, config=None, **kw): ..."
    "\n\n\n@dataclass_transform()\ndef config(cls=None, *, config=None, **kwargs):\n    merged = dict(a=1)\n"
    "    if config is not None:\n        merged.update(config)\n\n    def decorator(cls):\n"
    "        return dataclass(cls, **kwargs)\n\n    if cls is None:\n        return decorator\n"
    "    return decorator(cls)\n"
)
KEEPING = {  # (what the module has above the class, the decorator)
    "dataclasses.dataclass": ("import dataclasses\n\n\n", "@dataclasses.dataclass"),
    "dataclass(frozen=True)": ("from dataclasses import dataclass\n\n\n", "@dataclass(frozen=True)"),
    "typing.final": ("import typing\n\n\n", "@typing.final"),
    "a def returning cls": ("def _deco(cls):\n    return cls\n\n\n", "@_deco"),
    "vLLM's config, called": (_CONFIG + "\n\n", "@config(config={'b': 2})"),
    "vLLM's config, bare": (_CONFIG + "\n\n", "@config"),
}
OTHER = {  # decorators after which `self._m` runs code undoing the edit
    "a subclass overriding _m": (
        "def _deco(cls):\n    class _O(cls):\n        def _m(self, d):\n            d['timeout'] = 1\n\n"
        "    return _O\n\n\n",
        "@_deco",
    ),
    "a factory returning a subclass": (
        "def _make(**kw):\n    def deco(cls):\n        class _O(cls):\n            def _m(self, d):\n"
        "                d['timeout'] = 1\n\n        return _O\n\n    return deco\n\n\n",
        "@_make(a=1)",
    ),
    "a def storing _m on the class": (
        "def _undo(self, d):\n    d['timeout'] = 1\n\n\ndef _deco(cls):\n    setattr(cls, '_' + 'm', _undo)\n"
        "    return cls\n\n\n",
        "@_deco",
    ),
    "a def returning cls only when told": (
        "def _deco(cls=None):\n    class _O:\n        def run(self):\n            CFG['timeout'] = 1\n\n"
        "    if cls is not None:\n        return _O\n    return cls\n\n\n",
        "@_deco",
    ),
}


def _module(above: str, decorator: str, body: str) -> str:
    return above + decorator + "\n" + _CLASS.format(b=body)


@pytest.mark.parametrize("deco", KEEPING)
def test_a_decorator_returning_its_class_keeps_self_m_followed(tmp_path: Path, deco: str) -> None:
    above, decorator = KEEPING[deco]
    refused, took, before = verdict(tmp_path, EDITS["set_item"], _module(above, decorator, "return len(str(d))"))
    assert took, f"reading the value should leave the edit in effect:\n{before}"
    assert refused is None, f"refused, but {deco} returns the class, whose `_m` only reads the value: {refused}"


@pytest.mark.parametrize("deco", KEEPING)
def test_under_a_decorator_returning_its_class_an_undoing_m_is_refused(tmp_path: Path, deco: str) -> None:
    above, decorator = KEEPING[deco]
    assert_refused_where_undone(tmp_path, EDITS["set_item"], _module(above, decorator, "d['timeout'] = 1"), True)


@pytest.mark.parametrize("deco", OTHER)
def test_a_decorator_that_may_return_another_class_keeps_the_refusal(tmp_path: Path, deco: str) -> None:
    above, decorator = OTHER[deco]
    later = _module(above, decorator, "return len(str(d))")
    refused, took, before = verdict(tmp_path, EDITS["set_item"], later)
    assert took is False, f"the oracle: {deco} should undo the edit\n{before}"
    assert refused is not None, f"applied, but the module ends without the edit:\n{before}"


def _package(tmp_path: Path, utils: str, decorator: str, body: str) -> tuple[Path, str, str | None]:
    """pkg/utils.py defines the decorator, pkg/mod.py imports it relatively: (the site, the module, the refusal)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "utils.py").write_text(utils)
    edit = EDITS["set_item"]
    text = edit.top + "\n\nfrom .utils import config\n\n\n" + decorator + "\n" + _CLASS.format(b=body)
    path = tmp_path / "pkg" / "mod.py"
    path.write_text(text)
    patch = patch_of(edit.op, module="pkg.mod")
    try:
        after = plan.plan(patch, patch.rewrites, "pkg.mod", path, text.encode()).after.decode()
    except RefusedError as exc:
        return tmp_path, text, exc.message
    path.write_text(after)
    return tmp_path, after, None


def _cfg(site: Path) -> str:
    code = "import sys; sys.path.insert(0, sys.argv[1]); import pkg.mod; print(pkg.mod.CFG['timeout'])"
    return subprocess.run([sys.executable, "-I", "-c", code, str(site)], capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("decorator", ["@config", "@config(config={'b': 2})"])
def test_the_package_s_own_config_decorator_is_read(tmp_path: Path, decorator: str) -> None:
    """vLLM's shape: the decorator is a def of another module of the package, read from the install."""
    site, _, refused = _package(tmp_path, _CONFIG, decorator, "return len(str(d))")
    assert refused is None, refused
    assert _cfg(site) == "10", "the edit should be in effect"


def test_a_package_decorator_storing_the_method_keeps_the_refusal(tmp_path: Path) -> None:
    """What the other module's def does to the class is read too: a store of `_m` on it is refused."""
    utils = (
        "def _undo(self, d):\n    d['timeout'] = 1\n\n\ndef config(cls):\n    setattr(cls, '_m', _undo)\n"
        "    return cls\n"
    )
    site, text, refused = _package(tmp_path, utils, "@config", "return len(str(d))")
    assert refused is not None, f"applied, but pkg.utils.config replaces `_m`:\n{text}"
    (site / "pkg" / "mod.py").write_text(text.replace('"timeout": 1', '"timeout": 10', 1))
    assert _cfg(site) == "1", "the oracle: the decorator's `_m` should undo the edit"
