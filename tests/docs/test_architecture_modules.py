"""docs/architecture.md names every module of radpatch/ where a newcomer looks for it (issue 22): a
bullet of its own, `- `name`: what it does`, in the section of "The modules, step by step" that
holds its folder (a module of `prove/names/` under `prove/`, one of `radpatch/`'s top level under
its step or "Cross-cutting"); a package's `__init__` is the bullet of its folder, `- `names/``.
The operation modules are named as a family (`ops/<operation>`) and declare an Operation."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"

# a top-level module's section, by the folder or file its heading names
TOP_LEVEL = {
    "cli": "cli.py",
    "plugin": "plugin.py",
    "__main__": "plugin.py",
}


def _is_operation_module(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "Operation" for b in node.bases)
        for node in tree.body
    )


def _sections(doc: str) -> dict[str, list[str]]:
    """Each `###` section of "The modules, step by step": the code spans of its heading -> its bullets' names."""
    part = doc.split("## The modules, step by step", 1)[1].split("\n## ", 1)[0]
    out: dict[str, list[str]] = {}
    for block in part.split("\n### ")[1:]:
        heading, _, body = block.partition("\n")
        names = re.findall(r"^\s*- `([^`]+)`", body, flags=re.M)
        for span in re.findall(r"`([^`]+)`", heading) or [heading]:
            out.setdefault(span, []).extend(names)
    return out


def _home(path: Path) -> tuple[str, str]:
    """(the heading span of the module's section, the bullet name that stands for it)."""
    rel = path.relative_to(ROOT / "radpatch")
    if len(rel.parts) == 1:
        stem = "radpatch" if rel.stem == "__init__" else rel.stem
        return TOP_LEVEL.get(rel.stem, "radpatch/"), stem
    folder = rel.parts[0] + "/"
    if rel.stem == "__init__":
        if len(rel.parts) == 2:  # the step's own package: its heading names it
            return folder, folder
        return folder, rel.parts[-2] + "/"
    return folder, rel.stem


def test_the_modules_section_has_a_section_per_folder_of_the_table() -> None:
    sections = _sections(DOC.read_text(encoding="utf-8"))
    folders = {p.name + "/" for p in (ROOT / "radpatch").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(sections), f"folders with no section: {sorted(folders - set(sections))}"


def test_every_module_has_its_bullet_in_its_folders_section() -> None:
    sections = _sections(DOC.read_text(encoding="utf-8"))
    missing = []
    for path in sorted((ROOT / "radpatch").rglob("*.py")):
        if path.parent.name == "ops" and _is_operation_module(path):
            continue
        heading, name = _home(path)
        bullets = sections.get(heading, [])
        if name == heading:  # a step's package: its section is its bullet
            continue
        if name == "ops/":
            ok = any(b.startswith("ops/") for b in bullets)
        elif name.endswith("/"):  # a nested package, `ops/common/` or `names/`
            ok = any(b == name or b.endswith("/" + name) for b in bullets)
        else:
            ok = name in bullets
        if not ok:
            missing.append(f"{path.relative_to(ROOT)} (a '- `{name}`: ...' bullet under the section of `{heading}`)")
    assert not missing, "docs/architecture.md's modules, step by step, lack:\n" + "\n".join(missing)
