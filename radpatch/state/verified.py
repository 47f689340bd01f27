"""What verify found, as `status` and `apply` read it: the summaries verify keeps in its cache
(releases.summaries writes them; this module is their one reader below the commands, so the
state decision and the proof never import releases/). No network, no libcst."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from radpatch.files import read_regular
from radpatch.install.environment import Installed
from radpatch.registry.model import Patch


def cache_root() -> Path:
    """$RADPATCH_CACHE, else <user cache dir>/radpatch/releases."""
    env = os.environ.get("RADPATCH_CACHE")
    if env:
        return Path(env).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "radpatch" / "releases"


def summary_path(root: Path, patch: Patch) -> Path:
    return root / "summaries" / f"{patch.name}-{patch.digest[:16]}.json"


def code_digest(data: bytes) -> str:
    """sha256 of a module's code (its syntax tree: comments and layout do not count), of its bytes
    when it does not parse."""
    try:
        return hashlib.sha256(ast.dump(ast.parse(data)).encode()).hexdigest()
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return hashlib.sha256(data).hexdigest()


def not_in_effect(root: Path, patch: Patch) -> dict[str, list[str]]:
    """Release -> code digests of its files whose new code verify found may not take effect there."""
    try:
        data = json.loads(summary_path(root, patch).read_text())
        return {str(k): [str(h) for h in v] for k, v in data.get("not_in_effect", {}).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def verified_code(root: Path, patch: Patch) -> dict[str, dict[str, str]]:
    """Release -> {relpath: code digest} of its files the entry rewrites, as verify read them."""
    try:
        data = json.loads(summary_path(root, patch).read_text())
        return {str(k): {str(p): str(h) for p, h in v.items()} for k, v in data.get("code", {}).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def installed_differs(root: Path, patch: Patch, dist: Installed) -> tuple[str, ...] | None:
    """The installed files (relpaths) of `dist` that are not, as code (code_digest), the files of
    its release verify read, once radpatch's recorded work of other entries is taken off them
    (state.stack.own_base: an entry it `requires:` applied on the same module); () when every one
    is; None when verify kept no code of that release (nothing to tell the install by: a claim from
    the version number alone is not made)."""
    from radpatch.install.wheel_record import identity
    from radpatch.state.record import Store
    from radpatch.state.stack import own_base, trusted_names

    want = verified_code(root, patch).get(str(dist.version))
    if not want:
        return None
    store = Store(dist.root)
    trust = trusted_names(store, dist, identity(dist.dist_info / "RECORD"))
    differs = []
    for rel, digest in sorted(want.items()):
        data = _read(dist.root / rel)
        if code_digest(data) == digest:
            continue
        if data and code_digest(own_base(store, rel, data, dist.recorded_sha256(rel), patch.name, trust)) == digest:
            continue
        differs.append(rel)
    return tuple(differs)


def _read(path: Path) -> bytes:
    try:
        return read_regular(path)
    except (OSError, ValueError):
        return b""  # no such file: not the release's file (whose digest is of its bytes)


def not_in_effect_file(root: Path, patch: Patch, data: bytes) -> bool:
    """`data` is, as code (code_digest), a release's file verify found to hold the entry's new code
    where it may not take effect: status and apply judge the installed file by it."""
    digest = code_digest(data)
    return any(digest in shas for shas in not_in_effect(root, patch).values())


def in_effect(patch: Patch) -> Callable[[bytes], bool]:
    """Whether a file's copy of the entry's new code takes effect, as far as status and apply can
    tell: False for a file whose bytes verify read on a release and found may not take effect there
    (refusal.NOT_IN_EFFECT, judged against the change on a release the entry is written for; its
    cache, no network); True otherwise (nothing else tells without a base)."""
    if patch.from_record:
        return lambda data: True
    root = cache_root()
    return lambda data: not not_in_effect_file(root, patch, data)
