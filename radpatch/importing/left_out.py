"""Which new files capture leaves out of a scan, and why (said to the user): another distribution's
file in a namespace directory both share, a file Python never imports under its path's name, a
backup of an installed module (its bytes as installed, under its name or its name with a suffix),
and any other file no RECORD lists that radpatch did not create (refused when named: `unlisted`)."""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from radpatch.errors import RefusedError
from radpatch.importing.capture_paths import Dist
from radpatch.registry.loader.nodes import is_dotted


@dataclass(frozen=True)
class LeftOut:
    """A file that differs from RECORD but is not captured, and why (said to the user)."""

    relpath: str
    why: str


def dir_owner(rel: str, ours: set[str], theirs: dict[str, str]) -> str | None:
    """The other distribution a new file's directory belongs to: the nearest directory above it
    holding a file some RECORD lists is another's and none of ours (None: ours)."""
    parts = rel.split("/")[:-1]
    while parts:
        here = "/".join(parts)
        if here in ours:
            return None
        if here in theirs:
            return theirs[here]
        parts.pop()
    return None


def shared(name: str, rels: list[str]) -> LeftOut:
    """The files of another distribution a scan met in a namespace directory both share."""
    if len(rels) == 1:
        return LeftOut(rels[0], f"a file of {name} (its RECORD lists it: a namespace the distributions share)")
    under = posixpath.commonpath(rels)
    return LeftOut(
        f"{under}/", f"{len(rels)} files of {name} (its RECORD lists them: a namespace the distributions share)"
    )


def unimportable(root: Path, rel: str, left: list[LeftOut]) -> bool:
    """A new file Python never imports under its path's name, left out and said: one whose path is no
    dotted module name (`core.bak.py`, `my-dir/x.py`: an entry's modules are dotted names, and
    `rcap.core.bak` is rcap/core/bak.py), and one a package of the same name hides (`p.py` beside
    `p/__init__.py`: `import p` loads the package), or that hides a module as a new package; one under
    a directory a module of the same name hides (`util/extra.py` beside `util.py`), and one whose name
    Python reads NFKC-normalised as another (`ﬁx.py`: `fix`)."""
    stem = rel[: -len(".py")]
    if "." in stem or not is_dotted(stem.replace("/", ".")):
        left.append(LeftOut(rel, "not an importable module name (an entry's modules are dotted names)"))
        return True
    normal = unicodedata.normalize("NFKC", stem)
    if normal != stem:  # Python reads identifiers NFKC-normalised: `import x.ﬁx` looks for x/fix.py
        why = f"Python reads its name as {normal.replace('/', '.')} (NFKC) and looks for {normal}.py, never {rel}"
        left.append(LeftOut(rel, why + "; rename it"))
        return True
    parts = stem.split("/")
    for i in range(1, len(parts)):
        above = "/".join(parts[:i])
        if (root / f"{above}.py").is_file() and not (root / above / "__init__.py").is_file():
            why = f"{above.replace('/', '.')} is the module {above}.py, not a package: Python never imports {rel}"
            left.append(LeftOut(rel, why + "; rename it, or make the change in the file Python imports"))
            return True
    package = stem.removesuffix("/__init__")
    module = package.replace("/", ".")
    if package != stem and (root / f"{package}.py").is_file():
        why = f"it makes {module} a package, which hides {package}.py (Python imports {module} from {rel})"
    elif package == stem and (root / stem / "__init__.py").is_file():
        why = f"the package {stem}/ hides it: Python imports {module} from {stem}/__init__.py, never from {rel}"
    else:
        return False
    left.append(LeftOut(rel, why + "; rename it, or make the change in the file Python imports"))
    return True


def installed_copies(dist: Dist) -> dict[str, list[str]]:
    """RECORD's sha256 of each of the distribution's modules -> their paths (for _copy_of)."""
    out: dict[str, list[str]] = {}
    for rel, want in sorted(dist.rows.items()):
        if want is not None and rel.endswith(".py"):
            out.setdefault(want, []).append(rel)
    return out


def copy_of(rel: str, same_bytes: Iterable[str]) -> str | None:
    """The installed module a new file `rel` is a backup of: one with its bytes as installed and
    its name (`backup/block_pool.py`), or its name with a suffix (`block_pool_orig.py`,
    `block_pool.bak.py`). An install script that copies an edited file over a module often keeps
    the original so, beside it; that is not the edit. A package's `__init__.py` is never one (a
    new package's may well have the bytes of another's, a license line)."""
    name = PurePosixPath(rel).name
    if name == "__init__.py":
        return None
    stem = name[: -len(".py")]
    for other in same_bytes:
        o = PurePosixPath(other).stem
        if o != "__init__" and (stem == o or (stem.startswith(o) and stem[len(o)] in "_.-")):
            return other
    return None


UNLISTED_WHY = (
    "no RECORD lists it and radpatch did not create it: recorded, `revert` would delete a file radpatch never wrote"
)
UNLISTED_WAY = (
    "to ship it as a new module, move it out of site-packages and have an entry create it (`create_module`, "
    "its content this file): `radpatch apply` writes it"
)


def unlisted(rel: str, named: bool, left: list[LeftOut]) -> bool:
    """A `.py` file no RECORD lists and no entry radpatch applied created (a module made or edited
    by hand): apply's rule for such a file (docs/safety.md: radpatch has no installed bytes of it,
    and what it was before the edits is nobody's to say), so capture never records it as a module
    its entry creates. Left out of a scan, and said; refused when named. Always True."""
    if named:
        raise RefusedError(f"{rel} is no installed distribution's file ({UNLISTED_WHY})", UNLISTED_WAY)
    left.append(LeftOut(rel, f"{UNLISTED_WHY}; {UNLISTED_WAY}"))
    return True
