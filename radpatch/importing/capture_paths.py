"""Which installed files `radpatch capture` looks at: the distribution a PATH belongs to (the one
whose RECORD lists it, or for a new module the package it goes into), a PATH given as a path
(absolute, from the current directory or from site-packages) or as a module name, a directory's
RECORD rows and new files; without PATHs, every file of `--distribution NAME`, else of the `vllm`
package's distribution. Each RECORD read once; what changed in them is importing.capture's to find."""

from __future__ import annotations

import csv
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RefusedError, UsageError
from radpatch.install import dist_infos, editable, wheel_record
from radpatch.install.dist_infos import canonical_name
from radpatch.install.environment import Installed, PythonEnv, installed_from
from radpatch.registry.loader.nodes import is_dotted

DEFAULT_PACKAGE = "vllm"  # without PATH or --distribution: the distribution installing this package


@dataclass(frozen=True)
class Dist:
    installed: Installed
    rows: dict[str, str | None]  # RECORD path -> sha256 hex (None: listed without a hash)

    @classmethod
    def read(cls, dist_info: Path) -> Dist:
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

    @functools.cached_property
    def module_dirs(self) -> frozenset[str]:
        """Every directory holding a module RECORD lists (not site-packages itself, a .dist-info,
        nor a path outside the site directory such as `../../bin`)."""
        out = set()
        for r in self.rows:
            head, _, name = r.rpartition("/")
            if name.endswith(".py") and head and not r.startswith("../") and ".dist-info" not in head:
                out.add(head)
        return frozenset(out)

    def packages(self) -> list[str]:
        """The directories a scan walks for new modules: each directory holding a module RECORD
        lists, but those under another of them (a namespace distribution's too: PEP 420 packages
        have no `__init__.py`, and several distributions may share `ns/`)."""
        dirs = self.module_dirs
        return sorted(d for d in dirs if not any(d.startswith(o + "/") for o in dirs))

    def owns_new(self, rel: str) -> bool:
        """A file RECORD does not list goes into one of its packages: the nearest `__init__.py` above it
        that RECORD lists. A directory between with an `__init__.py` RECORD does not list is a new
        package, one with none a namespace portion (`backup/` inside a package): looked past, as a
        scan of the package finds the file under either. A namespace distribution (no `__init__.py`)
        owns the directories holding its modules."""
        parts = rel.split("/")[:-1]
        dirs = self.module_dirs
        while parts:
            init = "/".join([*parts, "__init__.py"])
            if init in self.rows or "/".join(parts) in dirs:
                return True
            parts.pop()
        return False


class Installs:
    """Every distribution of a site directory with its RECORD read, once per `find` (several
    PATHs in an environment holding torch would otherwise parse its 20,000-row RECORD each time)."""

    def __init__(self) -> None:
        self._read: dict[Path, list[Dist]] = {}

    def __call__(self, home: Path) -> list[Dist]:
        if home not in self._read:
            self._read[home] = [Dist.read(info) for info in dist_infos.in_dir(home)]
        return self._read[home]


@dataclass(frozen=True)
class Picked:
    """The files of one distribution to look at: RECORD rows, and directories whose new `.py`
    files count too; what was named, for messages; whether the files were named one by one."""

    dist: Dist
    rows: list[str]
    dirs: list[str]
    scanned: str  # "vllm 0.33.0's files", "vllm/x.py"
    named: bool = False
    others: dict[str, str] = field(default_factory=dict)  # a file another distribution's RECORD lists -> its name


def _others(dist: Dist) -> dict[str, str]:
    """The files other distributions of `dist`'s site directory list (a shared namespace's); one
    whose RECORD or METADATA cannot be read lists none."""
    out: dict[str, str] = {}
    for info in dist_infos.in_dir(dist.root):
        if info == dist.installed.dist_info:
            continue
        try:
            other = Dist.read(info)
        except EnvironmentProblem:
            continue
        for rel in other.rows:
            out.setdefault(rel, other.installed.name)
    return out


def pick(env: PythonEnv, paths: tuple[str, ...], distribution: str | None) -> Picked:
    """Which files to look at: the PATHs' (a directory: its RECORD rows, and its new files), else
    every row and package of the distribution (`--distribution`, or the one installing vllm)."""
    if not paths:
        dist = _named(env, distribution) if distribution else _default(env)
        scanned = f"{dist.installed.name} {dist.installed.version}'s files"
        return Picked(dist, [*dist.rows], dist.packages(), scanned, others=_others(dist))
    picked: dict[Path, tuple[Dist, list[str], list[str], list[str]]] = {}  # dist-info -> rows, dirs, args
    installs = Installs()
    for arg in paths:
        home, rel = _resolve(env, arg)
        path = home / rel
        if path.is_dir():
            dist, rows = _directory(installs(home), rel, arg, distribution)
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
        dist = _owner(installs(home), home, rel, arg, distribution)
        entry = picked.setdefault(dist.installed.dist_info, (dist, [], [], []))
        entry[1].append(rel)
        package = rel.removesuffix("/__init__.py")  # a package's module name names its __init__ alone (att54 #5)
        if package != rel and not arg.replace(os.sep, "/").rstrip("/").endswith(("__init__.py", "__init__")):
            arg = f"{arg} (the module {rel}, not the package's other files: name them, or its directory {package}/)"
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
    return Picked(dist, list(dict.fromkeys(rows)), dirs, ", ".join(args), named=not dirs, others=_others(dist))


def _default(env: PythonEnv) -> Dist:
    for d in env.paths:
        for info in dist_infos.in_dir(d):
            if wheel_record.lists(info / "RECORD", f"{DEFAULT_PACKAGE}/__init__.py"):
                return Dist.read(info)
    raise UsageError(
        f"no installed distribution provides the {DEFAULT_PACKAGE} package (in {env.executable}'s path)",
        "name the edited files (radpatch capture NAME PATH...) or the distribution (--distribution NAME), "
        "or point --python at the environment holding them",
    )


def _named(env: PythonEnv, name: str) -> Dist:
    for d in env.paths:
        infos = dist_infos.named(d, name)
        if infos:
            return Dist.read(infos[0])
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
        _refuse_editable(env, full)
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
    if is_dotted(arg) and not arg.endswith(".py"):
        dotted = arg.split(".")
        candidates = ["/".join(dotted) + ".py", "/".join(dotted) + "/__init__.py", "/".join(dotted)]
    for d in env.paths:
        for rel in candidates:
            if (d / rel).exists():
                _refuse_editable(env, d / rel)
                return d, rel
    for rel in candidates:
        owned = editable.owner(env.paths, rel)
        if owned is not None:
            raise editable.refusal(owned[0], owned[1], rel)
    raise UsageError(
        f"{arg}: no such file or module in {env.executable}'s site-packages",
        "give the edited file's path (absolute, or relative to site-packages) or its module name",
    )


def _refuse_editable(env: PythonEnv, path: Path) -> None:
    """A file of an editable install's source tree (a .pth line may put it on the path): refused as
    apply refuses it, not captured as a file of no distribution."""
    held = editable.holding(env.paths, path)
    if held is not None:
        raise editable.refusal(held[0], held[2], held[1])


def _owner(dists: list[Dist], home: Path, rel: str, arg: str, distribution: str | None = None) -> Dist:
    """The one distribution (of those in `home`) whose RECORD lists `rel`, or (a new module) whose
    package it goes into: in a namespace directory several share, the one `--distribution` names."""
    listing = [d for d in dists if rel in d.rows]
    if len(listing) > 1:
        raise RefusedError(
            f"{rel}: {len(listing)} distributions in {home} list it "
            f"({', '.join(d.installed.dist_info.name for d in listing)})",
            "remove the stale one (pip uninstall, or delete its leftover .dist-info), then capture again",
        )
    if listing:
        return listing[0]
    owning = _chosen([d for d in dists if d.owns_new(rel)], distribution)
    if len(owning) == 1:
        return owning[0]
    if owning:
        where = rel.rsplit("/", 1)[0] + "/"
        there = _whose([(d, [r for r in d.rows if r.startswith(where) and "/" not in r[len(where) :]]) for d in owning])
        raise UsageError(
            f"{arg}: {rel} is a new module in {where}, a namespace directory {len(owning)} distributions share "
            f"({there}); no RECORD says whose it is",
            f"say whose it is: --distribution DIST ({' or '.join(d.installed.name for d in owning)})",
        )
    raise UsageError(
        f"{arg}: {rel} is in no installed distribution (no RECORD in {home} lists it or its package)",
        "capture changes files of an installed distribution: give a file its RECORD lists (pip show -f NAME) "
        "or a new module inside one of its packages",
    )


def _directory(dists: list[Dist], rel: str, arg: str, distribution: str | None = None) -> tuple[Dist, list[str]]:
    prefix = rel.rstrip("/") + "/"
    found = []
    for dist in dists:
        rows = [r for r in dist.rows if r.startswith(prefix)]
        if rows or dist.owns_new(prefix + "x.py"):
            found.append((dist, rows))
    chosen = _chosen([d for d, _ in found], distribution)
    found = [(d, rows) for d, rows in found if d in chosen]
    if len(found) > 1:
        raise UsageError(
            f"{arg}: files of {len(found)} distributions are under it, a directory they share ({_whose(found)})",
            "capture each distribution's files under its own NAME: "
            f"--distribution DIST ({' or '.join(d.installed.name for d, _ in found)}), or name the edited files",
        )
    if not found:
        raise UsageError(
            f"{arg}: no installed distribution's RECORD lists a file under it",
            "name a directory of one installed distribution's package, or the edited files themselves",
        )
    return found[0]


def _chosen(dists: list[Dist], distribution: str | None) -> list[Dist]:
    """Those of `dists` that `--distribution` names, where it names one of them; else all."""
    named = [d for d in dists if distribution and canonical_name(d.installed.name) == canonical_name(distribution)]
    return named or dists


def _whose(found: list[tuple[Dist, list[str]]]) -> str:
    """`nsa: ns/a.py; nsb: ns/b.py, ns/c.py and 4 more`: each distribution and its files."""
    said = []
    for d, rows in found:
        more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
        said.append(f"{d.installed.name}: {', '.join(rows[:3]) or 'no file yet'}{more}")
    return "; ".join(said)
