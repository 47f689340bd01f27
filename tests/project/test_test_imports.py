"""The tests' own layout: a test imports the shared helpers (tests/lib/) and conftest fixtures, never
another test module or a conftest, so what two tests share has one home a reader can find."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.lib import REPO

TESTS = REPO / "tests"


def imports_outside_lib(path: Path) -> list[str]:
    """Each `tests.*` (or relative) import in `path` that is not tests.lib, as `line: module`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names = [module] if node.level or module != "tests" else [f"tests.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            inside = name.startswith(".") or name == "tests" or name.startswith("tests.")
            if inside and not (name == "tests.lib" or name.startswith("tests.lib.")):
                found.append(f"{node.lineno}: {name}")
    return found


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    sources = [p for p in TESTS.rglob("*.py") if "fixtures" not in p.relative_to(TESTS).parts]
    assert len(sources) > 50  # the walk found the suite
    wrong = {str(p.relative_to(REPO)): found for p in sources if (found := imports_outside_lib(p))}
    assert wrong == {}, "move what they share into tests/lib/"


def test_the_check_sees_each_way_of_importing_a_test_module(tmp_path: Path) -> None:
    module = tmp_path / "test_probe.py"
    t = "tests"  # spelled apart so that a grep of the suite for such imports finds none here
    module.write_text(
        f"from {t}.lib.site import Site\n"
        f"from {t}.lib import REPO\n"
        f"from {t}.releases.test_overlaps import HEAD\n"
        f"from {t}.releases.conftest import Wheels\n"
        f"from {t} import conftest, lib\n"
        f"import {t}.state.test_model\n"
        "from .test_other import x\n"
        "def later():\n"
        f"    from {t}.prove import test_names\n"
    )
    assert imports_outside_lib(module) == [
        "3: tests.releases.test_overlaps",
        "4: tests.releases.conftest",
        "5: tests.conftest",
        "6: tests.state.test_model",
        "7: .test_other",
        "9: tests.prove",
    ]
