"""Issue 22: the walk of `apply` goes down the steps once. A step's folder never imports a folder
below it in docs/architecture.md's table (read top down: what a patch says, which files, the state,
the rewrites, the proof, the write: a step imports only the steps listed before it, and itself), nor
verify's engine (`releases/`) or the commands: a hint that needs verify's cache is worded by
the command that renders the refusal (commands/change.py, commands/status.py), not by the proof or
the state decision. Every import counts, a lazy one in a function or one under `if TYPE_CHECKING:`
too. The exceptions are named below, module by module (docs/architecture.md "Rules the layout
keeps")."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

import radpatch
from tests.lib.generated import sample

PACKAGE = Path(radpatch.__file__).parent
STEPS = ("registry", "install", "state", "rewrite", "prove", "write")
# what no step may import: the layers that call the steps
ABOVE = ("releases", "commands", "importing", "cli")
# the imports that point up the table, (importing module, imported module or package), each named
# in docs/architecture.md "Rules the layout keeps": what a patch says is read by the operations'
# specs, which live with their edits (one module per operation, rewrite/ops), and the base of
# those specs names the type their edits take (registry.operation_spec: rewrite.source.Source, under
# `if TYPE_CHECKING:` only); add_import places its line by the names analysis the proof runs
# (rewrite/ops/common/import_lines: prove.names, lazily)
UP_THE_TABLE = (
    ("radpatch.registry.loader.operations", "radpatch.rewrite.ops"),
    ("radpatch.registry.json_schema", "radpatch.rewrite.ops"),
    ("radpatch.registry.reference", "radpatch.rewrite.ops"),
    ("radpatch.registry.operation_spec", "radpatch.rewrite.source"),
    ("radpatch.rewrite.ops.common.import_lines", "radpatch.prove.names"),
)


def imported(package_dir: Path, path: Path) -> list[tuple[int, str]]:
    """Every radpatch module `path` imports (absolute names; relative imports resolved), with its line."""
    module = path.relative_to(package_dir.parent).with_suffix("").parts
    package = module if path.name == "__init__.py" else module[:-1]
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*package[: len(package) - node.level + 1], *([node.module] if node.module else [])])
            base = base if node.level else node.module or ""
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return [(line, name) for line, name in out if name.split(".")[0] == "radpatch"]


def upward(package_dir: Path, step: str) -> list[str]:
    """file:line: module, for each import in `step`'s folder of a layer above the steps."""
    found = []
    for path in sorted((package_dir / step).rglob("*.py")):
        for line, name in imported(package_dir, path):
            parts = name.split(".")
            if len(parts) > 1 and parts[1] in ABOVE:
                found.append(f"{path.relative_to(package_dir.parent)}:{line}: {name}")
    return found


@pytest.mark.parametrize("step", STEPS)
def test_a_step_never_imports_a_layer_that_calls_it(step: str) -> None:
    assert (PACKAGE / step).is_dir()
    assert upward(PACKAGE, step) == []


@pytest.mark.parametrize(
    ("source", "hit"),
    [
        ("from radpatch.releases.summaries import obsolete_run\n", True),
        ("def f():\n    from radpatch.releases import wheels\n", True),
        ("import radpatch.commands.change\n", True),
        ("from ...releases import cache\n", True),
        ("from radpatch import commands\n", True),
        ("from radpatch.state.decide import PatchState\n", False),
        ("from ..names import problem\n", False),
    ],
)
def test_the_check_sees_every_spelling_of_an_import(tmp_path: Path, source: str, hit: bool) -> None:
    """The rule reads lazy, relative and `from radpatch import X` imports alike (one module in a
    step's folder of a package laid out as radpatch is)."""
    probe = tmp_path / "radpatch" / "prove" / "placement" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(source, encoding="utf-8")
    assert bool(upward(tmp_path / "radpatch", "prove")) is hit


def _within(name: str, module: str) -> bool:
    return name == module or name.startswith(module + ".")


def up_the_table(package_dir: Path, allowed: tuple[tuple[str, str], ...] = UP_THE_TABLE) -> list[str]:
    """file:line: module, for each import in a step's folder of a step listed after it in the table
    (but the `allowed` pairs)."""
    found = []
    for i, step in enumerate(STEPS):
        for path in sorted((package_dir / step).rglob("*.py")):
            parts = path.relative_to(package_dir.parent).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            for line, name in imported(package_dir, path):
                later = name.split(".")[1] in STEPS[i + 1 :] if "." in name else False
                if later and not any(_within(module, a) and _within(name, b) for a, b in allowed):
                    found.append(f"{path.relative_to(package_dir.parent)}:{line}: {name}")
    return found


def test_a_step_imports_only_the_steps_before_it() -> None:
    assert up_the_table(PACKAGE) == []


def test_every_named_exception_is_still_an_import() -> None:
    """An exception no import needs any more is taken off the list (and docs/architecture.md)."""
    everything = up_the_table(PACKAGE, ())
    for importer, imported_module in UP_THE_TABLE:
        path = importer.replace(".", "/")
        assert any(f"{path}.py:" in f or f"{path}/" in f for f in everything if f": {imported_module}" in f), (
            importer,
            imported_module,
        )


SPELLINGS = {
    "from": "from radpatch.{up}.mod import thing\n",
    "lazy": "def f():\n    from radpatch.{up} import mod\n",
    "typing": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from radpatch.{up}.mod import T\n",
    "import": "import radpatch.{up}.mod\n",
    "package": "from radpatch import {up}\n",
    "relative": "from ..{up}.mod import thing\n",
}


@pytest.mark.parametrize(
    ("low", "up", "spelling"),
    sample(
        (STEPS[i], STEPS[j], spelling)
        for i, j in itertools.product(range(len(STEPS)), repeat=2)
        for spelling in SPELLINGS
    ),
)
def test_the_order_rule_sees_an_import_of_a_later_step(tmp_path: Path, low: str, up: str, spelling: str) -> None:
    """Each step importing each step, in every spelling: seen exactly when `up` is listed after
    `low` (a module directly in the step's folder, of a package laid out as radpatch is)."""
    for step in STEPS:
        (tmp_path / "radpatch" / step).mkdir(parents=True)
    probe = tmp_path / "radpatch" / low / "probe.py"
    probe.write_text(SPELLINGS[spelling].format(up=up), encoding="utf-8")
    assert len(up_the_table(tmp_path / "radpatch", ())) == (STEPS.index(up) > STEPS.index(low))


def test_a_named_exception_covers_only_its_own_module(tmp_path: Path) -> None:
    """The exception `registry.operation_spec` -> `rewrite.source` lets that module import it, not its neighbour."""
    for step in STEPS:
        (tmp_path / "radpatch" / step).mkdir(parents=True)
    for name in ("operation_spec", "touch"):
        (tmp_path / "radpatch" / "registry" / f"{name}.py").write_text(
            "from radpatch.rewrite.source import Source\n", encoding="utf-8"
        )
    assert up_the_table(tmp_path / "radpatch") == ["radpatch/registry/touch.py:1: radpatch.rewrite.source.Source"]
