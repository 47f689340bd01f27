"""A compiled extension beside a module's `.py` that the target imports instead.

A module whose `.py` a compiled extension beside it shadows (`m.cpython-311-x86_64-linux-gnu.so`,
`m.abi3.so`, `m.so` next to `m.py`; `__init__.<ext>` in a package's directory) is refused: the
import system loads the extension first, so a patched `.py` would never run. The extension suffixes
are the target interpreter's own (asked in a subprocess that imports nothing but importlib), and
asked only when such a file is there.
"""

from __future__ import annotations

import functools
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

from radpatch.errors import RefusedError
from radpatch.files.extension_twin import shadowed_by
from radpatch.install.environment import Installed
from radpatch.registry.model import ModuleChoice


def _compiled(choice: ModuleChoice, dist: Installed) -> RefusedError | None:
    """The refusal when a compiled extension module beside `choice`'s file is what the target imports, else None."""
    path = dist.root / choice.relpath
    stem = path.name[: -len(".py")]
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(stem + ".") and n.endswith((".so", ".pyd"))]
    except OSError:
        return None  # no directory yet: a module the entry creates in a package it creates
    if not names:
        return None
    suffixes = extension_suffixes(dist.python or sys.executable)
    if suffixes is None:
        return None  # the target could not be asked: status --check still asks it which file it imports
    ext = next((stem + s for s in suffixes if (path.parent / (stem + s)).is_file()), None)
    if ext is None:
        return None  # another interpreter's extension (a cpython-312 one beside a 3.11 target): not imported
    shown = (Path(choice.relpath).parent / ext).as_posix()
    return RefusedError(
        shadowed_by(choice.module, shown, choice.relpath, dist.root),
        f"patch a source install of {dist.name} (pip install --no-binary {dist.name} {dist.name}=={dist.version}), "
        f"or remove {shown} so that the .py runs; then apply again",
    )


_SUFFIXES = "import importlib.machinery as m, json; print(json.dumps(m.EXTENSION_SUFFIXES))"


@functools.lru_cache(maxsize=8)
def extension_suffixes(python: str) -> tuple[str, ...] | None:
    """The target interpreter's importlib.machinery.EXTENSION_SUFFIXES, in its loader order; None
    when it cannot be asked. radpatch's own when the target is the interpreter radpatch runs on."""
    try:
        if os.path.realpath(python) == os.path.realpath(sys.executable):
            return tuple(importlib.machinery.EXTENSION_SUFFIXES)
        done = subprocess.run(
            [python, "-I", "-S", "-c", _SUFFIXES], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
        found = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if not isinstance(found, list) or not all(isinstance(x, str) for x in found):
        return None
    return tuple(found)
