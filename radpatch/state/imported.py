"""Which file the target interpreter would import for a module: a patched file in site-packages
is only what runs if nothing earlier on the import path shadows it (a checkout on PYTHONPATH, a
copy in a mounted volume, a zip archive or zipped egg that holds the package: state.zipped).

radpatch never imports the target package: the target interpreter is asked, in a subprocess,
where it would find each top-level package (`importlib.util.find_spec` of a top-level name
imports nothing), with the import path radpatch resolved for it (`PythonEnv.paths`, which holds
its PYTHONPATH entries); the submodule's file is then looked up in the package's directories as
the path finder would.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from radpatch.install.environment import PythonEnv
from radpatch.state import zipped

_PROBE = """\
import importlib.machinery as m, importlib.util, json, sys
sys.path[:] = json.loads(sys.argv[1])
out = {}
for name in json.loads(sys.argv[2]):
    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        spec = None
    if spec is None:
        out[name] = None
    elif spec.submodule_search_locations is not None:
        out[name] = {"origin": spec.origin, "dirs": list(spec.submodule_search_locations)}
    else:
        out[name] = {"origin": spec.origin, "dirs": None}
# the path finder's loader order: extension modules, then source, then sourceless bytecode
suffixes = [*m.EXTENSION_SUFFIXES, *m.SOURCE_SUFFIXES, *m.BYTECODE_SUFFIXES]
print(json.dumps({"specs": out, "suffixes": suffixes}))
"""


@dataclass(frozen=True)
class Shadow:
    module: str
    patched: Path  # the file radpatch patched
    imported: Path  # the file the target interpreter would import instead
    here: Path | None = None  # the working directory it is in: `python -m`/`-c` started there put it first

    def describe(self) -> str:
        if self.here is not None:
            return (
                f"{self.module} would be imported from {self.imported} by `python -m` or `python -c` started in "
                f"{self.here} (Python puts the working directory first on the import path), not from the patched "
                f"{self.patched}: the patch does not run there; start the engine from another directory"
            )
        if self.imported.parent == self.patched.parent or self.imported.parent == self.patched.parent.parent:
            return (
                f"{self.module} would be imported from {self.imported}, not from the patched {self.patched} "
                "(the import system prefers it: a package directory, then a compiled extension module, "
                "then .py, then .pyc): the patch does not run"
            )
        inside = zipped.split(self.imported)
        if inside is not None:
            return (
                f"{self.module} would be imported from the zip archive {inside[0]} ({inside[1]}), not from the "
                f"patched {self.patched} (the archive is earlier on the import path, e.g. PYTHONPATH, and "
                "shadows the install): the patch does not run"
            )
        return (
            f"{self.module} would be imported from {self.imported}, not from the patched {self.patched} "
            "(a copy earlier on the import path, e.g. PYTHONPATH, shadows the install): the patch does not run"
        )


def shadows(env: PythonEnv, files: list[tuple[str, Path]], here: bool = False) -> list[Shadow]:
    """Of (module, patched file) pairs, those the target interpreter would import from elsewhere.
    [] when it cannot be asked (the answer is then unknown, not a shadow). `here`: as `python -m` and
    `python -c` started in radpatch's working directory would, that directory first (att63 F4: a
    checkout there is what an engine started there runs)."""
    if not files:
        return []
    tops = sorted({module.split(".")[0] for module, _ in files})
    cwd = Path(os.getcwd()) if here else None
    path = json.dumps([*([str(cwd)] if cwd else []), *(str(p) for p in env.import_path or env.paths)])
    try:
        done = subprocess.run(
            [env.executable, "-c", _PROBE, path, json.dumps(tops)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        answer = json.loads(done.stdout) if done.returncode == 0 else {}
        found, suffixes = answer.get("specs", {}), [str(x) for x in answer.get("suffixes", [".py"])]
    except (OSError, subprocess.TimeoutExpired, ValueError, AttributeError, TypeError):
        return []
    out = []
    for module, patched in files:
        where = _file_of(import_name(module), found.get(module.split(".")[0]), suffixes)
        if where is not None and not _same(where, patched):
            out.append(Shadow(module, patched, where, cwd if _from(cwd, where, module) else None))
    return out


def _from(cwd: Path | None, found: Path, module: str) -> bool:
    """`found` is the working directory's own copy (`cwd/pkg/...`, `cwd/pkg.py`), not a file of an import path
    entry that lies below it (site-packages under the working directory)."""
    top = module.split(".")[0]
    if cwd is None or not found.is_relative_to(cwd):
        return False
    first = found.relative_to(cwd).parts[0]
    return first == top or first.split(".")[0] == top


def import_name(module: str) -> str:
    """`pkg.sub.__init__` is imported as `pkg.sub` (both spellings name the package's file)."""
    return module[: -len(".__init__")] if module.endswith(".__init__") else module


def _file_of(module: str, spec: object, suffixes: list[str]) -> Path | None:
    """The file `module` would be loaded from, given its top-level package's spec and the target's
    loader suffixes in the path finder's order (`importlib.machinery.FileFinder`): in each
    directory of the parent package, a package directory with an `__init__` first, then a module
    file of each suffix in turn."""
    if not isinstance(spec, dict):
        return None
    rest = module.split(".")[1:]
    origin, dirs = spec.get("origin"), spec.get("dirs")
    if not rest:
        return Path(origin) if isinstance(origin, str) else None
    if not isinstance(dirs, list):
        return None
    for d in dirs:
        for sub in rest[:-1]:
            d = os.path.join(d, sub)
        inside = zipped.split(d)
        if inside is not None:  # a package in a zip archive (zipimport): its module there is what is imported
            member = zipped.module_in(inside[0], inside[1], rest[-1])
            if member is not None:
                return member
            continue
        base = os.path.join(d, rest[-1])
        if os.path.isdir(base):
            for suffix in suffixes:
                init = os.path.join(base, "__init__" + suffix)
                if os.path.isfile(init):
                    return Path(init)
        for suffix in suffixes:
            if os.path.isfile(base + suffix):
                return Path(base + suffix)
    return None


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)
