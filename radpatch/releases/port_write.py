"""port's edit written: the registry file replaced atomically, only while it is still what port read."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from radpatch.errors import RefusedError

if TYPE_CHECKING:
    from radpatch.releases.port import Port


def write(port: Port) -> None:
    """Replace the registry file atomically (same directory, same mode). A registry entry that is a
    symlink (a registry of links into a shared checkout) is edited where it points, the link kept.
    The file must still be what `plan` read: an editor that saved it while the edit was being
    proven keeps its change (the edit would silently drop it)."""
    assert port.after is not None
    src = port.patch.source
    real = Path(os.path.realpath(src))
    try:
        now: str | None = real.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        now = None
    if now != port.before:
        raise RefusedError(f"{src}: changed since port read it; the edit was not written", "run `radpatch port` again")
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", dir=real.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(port.after)
        os.chmod(tmp, real.stat().st_mode & 0o7777)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
