"""A package's `__init__.py` named by its import name: `modules: {registry: vllm.reasoning}`.

On real vLLM 0.32.0/0.33.0 files (vllm/reasoning/__init__.py from the wheels) through the CLI on a
fake site-packages: the plain import name applies, reads applied and reverts byte for byte, as
`vllm.reasoning.__init__` did; a package beside a same-named `.py` is the package, as for Python.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

from radpatch.install.module_choice import package_file
from radpatch.registry.model import ModuleChoice
from tests.lib.registry import write_entry
from tests.lib.vllm_files import VERSIONS, install_vllm

INIT = "vllm/reasoning/__init__.py"
ENTRY = """\
summary: register an extra reasoning parser
description: test
distribution: vllm
supported: ">=0.32.0,<0.34"
modules:
  registry: {module}
rewrites:
  - id: add-parser
    insert_before:
      scope: register_lazy_reasoning_parsers
      find: |
        for name, (file_name, class_name) in _REASONING_PARSERS_TO_REGISTER.items():
            module_path = f"vllm.reasoning.{{file_name}}"
            ReasoningParserManager.register_lazy_module(name, module_path, class_name)
      code: |
        _REASONING_PARSERS_TO_REGISTER["mine"] = ("mine_reasoning_parser", "MineReasoningParser")
"""


def _registered(source: bytes) -> list[str]:
    """Keys the module stores into _REASONING_PARSERS_TO_REGISTER by subscript, read with ast."""
    return [
        ast.literal_eval(t.slice)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Subscript) and ast.unparse(t.value) == "_REASONING_PARSERS_TO_REGISTER"
    ]


@pytest.mark.parametrize("module", ["vllm.reasoning", "vllm.reasoning.__init__"])
@pytest.mark.parametrize("version", VERSIONS)
def test_a_package_named_by_its_import_name_applies_and_reverts(
    version: str, module: str, site: Any, radpatch: Any, tmp_path: Path
) -> None:
    originals = install_vllm(site.root, version)
    assert not (site.root / "vllm/reasoning.py").exists()
    reg = tmp_path / "reg"
    write_entry(reg, "parser", ENTRY.format(module=module))
    assert _registered(originals[INIT]) == []
    r = radpatch("--registry", str(reg), "apply", "parser")
    assert r.code == 0, r.err
    assert _registered((site.root / INIT).read_bytes()) == ["mine"]
    r = radpatch("--registry", str(reg), "status", "--check", "parser")
    assert r.code == 0, r.out + r.err
    r = radpatch("--registry", str(reg), "revert", "parser")
    assert r.code == 0, r.err
    assert site.snapshot()[INIT] == originals[INIT]


def test_a_package_wins_over_a_same_named_module_as_for_python(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "both").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "both" / "__init__.py").write_text("WHICH = 'package'\n")
    (tmp_path / "pkg" / "both.py").write_text("WHICH = 'module'\n")
    (tmp_path / "pkg" / "plain.py").write_text("WHICH = 'module'\n")
    choice = package_file(ModuleChoice(SpecifierSet(""), "pkg.both"), tmp_path)
    assert choice.relpath == "pkg/both/__init__.py"
    assert package_file(ModuleChoice(SpecifierSet(""), "pkg.plain"), tmp_path).relpath == "pkg/plain.py"
    sys.path.insert(0, str(tmp_path))  # what Python's import system picks, in this test's own process
    try:
        import pkg.both  # type: ignore[import-not-found]

        assert Path(pkg.both.__file__).relative_to(tmp_path).as_posix() == choice.relpath
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("pkg", "pkg.both"):
            sys.modules.pop(name, None)
