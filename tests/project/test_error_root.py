"""Issue 22: one error root. Every exception class radpatch defines derives from
errors.RadpatchError, and the ones that are not a module's private signal live in errors.py."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import radpatch
from radpatch import errors, plugin
from radpatch.errors import RadpatchError, RefusedError, RequiredPatchMissing

# modules that run as scripts in another interpreter (their top level is not importable here)
_SCRIPTS = {"radpatch.__main__"}


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(radpatch.__path__, "radpatch."):
        if info.name in _SCRIPTS:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                found[f"{info.name}.{name}"] = value
    return found


def test_every_exception_radpatch_defines_has_the_one_root() -> None:
    found = _exception_classes()
    assert len(found) > 10  # the walk did reach the package's modules
    outside = sorted(name for name, cls in found.items() if not issubclass(cls, RadpatchError))
    assert outside == []


def test_the_named_exceptions_live_in_errors_py() -> None:
    for name in ("RequiredPatchMissing", "Undecodable", "Inexpressible", "Probed"):
        assert getattr(errors, name).__module__ == "radpatch.errors", name


def test_a_missing_required_patch_is_a_refusal_and_still_a_runtime_error() -> None:
    """vLLM does not catch a general plugin's exception: the engine stops; code around an engine
    that treats a failed start as a RuntimeError keeps seeing one."""
    assert plugin.RequiredPatchMissing is RequiredPatchMissing
    with pytest.raises(RuntimeError) as caught:
        raise RequiredPatchMissing("radpatch: RADPATCH_REQUIRE=x is set but x is not applied")
    assert isinstance(caught.value, RefusedError)
    assert str(caught.value) == "radpatch: RADPATCH_REQUIRE=x is set but x is not applied"
