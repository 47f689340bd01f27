"""Write imported entries into `--out`: every entry's payloads, then its YAML, or nothing
(importing.emit builds them; `import`, `capture` and import's dry run write them here)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from radpatch.errors import EnvironmentProblem, RefusedError, UsageError
from radpatch.files import new_file_mode
from radpatch.importing.emit import Entry


def write(out: Path, entries: list[Entry]) -> list[Path]:
    """Write every entry and payload, or nothing: refuse before writing when one exists already.
    The payloads go first and each entry's YAML last, so a run killed midway leaves no entry that
    names a payload not written (the registry still loads); a file left so, holding the bytes this
    run would write, is no clash the next run refuses on. A write that fails removes what it added."""
    payloads = [(out / e.name / rel, text) for e in entries for rel, text in e.payloads]
    targets = payloads + [(out / f"{e.name}.yaml", e.yaml) for e in entries]
    there = {p for p, _ in targets if p.exists()}
    clash = [p for p, text in targets if p in there and not _holds(p, text)]
    if clash:
        raise RefusedError(
            f"{clash[0]} exists already ({len(clash)} file{'s' if len(clash) > 1 else ''} would be overwritten)",
            "choose another --out directory or --name, or remove the old entry first",
        )
    _refuse_file_in_the_way(out, [p for p, _ in targets])
    written: list[Path] = []
    try:
        for path, text in targets:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            except OSError as exc:
                raise EnvironmentProblem(
                    f"cannot write {path}: {exc.strerror}; nothing was written",
                    "choose an --out directory radpatch can write to",
                ) from None
            try:
                os.chmod(tmp, new_file_mode())  # as a file the user writes (mkstemp's is 0600)
                with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
                    fh.write(text)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            written.append(path)
    except BaseException:
        for path in reversed(written):
            if path not in there:
                path.unlink(missing_ok=True)
        raise
    return written


def _refuse_file_in_the_way(out: Path, paths: list[Path]) -> None:
    """A file (not a directory) where a directory of the entries must go (`--out` itself, or
    OUT/NAME for the payloads): a usage error naming it, before anything is written."""
    dirs = dict.fromkeys(d for p in paths for d in reversed(p.parents) if d == out or d.is_relative_to(out))
    for d in dirs:
        if d.exists() and not d.is_dir():
            raise UsageError(
                f"--out: {d} is a file, where a directory of the entries must go",
                "choose another --out directory or --name, or move that file away",
            )


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_bytes() == text.encode("utf-8", "surrogateescape")
    except OSError:
        return False
