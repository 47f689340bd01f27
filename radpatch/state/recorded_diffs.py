"""A patch's diff as radpatch's record holds it: each file's kept original (exactly the bytes an
entry replaced) against the bytes it wrote (the installed file, or, where an entry is stacked on
it, the original kept for that one), so the diffs of a stack replayed in apply order give the
installed files. The unified diff `radpatch diff` prints and the CycloneDX SBOM carries
(`pedigree.patches[].diff`) is prove.diffs', which reads an applied entry's step from here and
runs the rewrites only where the record has none. Nothing is written.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from radpatch.files import read_regular
from radpatch.state.decide import FileState, PatchState
from radpatch.state.owner import found
from radpatch.state.record import ABSENT, PatchRecord, Store, sha256
from radpatch.state.record_file import FileRecord


@dataclass(frozen=True)
class NoDiff:
    """Why an entry's diff cannot be made from the record."""

    why: str


def recorded_diff(store: Store, rec: PatchRecord) -> str | NoDiff:
    """An entry's diff from the record alone (no registry): each file's kept original before it, and
    the bytes it wrote (the file itself, or the original kept for the entry stacked on it); NoDiff,
    naming the file, when either is no longer there."""
    out: list[list[str]] = []
    for f in rec.files:
        step = _recorded_step(store, f)
        if isinstance(step, NoDiff):
            return step
        out.append(file_diff(*step, f.path))
    return joined(out)


def _recorded_step(store: Store, f: FileRecord) -> tuple[bytes, bytes] | NoDiff:
    """A file's step of the stack as recorded: the bytes under the entry (its kept original) and
    the bytes it wrote (the file itself, or the original kept for the entry stacked on it)."""
    # a module apply found where the entry creates it (state.owner): the entry's change is the module all the same
    before = b"" if f.original_sha256 == ABSENT or found(f) else store.original(f.original_sha256)
    if before is None:
        return NoDiff(f"the kept original of {f.path} is gone")
    after = b"" if f.patched_sha256 == ABSENT else _bytes(store.root / f.path, f.patched_sha256)
    if after is None:
        after = store.original(f.patched_sha256)
    if after is None:
        return NoDiff(f"{f.path} is not the bytes radpatch wrote there, and no copy of them is kept")
    return before, after


def file_diff(before: bytes, after: bytes, relpath: str) -> list[str]:
    """The unified diff of one file, as GNU `patch` reads it back: lines are split at newlines
    only (a form feed or U+2028 inside a line is the line's text), and a last line without a
    newline is followed by `\\ No newline at end of file`, never run into the next line. Bytes
    that are not UTF-8 (a latin-1 module, PEP 263) are kept as lone surrogates (surrogateescape), so
    `.encode("utf-8", "surrogateescape")` gives the diff byte for byte and `patch` rebuilds the file
    exactly: a replacement character instead would not match the pristine context, nor write the
    bytes installed. Empty on both sides is a file the entry creates empty (a package's `__init__.py`;
    an entry changes every other file it names): no hunk can say it, so it is git's extended header,
    which GNU `patch` and `git apply` read as an empty new file (joined puts it last)."""
    if not before and not after:
        return [f"diff --git a/{relpath} b/{relpath}\n", "new file mode 100644\n"]
    return text_diff(before.decode("utf-8", "surrogateescape"), after.decode("utf-8", "surrogateescape"), relpath)


def text_diff(before: str, after: str, relpath: str) -> list[str]:
    """file_diff of two texts (`a/RELPATH`, `b/RELPATH`)."""
    out = []
    for line in difflib.unified_diff(_lines(before), _lines(after), f"a/{relpath}", f"b/{relpath}"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return out


def joined(files: list[list[str]]) -> str:
    """The diffs of an entry's files as one: the empty files it creates last, since `patch` reads the
    unified diff of a file after a git header as part of it."""
    created = [f for f in files if f and f[0].startswith("diff --git ")]
    return "".join(line for f in [*(f for f in files if f not in created), *created] for line in f)


def _lines(text: str) -> list[str]:
    """The text's lines, each with its newline (the last one's may lack it)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _bytes(path: Path, digest: str) -> bytes | None:
    """The file's bytes if they hash to `digest`."""
    try:
        data = read_regular(path)
    except OSError:
        return None
    return data if sha256(data) == digest else None


def recorded_step(ps: PatchState, f: FileState) -> tuple[bytes, bytes] | None:
    """An applied entry's step on a file, from its record (exactly the bytes it replaced and wrote:
    the structural inverse is only AST-equal to them, and on a stacked file would keep the upper
    entries' lines); None when radpatch has no record of it there."""
    rec = next((r for r in (ps.record.files if ps.record else ()) if r.path == f.relpath), None)
    if ps.dist is None or rec is None:
        return None
    step = _recorded_step(Store(ps.dist.root), rec)
    return None if isinstance(step, NoDiff) else step
