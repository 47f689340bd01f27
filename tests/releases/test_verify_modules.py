"""verify/matrix resolve a target's module in a wheel exactly as apply does in an install: a module
named by its import name is the package's `__init__.py` when the wheel has one, and a module the
entry creates (`create_module`) must be absent from the release (the release that has it already
is obsolete when it is the same module, refused otherwise). Real wheels on the loopback index."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.lib.index_server import IndexServer
from tests.lib.wheels import Wheels

DIST = "radpatch-toy"
EXTRA = 'NAME = "extra"\n\n\ndef parse(text):\n    return text\n'
INIT = "PARSERS = {}\n\n\ndef register():\n    return dict(PARSERS)\n"

CREATE = f"""\
summary: A new parser module
description: The module the register entry names.
distribution: {DIST}
supported: ">=1.0,<2"
modules:
  extra: rptoy.reasoning.extra
rewrites:
  - id: create
    create_module:
      content: extra/extra.py
"""
REGISTER = f"""\
summary: Register the new parser in the package's table
description: The package is named by its import name.
distribution: {DIST}
supported: ">=1.0,<2"
requires: [newmod]
modules:
  reasoning: rptoy.reasoning
rewrites:
  - id: add
    insert_after:
      scope: <module>
      find: PARSERS = {{}}
      code: PARSERS["extra"] = "rptoy.reasoning.extra"
"""

WHEELS: Wheels = {
    "1.0": {"rptoy/__init__.py": "", "rptoy/reasoning/__init__.py": INIT},  # neither has it: both pass
    "1.1": {"rptoy/__init__.py": "", "rptoy/reasoning/__init__.py": INIT, "rptoy/reasoning/extra.py": EXTRA},
    "1.2": {"rptoy/__init__.py": "", "rptoy/reasoning/__init__.py": INIT, "rptoy/reasoning/extra.py": "X = 1\n"},
}


def _registry(write_registry: Any) -> Any:
    write_registry("newmod", CREATE, {"extra/extra.py": EXTRA})
    return write_registry("register", REGISTER)


def _results(out: str) -> dict[str, dict[str, Any]]:
    return {r["version"]: r for r in json.loads(out)["results"]}


def test_a_created_module_must_be_absent_and_is_obsolete_when_the_release_has_it(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, WHEELS)
    reg = _registry(write_registry)
    r = radpatch("--registry", str(reg), "verify", "newmod", "--json")
    got = _results(r.out)
    assert got["1.0"]["ok"] and got["1.0"]["checks"]["module"] is True
    assert got["1.1"]["checks"]["pristine"] is False  # the release has the very module: obsolete
    assert got["1.2"]["checks"]["module"] is False
    assert "the release already has this module" in got["1.2"]["error"]
    assert "rptoy/reasoning/extra.py" in got["1.2"]["error"]
    assert r.code == 1  # 1.2 is in the range and refused
    assert "radpatch port" not in r.err


def test_a_package_by_its_import_name_is_its_init_and_the_stack_proves(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, {"1.0": WHEELS["1.0"]})
    reg = _registry(write_registry)
    r = radpatch("--registry", str(reg), "verify", "register", "--json")
    got = _results(r.out)
    assert got["1.0"]["ok"], got["1.0"]["error"]
    assert got["1.0"]["modules"] == ["rptoy.reasoning"]
    assert r.code == 0


def test_verify_all_passes_both_entries_and_suggests_no_port(
    loopback: Callable[[str, Wheels], IndexServer], write_registry: Any, radpatch: Any
) -> None:
    loopback(DIST, WHEELS)
    reg = _registry(write_registry)
    r = radpatch("--registry", str(reg), "verify", "--all", "--versions", "==1.0")
    rows = {ln.split()[0]: ln.split()[1:] for ln in r.out.splitlines() if ln.startswith(("newmod ", "register "))}
    assert rows == {"newmod": ["pass"], "register": ["pass"]}, r.out  # (the shipped entries are of vllm: not here)
    r = radpatch("--registry", str(reg), "verify", "--all", "--versions", ">=1.0,<2")
    assert r.code == 1
    assert "newmod 1.1: obsolete" in r.out
    assert "newmod 1.2: fail: module: the release already has this module" in r.out
    assert "radpatch port" not in r.err
