"""Which installed file a PATH names, for `radpatch restore`: a file under site-packages, a module
name, or a directory, resolved to the rows of an installed distribution's RECORD (`named_files`),
each a `RestoreFile`."""

from __future__ import annotations

import csv
import os
from collections.abc import Callable
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RefusedError, UsageError
from radpatch.files import read_regular
from radpatch.install import dist_infos, wheel_record
from radpatch.install.environment import Installed, PythonEnv, installed_from
from radpatch.registry.loader.nodes import is_dotted
from radpatch.state.restore import RestoreFile, file_digest, refuse_patched

_NOT_LISTED_HINT = (
    "restore puts back files a distribution installed: give a path under site-packages that its RECORD lists "
    "(pip show -f NAME), or a module name"
)


# --- which file -----------------------------------------------------------------------------------


def named_files(env: PythonEnv, arg: str, say: Callable[[str], object]) -> list[RestoreFile]:
    """The file `arg` names, or each file RECORD lists under the directory it names (one that
    was deleted too) that is not as installed; a file under it that carries a patch radpatch can
    revert is left alone, with a note."""
    # a package name that is also a directory under site-packages (`vllm`) names the directory, as
    # documented: every file under it, not only its `__init__.py`
    rows = _directory(env, arg)
    if rows is None:
        return [_one_file(env, arg)]
    out = []
    for dist, relpath in rows:
        want = dist.recorded_sha256(relpath)
        path = dist.root / relpath
        if want is None or path.is_symlink() or file_digest(path) == want:
            continue
        try:
            out.append(_one_file(env, arg, (dist, relpath)))
        except RefusedError as exc:
            say(f"left {relpath} alone: {exc.message.split(': ', 1)[-1]} ({exc.hint})")
    if not out:
        say(f"{arg}: every file RECORD lists under it is as installed, or left alone; nothing to do")
    return out


def _directory(env: PythonEnv, arg: str) -> list[tuple[Installed, str]] | None:
    """The files (with their distribution) RECORD lists under the directory `arg` names, or None
    when `arg` names a file (or nothing RECORD lists)."""
    path = Path(arg)
    if path.is_absolute():
        homes = [_under_site(env, path, arg)] if _within(env, Path(os.path.abspath(path))) else []
    else:
        rel = _relative(arg)
        homes = [(d, rel) for d in env.paths]
        here = Path(os.path.abspath(arg))
        if _within(env, here):
            homes.append(_under_site(env, here, arg))
    for home, rel in homes:
        if _listing(home, rel) is not None:
            return None
        rows = _rows_under(home, rel)
        if rows:
            return rows
    return None


def _rows_under(home: Path, directory: str) -> list[tuple[Installed, str]]:
    prefix = directory.rstrip("/") + "/"
    out: list[tuple[Installed, str]] = []
    for info in dist_infos.in_dir(home):
        try:
            rows = [r for r in wheel_record.rows(info / "RECORD") if r.startswith(prefix)]
        except (OSError, csv.Error):
            continue
        if rows:
            dist = installed_from(info)
            out.extend((dist, rel) for rel in rows)
    return out


def _one_file(env: PythonEnv, arg: str, owner: tuple[Installed, str] | None = None) -> RestoreFile:
    dist, relpath = owner or _owner(env, arg)
    want = dist.recorded_sha256(relpath)
    if want is None:
        raise RefusedError(
            f"{arg}: {dist.name} {dist.version}'s RECORD lists {relpath} without a sha256 (a file made at install "
            "time, such as bytecode or RECORD itself): nothing says what its bytes should be",
            f"reinstall {dist.name} if it is damaged (pip install --force-reinstall --no-deps {dist.name})",
        )
    path = dist.root / relpath
    if path.is_symlink():
        raise EnvironmentProblem(
            f"{path} is a symbolic link; radpatch does not write through links",
            "remove the link, then run radpatch restore again to put the file back",
        )
    try:
        current: bytes | None = read_regular(path)
    except FileNotFoundError:
        current = None  # deleted by hand: restored too
    except OSError as exc:
        raise EnvironmentProblem(f"cannot read {path}: {exc.strerror}", "restore replaces regular files only")
    t = RestoreFile(arg, dist, relpath, current, want)
    refuse_patched(t)
    return t


def _owner(env: PythonEnv, arg: str) -> tuple[Installed, str]:
    """The distribution whose RECORD lists the file `arg` names, and the file's RECORD path."""
    if is_dotted(arg) and not arg.endswith(".py"):
        parts = arg.split(".")
        rels = ["/".join(parts) + ".py", "/".join(parts) + "/__init__.py"]
        for d in env.paths:  # as import searches: the first directory that has it
            for rel in rels:
                dist = _listing(d, rel)
                if dist is not None:
                    return dist, rel
        raise UsageError(
            f"{arg}: no installed distribution's RECORD lists {rels[0]} or {rels[1]} (in {env.executable}'s path)",
            _NOT_LISTED_HINT,
        )
    path = Path(arg)
    if not path.is_absolute():
        rel = _relative(arg)
        for d in env.paths:
            dist = _listing(d, rel)
            if dist is not None:
                return dist, rel
        path = Path(os.path.abspath(arg))  # else a path relative to the current directory (it may be deleted)
        if not _within(env, path) or not dist_infos.in_dir(_under_site(env, path, arg)[0]):
            # not `(in CWD)`: a directory no distribution is installed in (the current one, on the path by
            # PYTHONPATH) is not where the PATH was meant: said as the target environment's file
            raise UsageError(
                f"{arg}: no installed distribution's RECORD lists {rel}: {_expected(env, rel)} is not a file "
                f"{env.executable}'s environment installed",
                _NOT_LISTED_HINT,
            )
    home, rel = _under_site(env, path, arg)
    dist = _listing(home, rel)
    if dist is None:
        raise UsageError(f"{arg}: no installed distribution's RECORD lists {rel} (in {home})", _NOT_LISTED_HINT)
    return dist, rel


def _expected(env: PythonEnv, rel: str) -> Path:
    """Where the target environment would hold `rel`: beside the installed package of its first
    directory (the directory of the path whose RECORD lists that package's `__init__.py`), else in
    its site-packages."""
    if "/" in rel:
        init = rel.split("/", 1)[0] + "/__init__.py"
        for d in env.paths:
            if any(wheel_record.lists(e / "RECORD", init) for e in dist_infos.in_dir(d)):
                return d / rel
    return env.purelib / rel


def _relative(arg: str) -> str:
    parts = [p for p in arg.replace(os.sep, "/").split("/") if p not in ("", ".")]
    if ".." in parts or not parts:
        raise UsageError(f"{arg}: give a path under site-packages (no '..'), or an absolute path or a module name")
    return "/".join(parts)


def _within(env: PythonEnv, path: Path) -> bool:
    return any(path.is_relative_to(d) and path != d for d in env.paths)


def _under_site(env: PythonEnv, path: Path, arg: str) -> tuple[Path, str]:
    """The deepest directory of the target's path holding `path` (site-packages sits inside the
    standard library's directory), and the path relative to it."""
    for candidate in (Path(os.path.abspath(path)), Path(os.path.realpath(path.parent)) / path.name):
        homes = [d for d in env.paths if candidate.is_relative_to(d) and candidate != d]
        if homes:
            home = max(homes, key=lambda d: len(d.parts))
            return home, candidate.relative_to(home).as_posix()
    raise UsageError(
        f"{arg}: not under a directory of {env.executable}'s path",
        "give a file under its site-packages, or point --python at the environment it belongs to",
    )


def _listing(d: Path, rel: str) -> Installed | None:
    """The one distribution in `d` whose RECORD lists `rel`; two are refused (which is installed?)."""
    owners = [e for e in dist_infos.in_dir(d) if wheel_record.lists(e / "RECORD", rel)]
    if len(owners) > 1:
        raise RefusedError(
            f"{rel}: {len(owners)} distributions in {d} list it ({', '.join(o.name for o in owners)})",
            "remove the stale one (pip uninstall, or delete its leftover .dist-info), then run radpatch again",
        )
    if not owners:
        return None
    return installed_from(owners[0])
