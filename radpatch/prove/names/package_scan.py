"""What the patched module's package imports, read as text from the installed files (never
imported): `imports_top`, whether any module of the package imports a top-level module; and
`package_imported`, which of some submodules (`xml.dom.minidom`) another module of the package
imports, which binds them for the whole process. Each file's imports are kept by its content's hash.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from pathlib import Path


def imports_top(paths: list[str], package: str, module: str) -> bool:
    """Whether any module of `package` (on the target's path) imports `module`'s top-level module:
    read as text, only when a new import names a module the target lacks."""
    top = module.split(".")[0]
    pattern = re.compile(rf"^[ \t]*(?:import|from)[ \t]+{re.escape(top)}\b", re.MULTILINE)
    for root in paths:
        home = Path(root) / package
        if not home.is_dir():
            continue
        for file in home.rglob("*.py"):
            try:
                if pattern.search(file.read_text("utf-8", "replace")):
                    return True
            except OSError:
                continue
    return False


_STATEMENT = re.compile(
    rb"[ \t]*(?:import[ \t]+([\w. \t,]+)|from[ \t]+(\w[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|(?:[\w \t,]|\\\n)*))"
)
_FILE_IMPORTS: dict[bytes, frozenset[str]] = {}  # a file's sha1 -> the modules its import statements name


def file_imported(data: bytes) -> frozenset[str]:
    """Every absolute module an import statement in `data` may import, read as text (`import a.b`:
    a.b; `from a.b import c`: a.b, a.b.c, which may be a submodule; each imports its parents too).
    Only the lines holding `import` are matched; a statement in a string counts too (this only ever
    lets a read pass)."""
    found: set[str] = set()
    at = data.find(b"import")
    while at != -1:
        m = _STATEMENT.match(data, data.rfind(b"\n", 0, at) + 1)
        if m and m.group(1):
            found.update(part.split()[0] for part in m.group(1).decode().split(",") if part.split())
        elif m and m.group(2):
            base = m.group(2).decode()
            found.add(base)
            names = m.group(3).decode().strip("()").replace("\\", " ").split(",")
            found.update(f"{base}.{n.split()[0]}" for n in names if n.split())
        at = data.find(b"import", at + 6)
    return frozenset(found)


def package_imported(paths: list[str], package: str, wanted: Collection[str]) -> set[str]:
    """Which of the modules `wanted` the import statements of `package`'s files (on the target's path)
    import (each import imports its parents too): another module of the package that imports
    `xml.dom.minidom` binds it for the whole process. Read as text, each file's imports kept by its
    content's hash; the scan stops once every one is found."""
    found: set[str] = set()
    left = set(wanted)
    for root in paths:
        home = Path(root) / package
        if not home.is_dir():
            continue
        for file in home.rglob("*.py"):
            try:
                data = file.read_bytes()
            except OSError:
                continue
            digest = hashlib.sha1(data).digest()
            if digest not in _FILE_IMPORTS:
                _FILE_IMPORTS[digest] = file_imported(data)
            theirs = _FILE_IMPORTS[digest]
            hit = {w for w in left if any(d == w or d.startswith(w + ".") for d in theirs)}
            found |= hit
            left -= hit
            if not left:
                return found
        break  # the first directory of that name is the package that imports
    return found
