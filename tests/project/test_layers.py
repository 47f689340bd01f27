"""Issue 22: the walk of `apply` goes down the steps once. A step's folder never imports a folder
above it (docs/architecture.md's table, read top down: what a patch says, which files, the state,
the rewrites, the proof), nor verify's engine (`releases/`), the engine or the commands: a hint
that needs verify's cache is worded by the command that renders the refusal (commands/change.py,
commands/status.py), not by the proof or the state decision. Every import counts, a lazy one in a
function too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import radpatch

PACKAGE = Path(radpatch.__file__).parent
STEPS = ("registry", "install", "state", "rewrite", "prove")
# what no step may import: the layers that call the steps
ABOVE = ("releases", "engine", "commands", "importing", "cli")


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
        ("import radpatch.engine\n", True),
        ("from ...releases import cache\n", True),
        ("from radpatch import engine\n", True),
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
