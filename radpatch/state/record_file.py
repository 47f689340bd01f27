"""radpatch's record of an installation, `.radpatch/record.json`: patch -> the installed
distribution it was applied to (name, version, sha256 of its RECORD), the entry's revision
(`registry_digest`), its place in the order of runs (`seq`), and per file the sha256 (and code
hash) before and after the patch; the links of all patches on one file are its chain (pristine ->
after patch 1 -> after patch 2 ...), read by state.hashes (docs/state.md). Read checked field by
field (a record of the wrong shape is exit 4), written whole."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from radpatch.errors import EnvironmentProblem
from radpatch.files import atomic_write
from radpatch.state.layout import ABSENT, StateDir, link_refusal, load_json
from radpatch.state.touched import Touched, parse, plain

# 3: each file link also carries the code hashes (state.code_hashes.code_hash) before and after;
# 4: a link may start from no file (ABSENT: a module the patch created) and name the directories it made;
# 5: dist_record_sha256 is the install identity (install.wheel_record.InstallId.files: RECORD without the
# rows pip writes per install), formats 2 to 4 the sha256 of RECORD's bytes (both read as the same install);
# 6: a link from no file says whether radpatch wrote the file (`written`), and a module apply adopted where an
# entry creates it is a link from its bytes to themselves (state.owner): revert never deletes what it did not write
FORMAT = 6
_SHA = re.compile(r"[0-9a-f]{64}\Z")
_CODE = re.compile(r"(ast[0-9]+\.[0-9]+:[0-9a-f]{64})?\Z")


@dataclass(frozen=True)
class FileRecord:
    module: str
    path: str  # relative to the distribution root
    original_sha256: str  # the file before this patch (for a stacked patch: after the one below)
    patched_sha256: str  # the file right after this patch
    # the same two states as code hashes (state.code_hashes.code_hash: comments and layout do not count),
    # "" in records written before format 3 or for a file that does not parse
    original_code: str = ""
    patched_code: str = ""
    # where the file's chain started when this link was written: the state before every radpatch
    # patch under this one (its own `before` when it was the first), as sha256 and code hash; it
    # stays known when the links under it are replaced later ("" before format 3)
    base_sha256: str = ""
    base_code: str = ""
    # the directories (relative to the root, outermost first) radpatch made to create the file
    # (original_sha256 ABSENT): revert removes each that is empty once the file is gone
    made_dirs: tuple[str, ...] = ()
    # the code hashes before and after, computed by the target interpreter when it is another
    # Python than radpatch's (a code hash is only compared by the Python that computed it): the
    # engine-start self-check runs there ((): the same Python, or written before they were kept)
    target_code: tuple[str, ...] = ()
    # a link from no file (format 6): radpatch wrote the file, or its own records showed it had (state.owner);
    # False in a link from no file of an older record, which cannot show it (revert leaves the file)
    written: bool = False

    @property
    def created(self) -> bool:
        """The patch created the file: its state before is no file."""
        return self.original_sha256 == ABSENT


@dataclass(frozen=True)
class PatchRecord:
    patch: str
    distribution: str
    version: str
    registry_digest: str
    files: tuple[FileRecord, ...]
    seq: int = 0  # order of application among the records of this store (format 1: 0)
    dist_record_sha256: str = ""  # the install's identity when applied (wheel_record.InstallId; "" in format 1)
    # the entry's `requires:` when it was applied (() before they were recorded): a revert of a
    # requirement, and `status --check`, find this dependent even when its registry is not loaded
    requires: tuple[str, ...] = ()
    # what each rewrite changed (state.touched), so that a run without the entry's registry still
    # checks overlaps with it; None in records written before they were kept
    touches: tuple[Touched, ...] | None = None
    # the entry's `upstream:` links when it was applied (() when it had none, or before they were
    # kept): an SBOM made without the registry still says which upstream change it carries
    upstream: tuple[str, ...] = ()


_PARSED: dict[tuple[object, ...], dict[str, PatchRecord]] = {}


class RecordFile(StateDir):
    """The record's reads and its write (a part of state.record's `Store`)."""

    def _raw(self) -> dict[str, object]:
        if self.record_path.is_symlink():  # a dangling link is no absent record: every command refuses it
            raise link_refusal(self.record_path)
        try:
            raw = load_json(self.record_path)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            raise _unreadable(self.dir, str(exc))
        if not isinstance(raw, dict):
            raise _unreadable(self.dir, "not a JSON object")
        fmt = raw.get("format", 1)  # format 1 wrote none
        if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
            raise _unreadable(self.dir, f"'format' is {fmt!r}, not a format number")
        if fmt > FORMAT:  # a newer radpatch's record: its meaning is unknown here, so nothing acts on it
            raise EnvironmentProblem(
                f"{self.record_path} was written by a newer radpatch (record format {fmt}; this radpatch "
                f"reads formats 1 to {FORMAT})",
                "upgrade radpatch (pip install --upgrade radpatch), then run the command again: "
                "this radpatch does not act on a record it cannot understand",
            )
        return raw

    def records(self) -> dict[str, PatchRecord]:
        """The record, parsed once per version of record.json (it is only ever replaced whole,
        so its inode, size and mtime name a version)."""
        try:
            st = self.record_path.stat()
            key: tuple[object, ...] = (str(self.record_path), st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            key = ()
        if key and key in _PARSED:
            return dict(_PARSED[key])
        out = self._parse()
        if key:
            _PARSED.clear()
            _PARSED[key] = out
        return dict(out)

    def _parse(self) -> dict[str, PatchRecord]:
        raw = self._raw()
        patches = raw.get("patches", {})
        if not isinstance(patches, dict):
            raise _unreadable(self.dir, "'patches' is not an object")
        return {name: _patch_record(self.dir, name, r) for name, r in patches.items()}

    def chain(self, relpath: str) -> list[tuple[str, FileRecord]]:
        """Every recorded patch of the file `relpath`, in the order they were applied."""
        recs = sorted(self.records().values(), key=lambda r: r.seq)
        return [(r.patch, f) for r in recs for f in r.files if f.path == relpath]

    def recorded_files(self, relpath: str, besides: str) -> list[FileRecord]:
        """What other patches than `besides` recorded for the file `relpath` (stacked patches)."""
        return [f for name, f in self.chain(relpath) if name != besides]

    def last_run(self) -> str | None:
        """The id of the run that wrote the record last (a journal's run is committed iff equal)."""
        run = self._raw().get("last_run")
        return run if isinstance(run, str) else None

    def save(self, records: dict[str, PatchRecord], run: str) -> None:
        data = {"format": FORMAT, "last_run": run, "patches": {n: _plain(r) for n, r in sorted(records.items())}}
        path = self.record_path
        if not os.path.lexists(path):
            path.write_bytes(b"{}")
        atomic_write(path, json.dumps(data, indent=2, sort_keys=True).encode() + b"\n")
        self.prune(records)  # housekeeping: never fails the run whose record is now written

    def prune(self, records: dict[str, PatchRecord] | None = None, keep: frozenset[str] = frozenset()) -> None:
        """Drop kept bytes no record names: state.originals does (the record only asks for it)."""


def _patch_record(folder: Path, name: object, r: object) -> PatchRecord:
    """One record entry, checked field by field (a record of the wrong shape is exit 4, never 70)."""
    try:
        if not isinstance(r, dict):
            raise TypeError("the entry is not an object")
        files = tuple(_file_record(f) for f in r["files"])
        seq, dist_sha, requires = r.get("seq", 0), r.get("dist_record_sha256", ""), r.get("requires", [])
        upstream = r.get("upstream", [])
        _need(
            isinstance(upstream, list) and all(isinstance(n, str) for n in upstream), "upstream is not a list of links"
        )
        _need(
            isinstance(requires, list) and all(isinstance(n, str) for n in requires), "requires is not a list of names"
        )
        rec = PatchRecord(
            str(name),
            r["distribution"],
            r["version"],
            r["registry_digest"],
            files,
            seq,
            dist_sha,
            tuple(requires),
            parse(r.get("touches")),
            tuple(upstream),
        )
        _need(
            all(
                isinstance(v, str) for v in (rec.distribution, rec.version, rec.registry_digest, rec.dist_record_sha256)
            ),
            "a field is not a string",
        )
        _need(isinstance(rec.seq, int) and not isinstance(rec.seq, bool), "seq is not an integer")
        return rec
    except (AttributeError, KeyError, TypeError) as exc:
        raise _unreadable(folder, f"unexpected structure in the entry {name!r}: {exc}")


def _file_record(f: dict[str, object]) -> FileRecord:
    made, target = f.get("made_dirs", []), f.get("target_code", [])
    _need(isinstance(made, list) and all(isinstance(d, str) for d in made), f"made_dirs of {f!r}")
    _need(isinstance(target, list) and all(isinstance(c, str) and _CODE.match(c) for c in target), "target_code")
    rec = FileRecord(**{**f, "made_dirs": tuple(made), "target_code": tuple(target)})  # type: ignore[arg-type]
    _need(isinstance(rec.module, str) and isinstance(rec.path, str), f"file entry {f!r}")
    for rel in (rec.path, *rec.made_dirs):
        _need(inside(rel), f"the path {rel!r} is not inside the install root (absolute, empty or with ..)")
    for digest in (rec.original_sha256, rec.patched_sha256):
        _need(isinstance(digest, str) and bool(_SHA.match(digest)), f"not a sha256: {digest!r}")
    _need(isinstance(rec.base_sha256, str) and bool(_SHA.match(rec.base_sha256) or not rec.base_sha256), "base")
    for code in (rec.original_code, rec.patched_code, rec.base_code):
        _need(isinstance(code, str) and bool(_CODE.match(code)), f"not a code hash: {code!r}")
    _need(isinstance(rec.written, bool) and (rec.created or not rec.written), "written")
    return rec


def inside(rel: str) -> bool:
    """`rel` names a file under the install root: relative, no `..`, no NUL (a hand-edited record
    naming /etc/passwd or ../../x.py is unreadable, never a file revert would write)."""
    parts = PurePosixPath(rel).parts
    return bool(parts) and "\0" not in rel and not rel.startswith(("/", "\\")) and ".." not in parts


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise TypeError(what)


def _unreadable(folder: Path, why: str) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"{folder / 'record.json'} is unreadable ({why})",
        "restore it or remove it; status then re-derives states from the files",
    )


def _plain(r: PatchRecord) -> dict[str, object]:
    d = asdict(r)
    d.pop("patch")
    for f in d["files"]:
        if not f["written"]:
            f.pop("written")  # said of a link from no file only
    d["touches"] = plain(r.touches)
    if d["touches"] is None:
        d.pop("touches")
    if not r.upstream:
        d.pop("upstream")  # the record as before links were kept: older radpatch reads it unchanged
    return d
