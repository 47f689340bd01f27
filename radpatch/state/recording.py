"""radpatch's record of what a run wrote: per patch, per file, the link it adds to the file's chain
(sha256 and code hash before and after, and where the chain starts: state.hashes.base), stacked
on the links already recorded, with the code hashes as the target interpreter computes them when
it is another Python than radpatch's (its engine-start self-check compares those)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from radpatch.install.environment import PythonEnv
from radpatch.state import touched
from radpatch.state.code_hashes import code_hash, target_code_hashes
from radpatch.state.decide import PatchState
from radpatch.state.hashes import Link, base
from radpatch.state.record import FileRecord, PatchRecord, sha256, state_sha


@dataclass(frozen=True)
class Wrote:
    """One file as a change leaves it."""

    module: str
    path: Path
    original: bytes | None  # the file before the patch (None: no file, the change created it)
    after: bytes
    made_dirs: tuple[Path, ...] = ()  # the directories made for a file the change created


def target_codes(env: PythonEnv, blobs: list[bytes]) -> dict[str, str]:
    """sha256 -> code hash as the target interpreter computes it, for every state this run records,
    when the target is another Python than radpatch's (its engine-start self-check compares them)."""
    if env.is_current:
        return {}
    by_sha = {sha256(b): b for b in blobs}
    got = target_code_hashes(env.executable, list(by_sha.values()))
    return dict(zip(by_sha, got)) if got is not None else {}


def record(
    ps: PatchState, files: Sequence[Wrote], seq: int, records: dict[str, PatchRecord], theirs: dict[str, str]
) -> PatchRecord:
    """The record of a change, its links stacked on the links in `records` (this run's earlier
    changes included). A file the change created starts from no file (ABSENT), naming the
    directories made for it, and says radpatch wrote it (`written`: state.owner)."""
    dist = ps.dist
    assert dist is not None
    out = []
    for f in files:
        relpath = str(f.path.relative_to(dist.root))
        chain = [Link(r.patch, lf) for r in sorted(records.values(), key=lambda r: r.seq) for lf in r.files]
        start = base([ln for ln in chain if ln.file.path == relpath], f.original)
        dirs = _made_dirs(f, relpath, dist.root, records) if f.original is None else ()
        before = None if f.original is None else sha256(f.original)
        out.append(
            FileRecord(
                f.module,
                relpath,
                state_sha(f.original),
                sha256(f.after),
                code_hash(f.original) if f.original is not None else "",
                code_hash(f.after),
                *start,
                made_dirs=dirs,
                target_code=_theirs(theirs, before, sha256(f.after)),
                written=f.original is None,  # radpatch writes it, or its records show it wrote it (state.owner)
            )
        )
    return PatchRecord(
        ps.patch.name,
        dist.name,
        str(dist.version),
        ps.patch.digest,
        tuple(out),
        seq,
        ps.dist_record.files,
        # the requirements radpatch applied (recorded): one a run found obsolete on this install
        # needs nothing applied, and the engine-start check, which reads no registry, must not
        # read it as missing
        tuple(n for n in ps.patch.requires if n in records),
        touched.of(ps.patch, dist.version),
        ps.patch.upstream,
    )


def _made_dirs(f: Wrote, relpath: str, root: Path, records: dict[str, PatchRecord]) -> tuple[str, ...]:
    """The directories radpatch made that a created file lives in: those made for it, and those made
    for another entry's created module it shares (`toy/new/sub/b.py` created in the `toy/new/sub/`
    an entry made for its `a.py`), so that whichever entry is reverted last removes them."""
    own = {str(d.relative_to(root)) for d in f.made_dirs}
    shared = {d for r in records.values() for lf in r.files for d in lf.made_dirs if relpath.startswith(d + "/")}
    return tuple(sorted(own | shared, key=lambda d: (d.count("/"), d)))


def _theirs(theirs: dict[str, str], before: str | None, after: str) -> tuple[str, ...]:
    if after not in theirs or (before is not None and before not in theirs):
        return ()
    return (theirs[before] if before is not None else "", theirs[after])
