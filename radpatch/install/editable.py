"""Which editable install (`pip install -e`) a module that is not in site-packages belongs to, read
from what the install left in site-packages: a PEP 660 finder's MAPPING, a `.pth` line naming the
source tree, or direct_url.json's directory with top_level.txt. Nothing is imported. `import` and
`capture` use it to refuse such a module as `apply` does (install.environment.module_path), instead
of "can't find file to patch" or "nothing to capture"."""

from __future__ import annotations

import ast
import csv
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

from radpatch.errors import RadpatchError, RefusedError
from radpatch.files import read_regular
from radpatch.install import dist_infos, wheel_record
from radpatch.install.environment import Installed, installed_from

_LIMIT = 1 << 20


def editable_dists(dirs: Iterable[Path]) -> Iterator[Installed]:
    """Every editable distribution of the directories `dirs` (an environment's paths), first found first."""
    for directory in dirs:
        for dist_info in dist_infos.in_dir(directory):
            try:
                dist = installed_from(dist_info)
            except RadpatchError:  # an unreadable dist-info is not one this can name
                continue
            if dist.editable:
                yield dist


def sources(dist: Installed) -> dict[str, Path]:
    """Each top-level package or module name of the editable `dist` -> where its code is."""
    out: dict[str, Path] = {}
    tops = _top_level(dist)
    for rel in _recorded(dist):
        path = dist.root / rel
        if rel.endswith("_finder.py") and "/" not in rel:
            out.update(_mapping(path))
        elif rel.endswith(".pth") and "/" not in rel:
            for line in _text(path).splitlines():
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    out.update({t: p for t, p in _importable(Path(line)).items() if t not in out})
    url = _direct_url(dist)
    if url is not None:
        for base in (url, url / "src"):
            out.update({t: base / t for t in tops if t not in out and (base / t).exists()})
    return out


def owner(dirs: Iterable[Path], relpath: str) -> tuple[Installed, Path] | None:
    """The editable distribution whose source tree holds the file `relpath` (a path as site-packages
    would hold it, e.g. `shop/win.py`), and that file; None when none holds it."""
    top, _, rest = relpath.partition("/")
    stem = top[:-3] if top.endswith(".py") and not rest else top
    for dist in editable_dists(dirs):
        where = sources(dist).get(stem)
        found = None if where is None else where / rest if rest else where.with_name(top)
        if found is not None and found.is_file():
            return dist, found
    return None


def holding(dirs: Iterable[Path], path: Path) -> tuple[Installed, str, Path] | None:
    """The editable distribution whose source tree holds the file `path` (as given, or with its links
    followed: setuptools' strict mode links each file), the path site-packages would hold it at, and
    the file; None when none does."""
    seen = (Path(os.path.abspath(path)), path.resolve())
    for dist in editable_dists(dirs):
        for where in sources(dist).values():
            for base in (where, where.resolve()):
                for p in seen:
                    if p == base or p.is_relative_to(base):
                        return dist, p.relative_to(base.parent).as_posix(), p
            linked = _linked_from(where, seen[1])
            if linked is not None:
                return dist, linked.relative_to(where.parent).as_posix(), seen[1]
    return None


def _linked_from(tree: Path, target: Path, most: int = 20000) -> Path | None:
    """The link in `tree` (a link tree: setuptools' strict editable mode) that leads to `target`."""
    if not tree.is_dir():
        return None
    for n, link in enumerate(tree.rglob("*")):
        if n >= most:
            return None
        if link.is_symlink() and link.resolve() == target:
            return link
    return None


def refusal(dist: Installed, code: Path, relpath: str = "") -> RefusedError:
    """apply's words for a module of an editable install (install.environment.module_path)."""
    what = f"{relpath} is at {code}" if relpath else f"its code is in {code}"
    return RefusedError(
        f"{dist.name} {dist.version} is an editable install (pip install -e); {what}, not under {dist.root}",
        "radpatch patches installed files only: install a wheel of it, or patch the source tree with git",
    )


def _importable(directory: Path) -> dict[str, Path]:
    """What a path entry (a `.pth` line) makes importable: each package directory and module in it."""
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return {}
    return {
        c.name[:-3] if c.suffix == ".py" else c.name: c
        for c in children
        if (c.suffix == ".py" and c.is_file()) or (c.is_dir() and c.name.isidentifier())
    }


def _text(path: Path) -> str:
    try:
        return read_regular(path, limit=_LIMIT).decode("utf-8", "replace")
    except OSError:
        return ""


def _recorded(dist: Installed) -> list[str]:
    try:
        return list(wheel_record.rows(dist.dist_info / "RECORD"))
    except (OSError, csv.Error):
        return []


def _top_level(dist: Installed) -> list[str]:
    names = [n.strip() for n in _text(dist.dist_info / "top_level.txt").splitlines() if n.strip()]
    return names or [dist.name.replace("-", "_").lower()]


def _mapping(finder: Path) -> dict[str, Path]:
    """A setuptools PEP 660 finder's `MAPPING = {'pkg': '/src/pkg', ...}`, read as a literal."""
    try:
        tree = ast.parse(_text(finder))
    except (SyntaxError, ValueError):
        return {}
    for node in tree.body:
        target: ast.expr
        if isinstance(node, ast.AnnAssign):
            target, expr = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, expr = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "MAPPING" and expr is not None:
            try:
                value = ast.literal_eval(expr)
            except (ValueError, SyntaxError, TypeError, RecursionError):
                return {}
            if isinstance(value, dict):
                return {str(k): Path(str(v)) for k, v in value.items()}
    return {}


def _direct_url(dist: Installed) -> Path | None:
    try:
        info = json.loads(_text(dist.dist_info / "direct_url.json") or "null")
    except (ValueError, RecursionError):
        return None
    url = info.get("url") if isinstance(info, dict) else None
    if not isinstance(url, str) or not url.startswith("file:"):
        return None
    return Path(unquote(urlparse(url).path))
